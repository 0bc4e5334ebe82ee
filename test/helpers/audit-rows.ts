// Audit rows for store tests: a decision with every column filled (an allowed Bash call of
// tenant acme by default) and one hook execution of it, each with fields to override.

import type { DecisionRow, ExecutionRow } from '../../src/store/index.js'

/** A decision row `id` at `createdAt`, with `over` applied. */
export function decisionRow(id: string, createdAt: number, over: Partial<DecisionRow> = {}): DecisionRow {
  return {
    id,
    tenant: 'acme',
    agentId: 'agent',
    sessionId: 's',
    tool: 'Bash',
    event: 'tool.pre',
    decision: 'allow',
    reason: '',
    reasonCode: [],
    decidingHooks: [],
    policies: [],
    durationMs: 1,
    blocking: true,
    input: { cmd: 'ls' },
    output: {},
    createdAt,
    ...over,
  }
}

/** The execution of `row`'s hook `guard` at position 0, with `over` applied. */
export function executionRow(row: DecisionRow, over: Partial<ExecutionRow> = {}): ExecutionRow {
  return {
    dedupKey: `${row.id}:0`,
    decisionId: row.id,
    tenant: row.tenant,
    hookRef: 'guard',
    hookName: 'guard',
    hookVersion: 1,
    handler: 'script',
    decision: row.decision,
    durationMs: 3,
    position: 0,
    createdAt: row.createdAt,
    ...over,
  }
}
