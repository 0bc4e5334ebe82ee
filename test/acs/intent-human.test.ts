// The human approver type for IBAC (§9) over real `/acs`: with no agent or service approver
// configured, a request outside the session's Intent is held and put to the management
// plane's approver (as the UI, `/ws` and `warden approvals` answer it); an approval lets
// this request through as a chained `this_request` grant by that person, a rejection denies.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApprovalRequest, JsonObject } from '../../src/core/index.js'
import { acsRequest, createMemoryLedger } from '../../src/protocols/acs/index.js'
import { type AcsGuardian, KEY, startAcs } from './helper.js'

const ledger = createMemoryLedger()
const asked: ApprovalRequest[] = []
let g: AcsGuardian

beforeAll(async () => {
  g = await startAcs({
    ledger,
    approver: (request) => {
      asked.push(request)
      const capability = (request.event.context.intent as JsonObject | undefined)?.capability
      return capability === 'filesystem.delete'
        ? { outcome: 'approve', by: 'alice' }
        : { outcome: 'reject', by: 'bob', reason: 'not on a Friday' }
    },
  })
})
afterAll(async () => {
  await g?.close()
})

async function call(sessionId: string, capability: string) {
  const payload = { tool: { name: 'fs' }, capability, arguments: {} }
  return (await g.post(acsRequest('steps/toolCallRequest', payload, { sessionId, key: KEY }))).body
}

describe('IBAC with the management plane as the approver', () => {
  it('holds a request outside the Intent for a person: approved once, chained; rejected, denied', async () => {
    const sessionId = await g.session()
    const intent = { parsed: ['filesystem.read'], parser_provenance: { origin: 'user_input' } }
    await g.post(acsRequest('steps/sessionStart', { intent }, { sessionId, key: KEY }))

    const approved = await call(sessionId, 'filesystem.delete')
    expect(approved.result?.decision, JSON.stringify(approved)).toBe('allow')
    expect(approved.result.reasoning).toContain('approved by alice for this request')
    expect(asked).toHaveLength(1)
    expect(asked[0]?.asks[0]?.hook).toBe('acs-intent')
    expect(asked[0]?.event.event).toBe('tool.pre')

    const rejected = await call(sessionId, 'network.egress')
    expect(rejected.result?.decision).toBe('deny')
    expect(rejected.result.reason_codes).toEqual(['approver_denied', 'ibac_intent_mismatch'])
    expect(rejected.result.reasoning).toContain('rejected by bob: not on a Friday')

    const entries = (await ledger.entries({ tenant: '', session: sessionId })) as unknown as JsonObject[]
    const grant = entries.find((e) => e.step_type === 'intent_extension')
    expect(grant).toMatchObject({
      approver: { id: 'alice', type: 'human' },
      capabilities: ['filesystem.delete'],
      scope: 'this_request',
      origin_step_id: approved.result.request_id,
    })
    expect((await call(sessionId, 'filesystem.delete')).result.decision).toBe('allow')
    expect(asked).toHaveLength(3)
  })
})
