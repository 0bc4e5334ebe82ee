// Migration 0015: two per-hook rules kept by hooks made in another system's shape (GoClaw's
// over `/ws`): whether the hook's own blocks count toward its circuit breaker, and whether
// it runs in the background (the caller does not wait for it), both 1 or null; and the
// system whose format the hook was written in (`home`: goclaw, loom, harness or null).

import type { Kysely, Migration } from 'kysely'

/** 0015: `breaker_counts_blocks`, `background` and `home` on hooks. */
export const hookRulesMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('hooks').addColumn('breaker_counts_blocks', 'integer').execute()
    await db.schema.alterTable('hooks').addColumn('background', 'integer').execute()
    await db.schema.alterTable('hooks').addColumn('home', 'text').execute()
  },
}
