// The AOS spec's own request examples over real HTTP on loopback: each is accepted (though
// they lack what the schemas require, such as agent.url and identity), allowed without
// hooks, denied by a hook, and answered modify with a modifiedRequest both schemas accept.

import { readdirSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { HookCall } from '../../src/core/index.js'
import { METHOD_CASES } from './aos-fixtures.js'
import { EXAMPLES_DIR, example, startGuardian } from './aos-helper.js'

const EVENTS = [...new Set(METHOD_CASES.map((c) => c.event))]

describe('the spec examples', () => {
  const files = readdirSync(EXAMPLES_DIR).filter((f) => f.endsWith('.json'))
  // The A2A and MCP pages also show the raw A2A / MCP message an agent prepares before it
  // wraps it into AOS ("prepares", "a2a-payload"); those are not AOS requests.
  const requests = files.filter((f) => 'method' in example(f) && !/prepares|4-a2a-payload/.test(f))
  const responses = files.filter((f) => 'result' in example(f))

  it('has request and response examples to check', () => {
    expect(requests.length).toBe(30)
    expect(responses.length).toBeGreaterThanOrEqual(6)
  })

  it('accepts every request example (allowed without hooks, denied by a hook)', async () => {
    const open = await startGuardian()
    const strict = await startGuardian({
      hooks: EVENTS.map((event) => ({
        name: `no-${event}`,
        event,
        handler: { type: 'fn', fn: () => ({ decision: 'deny', reason: 'closed' }) },
      })),
    })
    try {
      for (const file of requests) {
        const request = example(file)
        const allowed = await open.post(request)
        expect(allowed.body.result?.decision, `${file}: ${JSON.stringify(allowed.body.error)}`).toBe('allow')
        expect(allowed.body.id).toBe(request.id)
        const denied = await strict.post(request)
        expect(denied.body.result?.decision, file).toBe('deny')
      }
    } finally {
      await open.close()
      await strict.close()
    }
  })

  it('answers modify to every request example with a modifiedRequest both schemas accept', async () => {
    // Every text and value the hooks see gets a prefix; the examples lack agent.url and
    // identity, which the modifiedRequest fills in so that the answer validates.
    const mark = (call: HookCall) => ({
      decision: 'modify',
      payload: JSON.parse(JSON.stringify(call.event.payload).replace(/"(text|value)":"/g, '"$1":"checked: ')),
    })
    const rewriting = await startGuardian({
      hooks: EVENTS.map((event) => ({ name: `mark-${event}`, event, handler: { type: 'fn', fn: mark } })),
    })
    try {
      for (const file of requests) {
        const request = example(file) as { id: unknown; method: string; params: Record<string, unknown> }
        const answer = await rewriting.post(request)
        const result = answer.body.result
        expect(result?.decision, `${file}: ${JSON.stringify(answer.body.error)}`).toBe('modify')
        expect(result.modifiedRequest).toMatchObject({
          jsonrpc: '2.0',
          id: request.id,
          method: request.method,
        })
        if (request.method.startsWith('steps/')) {
          const context = request.params.context as { agent: Record<string, unknown> }
          const sent = result.modifiedRequest.params.context
          expect(sent.agent, file).toMatchObject(context.agent)
          expect(sent.agent).toMatchObject({ url: '', identity: { signatures: [] } })
          expect(sent.identity).toEqual({ signatures: [] })
        }
      }
    } finally {
      await rewriting.close()
    }
  })
})
