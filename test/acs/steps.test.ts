// §5 hook taxonomy and §6 dispositions: every `steps/*` hook, wrapped MCP in both forms and
// agbom reach the event a hook listens on, and Warden decisions come back as ACS results
// (modifications, ASK substitution §9.2, DEFER §6, audit-only hooks).

import { afterEach, describe, expect, it } from 'vitest'
import type { HookCall, HookDefinition } from '../../src/core/index.js'
import { acsRequest, STEP_NAMES } from '../../src/protocols/acs/index.js'
import { type AcsGuardian, KEY, startAcs } from './helper.js'

let g: AcsGuardian | undefined
afterEach(async () => {
  await g?.close()
  g = undefined
})

const EXPECTED: Record<string, string> = {
  sessionStart: 'session.start',
  agentTrigger: 'agent.trigger',
  turnStart: 'turn.begin',
  userMessage: 'user.message',
  agentResponse: 'agent.response',
  knowledgeRetrieval: 'knowledge.retrieve',
  memoryContextRetrieval: 'memory.retrieve',
  memoryStore: 'memory.store',
  toolCallRequest: 'tool.pre',
  toolCallResult: 'tool.post',
  preCompact: 'compact.pre',
  postCompact: 'compact.post',
  subagentStart: 'subagent.start',
  subagentStop: 'subagent.stop',
  skillRegister: 'skill.register',
  skillLoad: 'skill.load',
  skillUnload: 'skill.unload',
  turnEnd: 'turn.finish',
  sessionEnd: 'session.end',
}

const PAYLOADS: Record<string, Record<string, unknown>> = {
  userMessage: { message: 'hello' },
  agentResponse: { message: 'hi there' },
  toolCallRequest: { tool: { id: 'search' }, arguments: { q: 'x' } },
  toolCallResult: { tool: { id: 'search' }, execution_id: 'e1', outputs: ['r'], exit_status: 'success' },
}

function recorder(seen: string[], events: string[]): HookDefinition[] {
  return events.map((event) => ({
    name: `see-${event}`,
    event,
    handler: {
      type: 'fn',
      fn: (call: HookCall) => {
        seen.push(call.event.event)
        return { decision: 'allow' }
      },
    },
  }))
}

describe('§5 the 19 steps/* hooks map onto Warden events', () => {
  it('fires the mapped event for every native hook, each adding a chain entry', async () => {
    const seen: string[] = []
    g = await startAcs({ hooks: recorder(seen, [...new Set(Object.values(EXPECTED))]) })
    const sessionId = await g.session()
    expect(STEP_NAMES).toEqual(Object.keys(EXPECTED))
    const heads = new Set<string>()
    for (const step of STEP_NAMES) {
      const { body } = await g.post(
        acsRequest(`steps/${step}`, (PAYLOADS[step] ?? {}) as never, { sessionId, key: KEY }),
      )
      expect(body.result?.decision, `${step}: ${JSON.stringify(body)}`).toBe('allow')
      heads.add(body.result.chain_hash)
    }
    expect(seen).toEqual(STEP_NAMES.map((s) => EXPECTED[s]))
    expect(heads.size).toBe(19)
  })

  it('the new canonical events resolve from their ACS aliases (hooks may be written either way)', async () => {
    const seen: string[] = []
    g = await startAcs({ hooks: recorder(seen, ['steps/turnStart', 'steps/skillLoad']) })
    const sessionId = await g.session()
    await g.post(acsRequest('steps/turnStart', { turn_id: 't1' }, { sessionId, key: KEY }))
    await g.post(acsRequest('steps/skillLoad', { skill_id: 's' }, { sessionId, key: KEY }))
    expect(seen).toEqual(['turn.begin', 'skill.load'])
  })
})

describe('hooks.md protocols/MCP/* and wrapped:, agbom/*', () => {
  it('maps protocols/MCP/<method> and wrapped:mcp-<version>/<method> onto mcp.outbound with the tool', async () => {
    const seen: unknown[] = []
    g = await startAcs({
      hooks: [
        {
          name: 'mcp',
          event: 'mcp.outbound',
          handler: {
            type: 'fn',
            fn: (c: HookCall) => {
              seen.push(c.event.payload)
              return { decision: 'deny', reason: 'no mail' }
            },
          },
        },
      ],
    })
    const sessionId = await g.session()
    const mcp = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'send_email', arguments: { to: 'x' } },
    }
    for (const method of ['protocols/MCP/tools/call', 'wrapped:mcp-2025-06-18/tools/call']) {
      const { body } = await g.post(acsRequest(method, mcp, { sessionId, key: KEY }))
      expect(body.result.decision).toBe('deny')
      expect(body.result.reasoning).toBe('no mail')
    }
    expect(seen[0]).toMatchObject({
      mcp: { method: 'tools/call', direction: 'outbound' },
      tool: { name: 'send_email' },
    })
  })

  it('records agbom/snapshot and agbom/changed as custom.acs.agbom.* events', async () => {
    const seen: string[] = []
    g = await startAcs({ hooks: recorder(seen, ['custom.acs.agbom.snapshot', 'custom.acs.agbom.changed']) })
    const sessionId = await g.session()
    await g.post(acsRequest('agbom/snapshot', { components: [] }, { sessionId, key: KEY }))
    const { body } = await g.post(acsRequest('agbom/changed', { added: [] }, { sessionId, key: KEY }))
    expect(body.result.chain_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(seen).toEqual(['custom.acs.agbom.snapshot', 'custom.acs.agbom.changed'])
  })
})

describe('§6 dispositions', () => {
  it('§6.3 modify: changed tool arguments become disjoint redactions and parameter_overrides', async () => {
    g = await startAcs({
      hooks: [
        {
          name: 'scrub',
          event: 'tool.pre',
          policy: { id: 'pii', version: '2' },
          handler: {
            type: 'fn',
            fn: () => ({ decision: 'modify', updatedInput: { to: 'hr@example.com', body: '***' } }),
          },
        },
      ],
    })
    const sessionId = await g.session()
    const payload = {
      tool: { id: 'send_email' },
      arguments: { to: { value: 'hr@example.com' }, body: { value: 'salary 300000' }, cc: 'boss' },
    }
    const { body } = await g.post(acsRequest('steps/toolCallRequest', payload, { sessionId, key: KEY }))
    expect(body.result.decision).toBe('modify')
    expect(body.result.modifications).toEqual({
      redactions: [{ path: '/arguments/cc' }],
      parameter_overrides: { '/arguments/body/value': '***' },
    })
    expect(body.result.reasoning).toMatch(/scrub/)
    expect(body.result.policy_references).toEqual([
      { policy_id: 'pii', policy_version: '2', policy_name: 'scrub', rule_id: 'scrub' },
    ])
    expect(body.result.metadata.evaluator).toBe('deterministic')
  })

  it('§6.3 modify of a message answers modified_content when the content was structured', async () => {
    g = await startAcs({
      hooks: [
        {
          name: 'r',
          event: 'agent.response',
          handler: {
            type: 'fn',
            fn: (c: HookCall) => ({
              decision: 'modify',
              payload: { ...c.event.payload, message: { role: 'agent', text: 'redacted' } },
            }),
          },
        },
      ],
    })
    const sessionId = await g.session()
    const { body } = await g.post(
      acsRequest('steps/agentResponse', { message: [{ text: 'secret' }] }, { sessionId, key: KEY }),
    )
    expect(body.result.modifications).toEqual({ modified_content: 'redacted' })
  })

  const asker: HookDefinition = {
    name: 'costly',
    event: 'tool.pre',
    handler: { type: 'fn', fn: () => ({ decision: 'ask', reason: 'sms costs money' }) },
  }

  it('§9.2 ask with no approver is substituted by deny with reason_codes approver_unavailable', async () => {
    g = await startAcs({ hooks: [asker] })
    const sessionId = await g.session()
    const { body } = await g.post(
      acsRequest('steps/toolCallRequest', PAYLOADS.toolCallRequest as never, { sessionId, key: KEY }),
    )
    expect(body.result.decision).toBe('deny')
    expect(body.result.reason_codes[0]).toBe('approver_unavailable')
    expect(body.result.reasoning).toMatch(/approval capability missing/)
  })

  it('§9 ask goes to the configured approver and comes back as its verdict', async () => {
    g = await startAcs({ hooks: [asker], approver: () => ({ outcome: 'approve', by: 'ops@example.com' }) })
    const sessionId = await g.session()
    const { body } = await g.post(
      acsRequest('steps/toolCallRequest', PAYLOADS.toolCallRequest as never, { sessionId, key: KEY }),
    )
    expect(body.result.decision).toBe('allow')
    expect(body.result.policy_data.warden.approval).toMatchObject({
      outcome: 'approved',
      by: 'ops@example.com',
    })
  })

  it('§6 defer from a hook that answers "not yet", timeout_decision deny, bounded per session', async () => {
    g = await startAcs({
      settings: { maxDeferralsPerSession: 1 },
      hooks: [
        {
          name: 'wait',
          event: 'tool.pre',
          handler: {
            type: 'fn',
            fn: () => ({
              decision: 'deny',
              reason: 'waiting for the ticket',
              reasonCode: ['defer:pending_dependency'],
            }),
          },
        },
      ],
    })
    const sessionId = await g.session()
    const first = await g.post(
      acsRequest('steps/toolCallRequest', PAYLOADS.toolCallRequest as never, { sessionId, key: KEY }),
    )
    expect(first.body.result.decision).toBe('defer')
    expect(first.body.result.defer_details).toMatchObject({
      reason: 'pending_dependency',
      timeout_decision: 'deny',
      resolution_method: 'retry',
    })
    expect(first.body.result.reasoning).toBe('waiting for the ticket')
    const second = await g.post(
      acsRequest('steps/toolCallRequest', PAYLOADS.toolCallRequest as never, { sessionId, key: KEY }),
    )
    expect(second.body.result.decision).toBe('deny')
    expect(second.body.result.reason_codes).toContain('defer_limit')
  })

  it('hooks.md postCompact and sessionStart: audit-only hooks are not denied; sessionStart is', async () => {
    const no = { type: 'fn' as const, fn: () => ({ decision: 'deny', reason: 'no' }) }
    g = await startAcs({
      hooks: [
        { name: 'a', event: 'compact.post', handler: no },
        { name: 'b', event: 'session.start', handler: no },
      ],
    })
    const sessionId = await g.session()
    const post = await g.post(acsRequest('steps/postCompact', { summary: 's' }, { sessionId, key: KEY }))
    expect(post.body.result.decision).toBe('allow')
    expect(post.body.result.reason_codes).toContain('deny_not_eligible')
    const start = await g.post(acsRequest('steps/sessionStart', {}, { sessionId, key: KEY }))
    expect(start.body.result.decision).toBe('deny')
    expect(start.body.result.reasoning).toBe('no')
  })
})
