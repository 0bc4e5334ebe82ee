// Migration 0015: two per-hook rules kept by hooks made in another system's shape (GoClaw's
// over `/ws`): whether the hook's own blocks count toward its circuit breaker, and whether
// it runs in the background (the caller does not wait for it). Both are 1 or null.

import type { Kysely, Migration } from 'kysely'

/** 0015: `breaker_counts_blocks` and `background` on hooks. */
export const hookRulesMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('hooks').addColumn('breaker_counts_blocks', 'integer').execute()
    await db.schema.alterTable('hooks').addColumn('background', 'integer').execute()
  },
}
