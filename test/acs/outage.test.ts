// What the ACS service answers when its ledger (replay memory, session chain) hangs or fails:
// within the ledger timeout, the session's failure posture with the cause in the answer —
// a signed deny under `onDecisionFailure: deny` (the recorded decision corrected to it when
// the failure came after the engine decided), a -32603 error naming it under `proceed`.

import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/index.js'
import {
  type AcsLedger,
  type AnswerCorrection,
  acsRequest,
  createAcsService,
  createMemoryLedger,
  responseSigned,
  settingsWith,
} from '../../src/protocols/acs/index.js'
import { openAcsLedger } from '../../src/server/index.js'
import { freePort } from '../setup/postgres.js'
import { KEY } from './helper.js'

const TOOL = { tool: { id: 'send_email' }, arguments: { to: { value: 'a@example.com' } } }

/** A memory ledger whose chosen calls never answer, or fail. */
function brokenLedger(broken: keyof AcsLedger, how: 'hang' | 'fail'): AcsLedger {
  const ledger = createMemoryLedger()
  return {
    ...ledger,
    [broken]: () =>
      how === 'hang' ? new Promise(() => undefined) : Promise.reject(new Error('connect ECONNREFUSED')),
  }
}

function service(ledger: AcsLedger, posture: 'deny' | 'proceed', corrections: AnswerCorrection[]) {
  const engine = createEngine({ hooks: [{ name: 'ok', event: 'tool.pre', handler: { type: 'allow' } }] })
  return createAcsService({
    engine,
    ledger,
    ledgerTimeoutMs: 200,
    settings: settingsWith({
      keys: [{ id: KEY.id, material: KEY.material }],
      requireHandshake: false,
      onDecisionFailure: posture,
    }),
    onAnswerChanged: (c) => corrections.push(c),
  })
}

describe('ACS with a ledger that does not answer', () => {
  it('denies within the ledger timeout, naming the replay memory, before evaluating', async () => {
    const corrections: AnswerCorrection[] = []
    const acs = service(brokenLedger('remember', 'hang'), 'deny', corrections)
    const sessionId = randomUUID()
    const started = Date.now()
    const reply = (await acs.handle(acsRequest('steps/toolCallRequest', TOOL, { sessionId, key: KEY }))) as {
      result: { decision: string; reasoning: string; reason_codes: string[] }
    }
    expect(Date.now() - started).toBeLessThan(2000)
    expect(reply.result.decision).toBe('deny')
    expect(reply.result.reasoning).toMatch(/ACS ledger \(replay memory\) did not answer within 200 ms/)
    expect(reply.result.reason_codes).toEqual(['decision_failure'])
    expect(responseSigned(JSON.parse(acs.replyText(reply)), KEY, sessionId)).toBe(true)
    expect(corrections).toEqual([])
  })

  it('corrects the recorded allow to the deny given when the chain fails after the decision', async () => {
    const corrections: AnswerCorrection[] = []
    const acs = service(brokenLedger('append', 'fail'), 'deny', corrections)
    const reply = (await acs.handle(
      acsRequest('steps/toolCallRequest', TOOL, { sessionId: randomUUID(), key: KEY }),
    )) as { result: { decision: string; reasoning: string } }
    expect(reply.result.decision).toBe('deny')
    expect(reply.result.reasoning).toMatch(/ACS ledger \(session chain\) failed: connect ECONNREFUSED/)
    expect(corrections).toHaveLength(1)
    expect(corrections[0]).toMatchObject({ decision: 'deny', reasonCode: ['decision_failure'] })
    expect(corrections[0]?.reason).toBe(reply.result.reasoning)
  })

  it('names the database when the SQL ledger cannot reach it, never its address or password', async () => {
    const port = await freePort()
    const ledger = openAcsLedger(`postgres://warden:hunter2@127.0.0.1:${port}/warden`)
    try {
      const acs = service(ledger, 'deny', [])
      const reply = (await acs.handle(
        acsRequest('steps/toolCallRequest', TOOL, { sessionId: randomUUID(), key: KEY }),
      )) as { result: { decision: string; reasoning: string } }
      expect(reply.result.decision).toBe('deny')
      expect(reply.result.reasoning).toMatch(
        /^the ACS ledger \(session state\) failed: the database \(PostgreSQL\) cannot be reached: ECONNREFUSED; on_decision_failure is deny/,
      )
      expect(reply.result.reasoning).not.toMatch(/hunter2|127\.0\.0\.1/)
    } finally {
      await ledger.close()
    }
  })

  it('answers -32603 naming the cause under onDecisionFailure: proceed', async () => {
    const acs = service(brokenLedger('remember', 'fail'), 'proceed', [])
    const reply = (await acs.handle(
      acsRequest('steps/toolCallRequest', TOOL, { sessionId: randomUUID(), key: KEY }),
    )) as { error: { code: number; message: string } }
    expect(reply.error.code).toBe(-32603)
    expect(reply.error.message).toMatch(/replay memory\) failed: connect ECONNREFUSED.*proceed/)
  })
})
