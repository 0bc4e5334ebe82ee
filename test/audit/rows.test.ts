// The execution rows of a decision name each hook by its engine id: a global hook by its
// name even when the event came from a tenant, a tenant's hook as tenant/name; a trace
// built by hand without an id falls back to the tenant and the hook name.

import { describe, expect, it } from 'vitest'
import { toAuditRows } from '../../src/audit/index.js'
import { createEngine, type Decision, type DecisionRecord, type HookTrace } from '../../src/index.js'

describe('execution rows', () => {
  it('take hookRef from the trace id', async () => {
    const records: DecisionRecord[] = []
    const engine = createEngine({
      recorder: { record: (record) => void records.push(record) },
      hooks: [
        { name: 'global', event: 'tool.pre', handler: { type: 'allow' } },
        { name: 'mine', event: 'tool.pre', scope: { tenant: 'acme' }, handler: { type: 'allow' } },
      ],
    })
    await engine.dispatch({
      event: 'tool.pre',
      payload: { tool: { name: 'exec', input: {} } },
      context: { tenantId: 'acme' },
    })
    const rows = toAuditRows(records[0] as DecisionRecord, { now: 1 })
    expect(rows.executions.map((e) => [e.hookRef, e.hookName])).toEqual([
      ['global', 'global'],
      ['acme/mine', 'mine'],
    ])
  })

  it('fall back to tenant/name for traces without an id', () => {
    const trace = { hook: 'old', handler: 'fn', version: 1, outcome: 'allow', durationMs: 1 } as HookTrace
    const decision = {
      id: 'd1',
      event: 'tool.pre',
      decision: 'allow',
      reason: 'fine',
      reasonCode: [],
      additionalContext: [],
      policies: [],
      trace: [trace],
      durationMs: 1,
      blocking: true,
    } as Decision
    const withTenant = toAuditRows({
      decision,
      event: { event: 'tool.pre', payload: {}, context: { tenantId: 'acme' } },
    })
    expect(withTenant.executions[0]?.hookRef).toBe('acme/old')
    const global = toAuditRows({ decision, event: { event: 'tool.pre', payload: {}, context: {} } })
    expect(global.executions[0]?.hookRef).toBe('old')
  })
})
