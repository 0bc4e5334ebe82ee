// Keeping the rollups right when a decision row is corrected after it was written (a
// blocking decision whose record timed out was answered deny: its row is set to deny). The
// old outcome is taken off and the new one added as one pending row of counts, in the
// correction's transaction; the fold adds it to every grain and dimension as it does a
// batch's counts, whether or not the batch's own counts were folded yet.

import { CompiledQuery, type Kysely, sql, type Transaction } from 'kysely'
import { newCounter } from './rollups-roll.js'
import { POSTGRES_ROLLUP_SQL, SQLITE_ROLLUP_SQL } from './rollups-write.js'
import type { Database } from './schema.js'

interface Counted {
  tenant: string
  decision: string
  created_at: unknown
  tool: string | null
  agent_id: string | null
  session_id: string | null
}

/**
 * Moves a decision's count from its recorded outcome to `decision` in the rollups; call it
 * before the row is updated, in the same transaction.
 */
export async function correctRollups(
  trx: Transaction<Database> | Kysely<Database>,
  dialect: 'sqlite' | 'postgres',
  id: string,
  decision: string,
): Promise<void> {
  const found = await sql<Counted>`select tenant, decision, created_at, tool, agent_id, session_id
    from decisions where id = ${id}`.execute(trx)
  const row = found.rows[0]
  if (!row || row.decision === decision) return
  const recorded = {
    tenant: row.tenant,
    decision: row.decision,
    createdAt: Number(row.created_at),
    ...(row.tool ? { tool: row.tool } : {}),
    ...(row.agent_id ? { agentId: row.agent_id } : {}),
    ...(row.session_id ? { sessionId: row.session_id } : {}),
  }
  const counter = newCounter()
  counter.decision(recorded, -1)
  counter.decision({ ...recorded, decision }, 1)
  const counts = counter.take()
  if (!counts) return
  const statement = dialect === 'sqlite' ? SQLITE_ROLLUP_SQL.insertPending : POSTGRES_ROLLUP_SQL.insertPending
  await trx.executeQuery(CompiledQuery.raw(statement, [JSON.stringify(counts)]))
}
