// IBAC over real `/acs` with signed requests (§8.4, §9, §9.1): the Intent a session
// establishes, a request outside `Intent.parsed` answered per `scope_mode`, the client-routed
// ASK naming its approver, the approver's signed answer carrying an `intent_extension`
// (`this_request` and `session`), the extension's own ContextEntry, and hooks reading
// `context.intent` in CEL and Starlark.

import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonObject } from '../../src/core/index.js'
import { scriptHandler } from '../../src/handlers/index.js'
import {
  acsRequest,
  createMemoryLedger,
  deriveSessionKey,
  signMessage,
  verifyChain,
} from '../../src/protocols/acs/index.js'
import { type AcsGuardian, KEY, startAcs } from './helper.js'

const APPROVER = { id: 'secops', material: Buffer.from('the approver key of secops', 'utf8') }
const ledger = createMemoryLedger()
let g: AcsGuardian

beforeAll(async () => {
  g = await startAcs({
    ledger,
    handlers: [scriptHandler],
    settings: {
      approvers: [
        {
          id: APPROVER.id,
          type: 'service',
          endpoint: 'https://approver.example/acs',
          material: APPROVER.material,
          grants: ['network.*', 'filesystem.write'],
        },
      ],
      intent: { defaultScopeMode: 'ask', strictExtensible: ['network.egress'] },
    },
    hooks: [
      {
        name: 'no-mail-when-told',
        event: 'tool.pre',
        if: "has(context.intent) && context.intent.raw.contains('never email')",
        matcher: '^email$',
        handler: { type: 'deny', reason: 'the user said never email' },
      },
      {
        name: 'starlark-ibac',
        event: 'tool.pre',
        matcher: '^shell$',
        handler: {
          type: 'script',
          file: 'ibac.md',
          source: `
def handle(event, payload):
    intent = context().get("intent")
    if intent == None or "process.execute" not in intent["parsed"]:
        return block("no process.execute in the intent")
    return allow()
`,
        },
      },
    ],
  })
})
afterAll(async () => {
  await g?.close()
})

function intent(parsed: string[], extra: JsonObject = {}): JsonObject {
  return { raw: 'read the logs', parsed, parser_provenance: { origin: 'user_input' }, ...extra }
}

async function start(parsed: string[], extra: JsonObject = {}): Promise<string> {
  const sessionId = await g.session()
  const { body } = await g.post(
    acsRequest('steps/sessionStart', { intent: intent(parsed, extra) }, { sessionId, key: KEY }),
  )
  expect(body.result?.decision, JSON.stringify(body)).toBe('allow')
  return sessionId
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response fields
async function call(sessionId: string, capability: string, params: JsonObject = {}): Promise<any> {
  const payload = { tool: { name: 'tool' }, capability, arguments: {} }
  return (await g.post(acsRequest('steps/toolCallRequest', payload, { sessionId, key: KEY, params }))).body
}

/** The approver's signed ACS answer to the ASK of `askedId`. */
function approval(sessionId: string, askedId: string, result: JsonObject): JsonObject {
  const answer: JsonObject = {
    jsonrpc: '2.0',
    id: randomUUID(),
    result: {
      type: 'final',
      acs_version: '0.1.0',
      request_id: askedId,
      timestamp: new Date().toISOString(),
      ...result,
    },
  }
  signMessage(answer, 'result', deriveSessionKey(APPROVER.material, sessionId), APPROVER.id)
  return answer
}

describe('Intent and scope_mode', () => {
  it('allows what Intent.parsed covers (exactly or by prefix.*) and answers the rest per scope_mode', async () => {
    const strict = await start(['filesystem.read', 'db.*'], { scope_mode: 'strict' })
    expect((await call(strict, 'filesystem.read')).result.decision).toBe('allow')
    expect((await call(strict, 'db.query')).result.decision).toBe('allow')
    const denied = (await call(strict, 'filesystem.delete')).result
    expect(denied.decision).toBe('deny')
    expect(denied.reason_codes).toEqual(['ibac_intent_mismatch', 'ibac_scope_mode_strict'])
    expect(denied.policy_data.ibac).toMatchObject({
      requested_capability: 'filesystem.delete',
      closest_match: 'filesystem.read',
    })

    const permissive = await start(['filesystem.read'], { scope_mode: 'permissive' })
    const marked = (await call(permissive, 'filesystem.delete')).result
    expect(marked.decision).toBe('allow')
    expect(marked.reason_codes).toContain('ibac_intent_mismatch')
  })

  it('asks the approver that may grant the capability, and denies §9.2-style when none may', async () => {
    const sessionId = await start(['filesystem.read'])
    const asked = (await call(sessionId, 'network.egress')).result
    expect(asked.decision).toBe('ask')
    expect(asked.ask_details.approver).toEqual({
      type: 'service',
      id: 'secops',
      endpoint: 'https://approver.example/acs',
    })
    expect(asked.ask_details.requested_capabilities).toEqual(['network.egress'])
    expect(asked.chain_hash).toMatch(/^[0-9a-f]{64}$/)
    const none = (await call(sessionId, 'filesystem.delete')).result
    expect(none.decision).toBe('deny')
    expect(none.reason_codes).toEqual(['approver_unavailable', 'ibac_intent_mismatch'])
  })

  it('a this_request grant lets one request through; a session grant widens the Intent, chained', async () => {
    const sessionId = await start(['filesystem.read'])
    const first = await call(sessionId, 'network.egress')
    const once = await call(sessionId, 'network.egress', {
      approval: approval(sessionId, first.result.request_id, {
        decision: 'allow',
        reasoning: 'one upload is fine',
        intent_extension: { capabilities: ['network.egress'], scope: 'this_request' },
      }),
    })
    expect(once.result?.decision, JSON.stringify(once)).toBe('allow')
    expect((await call(sessionId, 'network.egress')).result.decision).toBe('ask')

    const second = await call(sessionId, 'filesystem.write')
    const widened = await call(sessionId, 'filesystem.write', {
      approval: approval(sessionId, second.result.request_id, {
        decision: 'allow',
        intent_extension: {
          capabilities: ['filesystem.write'],
          scope: 'session',
          provenance: { origin: 'user_input', source_id: 'approver-console' },
        },
      }),
    })
    expect(widened.result?.decision, JSON.stringify(widened)).toBe('allow')
    expect((await call(sessionId, 'filesystem.write')).result.decision).toBe('allow')

    const entries = await ledger.entries({ tenant: '', session: sessionId })
    expect(verifyChain(entries).ok).toBe(true)
    const extensions = entries.filter((e) => e.step_type === 'intent_extension') as unknown as JsonObject[]
    expect(extensions).toHaveLength(2)
    expect(extensions[1]).toMatchObject({
      approver: { id: 'secops', type: 'service' },
      capabilities: ['filesystem.write'],
      scope: 'session',
      origin_step_id: second.result.request_id,
      provenance: { origin: 'user_input', source_id: 'approver-console' },
    })
    const established = entries.find((e) => e.step_type === 'steps/sessionStart') as unknown as JsonObject
    expect(established.intent).toMatchObject({ parsed: ['filesystem.read'], scope_mode: 'ask' })
  })

  it('strict sessions take extensions only for the capabilities the deployment allows in strict mode', async () => {
    const sessionId = await start(['filesystem.read'], { scope_mode: 'strict' })
    const asked = await call(sessionId, 'network.egress')
    expect(asked.result.decision).toBe('ask')
    const overreach = await call(sessionId, 'network.egress', {
      approval: approval(sessionId, asked.result.request_id, {
        decision: 'allow',
        intent_extension: { capabilities: ['network.egress', 'network.ingress'], scope: 'session' },
      }),
    })
    expect(overreach.result.decision).toBe('deny')
    expect(overreach.result.reason_codes).toEqual(['ibac_intent_mismatch', 'ibac_scope_mode_strict'])
  })

  it('an approver answering ASK or deny is refused (single hop), and an answer is used once', async () => {
    const sessionId = await start(['filesystem.read'])
    const asked = await call(sessionId, 'network.egress')
    const hop = await call(sessionId, 'network.egress', {
      approval: approval(sessionId, asked.result.request_id, { decision: 'ask', reasoning: 'ask my boss' }),
    })
    expect(hop.result.decision).toBe('deny')
    expect(hop.result.reason_codes).toEqual(['approver_returned_ask'])
    const again = await call(sessionId, 'network.egress')
    const no = approval(sessionId, again.result.request_id, { decision: 'deny', reasoning: 'not today' })
    const denied = await call(sessionId, 'network.egress', { approval: no })
    expect(denied.result.reason_codes).toEqual(['approver_denied'])
    expect(denied.result.reasoning).toContain('not today')
    const reused = await call(sessionId, 'network.egress', { approval: no })
    expect(reused.result.reason_codes).toEqual(['approval_unknown'])
  })

  it('hooks see context.intent in CEL if conditions and in Starlark', async () => {
    const quiet = await start(['*'], { raw: 'summarize, but never email anyone' })
    const payload = (name: string) => ({ tool: { name }, arguments: {} })
    const mail = await g.post(
      acsRequest('steps/toolCallRequest', payload('email'), { sessionId: quiet, key: KEY }),
    )
    expect(mail.body.result.decision).toBe('deny')
    expect(mail.body.result.reasoning).toBe('the user said never email')
    const shell = await g.post(
      acsRequest('steps/toolCallRequest', payload('shell'), { sessionId: quiet, key: KEY }),
    )
    expect(shell.body.result.reasoning).toContain('no process.execute in the intent')

    const runner = await start(['process.execute', 'shell'])
    const ok = await g.post(
      acsRequest('steps/toolCallRequest', payload('shell'), { sessionId: runner, key: KEY }),
    )
    expect(ok.body.result.decision, JSON.stringify(ok.body)).toBe('allow')
  })

  it('establishes at the first agentTrigger when sessionStart carries none, and refuses a malformed Intent', async () => {
    const sessionId = await g.session()
    const trigger = (i: JsonObject) =>
      acsRequest('steps/agentTrigger', { trigger_type: 'user_message', intent: i }, { sessionId, key: KEY })
    expect((await g.post(trigger(intent(['filesystem.read'])))).body.result.decision).toBe('allow')
    expect((await call(sessionId, 'filesystem.delete')).result.decision).toBe('deny')
    const tainted = await g.post(
      acsRequest(
        'steps/sessionStart',
        { intent: { parsed: ['x'], parser_provenance: { origin: 'tool_output' } } },
        { sessionId: await g.session(), key: KEY },
      ),
    )
    expect(tainted.body.error?.code).toBe(-32602)
    expect(tainted.body.error?.message).toContain('parser_provenance.origin must be "user_input"')
  })
})
