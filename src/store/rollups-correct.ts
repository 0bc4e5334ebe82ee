// Keeping the rollups right when a decision row is corrected after it was written (a
// blocking decision whose record timed out was answered deny: its row is set to deny). The
// old outcome is taken off and the new one added, for each grain and dimension the row was
// counted in, in the correction's transaction. On SQLite a row the fold has not reached yet
// is left alone: the fold will count it as corrected.

import { type Kysely, sql, type Transaction } from 'kysely'
import { DAY_MS, HOUR_MS, MINUTE_MS, MINUTE_RETENTION_MS } from './rollups-write.js'
import type { Database } from './schema.js'

const OUTCOME_COLUMNS: Record<string, string> = {
  allow: 'n_allow',
  deny: 'n_deny',
  modify: 'n_modify',
  ask: 'n_ask',
}

interface Counted {
  seq: unknown
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
  const seq = dialect === 'sqlite' ? sql`rowid` : sql`0`
  const found =
    await sql<Counted>`select ${seq} as seq, tenant, decision, created_at, tool, agent_id, session_id
    from decisions where id = ${id}`.execute(trx)
  const row = found.rows[0]
  if (!row || row.decision === decision) return
  if (dialect === 'sqlite') {
    const mark = await sql<{
      value: unknown
    }>`select value from rollup_state where key = 'decisions'`.execute(trx)
    if (Number(row.seq) > Number(mark.rows[0]?.value ?? 0)) return
  }
  const at = Number(row.created_at)
  const delta = (outcome: string) => (outcome === decision ? 1 : 0) - (outcome === row.decision ? 1 : 0)
  const counts = Object.entries(OUTCOME_COLUMNS).map(([outcome, column]) => [column, delta(outcome)] as const)
  const items: [string, string, number][] = [['', '', 0]]
  if (row.tool) items.push(['tool', row.tool, 0])
  if (row.agent_id) items.push(['agent', row.agent_id, 0])
  // Sessions are counted by their denials only: the row enters or leaves that count.
  if (row.session_id && (decision === 'deny' || row.decision === 'deny')) {
    items.push(['session', row.session_id, decision === 'deny' ? 1 : -1])
  }
  const spans = [HOUR_MS, DAY_MS, ...(at >= Date.now() - MINUTE_RETENTION_MS ? [MINUTE_MS] : [])]
  for (const span of spans) {
    const bucket = at - (at % span)
    for (const [dim, item, total] of items) {
      const own = (column: string) => {
        const change = counts.find(([c]) => c === column)?.[1] ?? 0
        return dim === 'session' ? (column === 'n_deny' ? total : 0) : change
      }
      await sql`insert into rollup_decisions (span, dim, tenant, bucket, item, total, n_allow, n_deny, n_modify, n_ask)
        values (${span}, ${dim}, ${row.tenant}, ${bucket}, ${item}, ${total}, ${own('n_allow')}, ${own('n_deny')},
          ${own('n_modify')}, ${own('n_ask')})
        on conflict (span, dim, tenant, bucket, item) do update set
          total = rollup_decisions.total + excluded.total, n_allow = rollup_decisions.n_allow + excluded.n_allow,
          n_deny = rollup_decisions.n_deny + excluded.n_deny, n_modify = rollup_decisions.n_modify + excluded.n_modify,
          n_ask = rollup_decisions.n_ask + excluded.n_ask`.execute(trx)
    }
  }
}
