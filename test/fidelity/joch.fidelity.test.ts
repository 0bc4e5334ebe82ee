// What a Joch client reads from Warden's `/aos`: `result.reason` (Joch's field, the same text
// as AOS's `message`) and the deciding `policyId` / `policyVersion` at the top of the result,
// while every answer still validates against both AOS schemas; and Joch's A2A method names
// (`send_message`, `get_task`, `cancel_request`, ...), accepted beside the AOS / A2A ones and
// mapped onto the same events. Joch cancels a task with `cancel_request`; the AOS spec's
// example of it is titled `cancel_task`, and both names are answered.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HookDefinition } from '../../src/core/index.js'
import { TOOL_CALL_ECHO_LIMIT_BYTES } from '../../src/protocols/aos/index.js'
import { example, expectValidResponse, startGuardian, type TestGuardian } from '../server/aos-helper.js'

const JOCH_NAMES: Record<string, string> = {
  send_message: 'a2a.send',
  stream_message: 'a2a.stream',
  cancel_request: 'a2a.cancel',
  cancel_task: 'a2a.cancel',
  get_task: 'a2a.get',
  get_task_push_notification_config: 'a2a.pushConfig.get',
  set_task_push_notification_config: 'a2a.pushConfig.set',
  resubscribe_to_task: 'a2a.resubscribe',
}

const guard = (event: string): HookDefinition => ({
  name: `guard-${event}`,
  event,
  policy: { id: 'a2a-guard', version: '2' },
  handler: { type: 'deny', reason: 'peer not trusted' },
})

let guardian: TestGuardian
beforeAll(async () => {
  guardian = await startGuardian({ hooks: [...new Set(Object.values(JOCH_NAMES))].map(guard) })
})
afterAll(async () => {
  await guardian?.close()
})

describe("Joch's A2A method names and result fields", () => {
  for (const [joch, event] of Object.entries(JOCH_NAMES)) {
    it(`${joch} is ${event}, answered with reason and policyId/policyVersion`, async () => {
      const titled = joch === 'cancel_request' ? 'cancel_task' : joch
      const request = example(`a2a__hooks__${titled}_request__02__5-aos-payload.json`)
      const aos = await guardian.post(request)
      const { body } = await guardian.post({ ...request, method: joch })
      expect(body.error).toBeUndefined()
      expect(body.result).toMatchObject({
        decision: 'deny',
        message: 'peer not trusted',
        reason: 'peer not trusted',
        policyId: 'a2a-guard',
        policyVersion: '2',
      })
      expect(body.result.data.event).toBe(event)
      expect(aos.body.result.data.event).toBe(event)
    })
  }

  it('an allow carries reason too, and no policy when none decided', async () => {
    const open = await startGuardian({ hooks: [] })
    try {
      const { body } = await open.post(example('a2a__hooks__get_task_request__02__5-aos-payload.json'))
      expect(body.result.decision).toBe('allow')
      expect(body.result.reason).toBe(body.result.message)
      expect(body.result.policyId).toBeUndefined()
    } finally {
      await open.close()
    }
  })

  it('a tool call decision is reflected on a ToolCall resource, a HookDecision for every hook, allow included', async () => {
    const tools = await startGuardian({
      hooks: [
        { name: 'audit', event: 'tool.pre', priority: 1, handler: { type: 'allow' } },
        {
          name: 'no-rm',
          event: 'tool.pre',
          priority: 2,
          policy: { id: 'shell-safety', version: '3' },
          handler: { type: 'deny', reason: 'rm is not allowed' },
        },
      ],
    })
    try {
      const request = example('hooks__02__2-4-example.repaired.json')
      const { body } = await tools.post(request)
      expectValidResponse(body)
      const toolCall = body.result.data.toolCall
      expect(toolCall).toMatchObject({
        kind: 'ToolCall',
        status: {
          phase: 'Denied',
          decision: 'deny',
          reason: 'rm is not allowed',
          policyId: 'shell-safety',
          policyVersion: '3',
          hookDecisions: [
            { hook: 'audit', decision: 'allow' },
            { hook: 'no-rm', decision: 'deny', policyId: 'shell-safety', policyVersion: '3' },
          ],
        },
      })
      expect(toolCall.metadata.uid).toBe(body.result.data.decisionId)
      expect(toolCall.spec.arguments).toEqual({
        phone_number: '+337-665-99-06',
        conent: 'Urgent security alert from Google!!',
      })
      expect(toolCall.spec.argumentsOmitted).toBeUndefined()

      // A large call's arguments are not sent back to the caller who holds them.
      const large = structuredClone(request) as { params: { toolCallRequest: { inputs: unknown[] } } }
      large.params.toolCallRequest.inputs.push({
        name: 'attachment',
        value: 'x'.repeat(TOOL_CALL_ECHO_LIMIT_BYTES),
      })
      const answered = (await tools.post(large)).body
      expectValidResponse(answered)
      expect(answered.result.data.toolCall.spec).toEqual({ tool: expect.any(String), argumentsOmitted: true })
      // The same where no hook applies (the payload was not measured at dispatch).
      const none = await startGuardian({ hooks: [] })
      try {
        const unhooked = (await none.post(large)).body
        expect(unhooked.result.decision).toBe('allow')
        expect(unhooked.result.data.toolCall.spec).toEqual({
          tool: expect.any(String),
          argumentsOmitted: true,
        })
      } finally {
        await none.close()
      }
      expect(answered.result.data.toolCall.status.decision).toBe('deny')
    } finally {
      await tools.close()
    }
  })
})
