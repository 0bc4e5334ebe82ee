// The hooks table's later migrations (0009 to 0011): a description and the subject column
// of decisions, shadow mode, and a hook's home blocking rule with its cap on runs per turn.

import { type Kysely, type Migration, sql } from 'kysely'

type Dialect = 'sqlite' | 'postgres'

/**
 * 0009: a hook's `description`, and the tool (or MCP / A2A method) each decision was about, so
 * the decisions list can show and filter it through an index (older decisions: from the input).
 */
export function hookDescription(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('hooks').addColumn('description', 'text').execute()
      await db.schema.alterTable('decisions').addColumn('tool', 'text').execute()
      // Fixed paths (no input reaches this text): payload.tool.name, payload.mcp.method, ...
      const path = (a: string, b: string) =>
        dialect === 'postgres'
          ? // PostgreSQL's json refuses the \u0000 escape (JSON.stringify writes it for NUL).
            sql.raw(`(replace(input, '\\u0000', '')::json #>> '{payload,${a},${b}}')`)
          : sql.raw(`json_extract(input, '$.payload.${a}.${b}')`)
      const subject = sql`coalesce(${path('tool', 'name')}, ${path('mcp', 'method')}, ${path('a2a', 'method')})`
      await sql`update decisions set tool = ${subject}`.execute(db)
      await db.schema.createIndex('decisions_tool').on('decisions').columns(['tool', 'created_at']).execute()
      await db.schema
        .createIndex('decisions_session')
        .on('decisions')
        .columns(['session_id', 'created_at'])
        .execute()
    },
  }
}

/**
 * 0010: shadow mode. A hook's `mode` (`enforce` or `shadow`), and on each execution row `mode` =
 * `shadow` when the verdict was recorded, not applied (null otherwise), indexed for counting a
 * hook's would-be denials; and the reason given with a change (a promotion).
 */
export const hookMode: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('hooks')
      .addColumn('mode', 'text', (c) => c.notNull().defaultTo('enforce'))
      .execute()
    await db.schema.alterTable('hook_executions').addColumn('mode', 'text').execute()
    await db.schema.alterTable('changes').addColumn('reason', 'text').execute()
    await db.schema
      .createIndex('hook_executions_shadow')
      .on('hook_executions')
      .columns(['hook_ref', 'mode', 'created_at'])
      .execute()
  },
}

/** 0011: a hook's home blocking rule (`blocks`: 1, 0 or null) and its cap on runs per turn. */
export const hookBlocks: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('hooks').addColumn('blocks', 'integer').execute()
    await db.schema.alterTable('hooks').addColumn('max_invocations_per_turn', 'integer').execute()
  },
}
