// Conformance cases beyond ACS-Core: the ServerHello's Trace and approver fields
// (handshake.json), Intent (§8.4: a request outside `Intent.parsed` under `strict`, and
// immutability once established) and the approver model (§6, §9: an ASK names its
// approver). Intent is optional in v0.1, so a Guardian that shows no Intent enforcement
// skips the Intent cases rather than failing them.

import { randomUUID } from 'node:crypto'
import type { JsonObject } from '../../src/core/index.js'
import { acsRequest, type ClientKey, clientHello } from '../../src/protocols/acs/index.js'

/** What a case has to work with (as in acs-cases.ts). */
interface CaseContext {
  // biome-ignore lint/suspicious/noExplicitAny: cases read arbitrary fields of any Guardian's answer
  post(body: unknown): Promise<any>
  key: ClientKey | undefined
}

interface ConformanceCase {
  section: string
  title: string
  run(ctx: CaseContext): Promise<unknown>
}

function expect(condition: unknown, message: string): void {
  if (!condition) throw new Error(message)
}

const APPROVER_TYPES = ['human', 'agent', 'service']

function signed(ctx: CaseContext): { key?: ClientKey } {
  return ctx.key ? { key: ctx.key } : {}
}

/** A new session, handshaken, with `profiles`; its ServerHello. */
async function hello(
  ctx: CaseContext,
  profiles = ['acs-core'],
): Promise<{ sessionId: string; hello: JsonObject }> {
  const sessionId = randomUUID()
  const answer = await ctx.post(clientHello(sessionId, { profiles_supported: profiles }, signed(ctx)))
  expect(answer?.result, `handshake/hello failed: ${JSON.stringify(answer).slice(0, 200)}`)
  return { sessionId, hello: answer.result }
}

function intent(parsed: string[], scopeMode?: string): JsonObject {
  return {
    raw: 'read the conformance fixtures',
    parsed,
    parser_provenance: { origin: 'user_input', source_id: 'conformance' },
    ...(scopeMode ? { scope_mode: scopeMode } : {}),
  }
}

/** A session whose sessionStart established `parsed`; its id. */
async function withIntent(ctx: CaseContext, parsed: string[], scopeMode?: string): Promise<string> {
  const { sessionId } = await hello(ctx)
  const start = await ctx.post(
    acsRequest('steps/sessionStart', { intent: intent(parsed, scopeMode) }, { sessionId, ...signed(ctx) }),
  )
  expect(start?.result, `sessionStart with an Intent failed: ${JSON.stringify(start).slice(0, 200)}`)
  return sessionId
}

function toolCall(ctx: CaseContext, sessionId: string, capability: string): JsonObject {
  const payload = { tool: { name: 'conformance_tool' }, capability, arguments: {} }
  return acsRequest('steps/toolCallRequest', payload, { sessionId, ...signed(ctx) })
}

export const PROFILE_CASES: ConformanceCase[] = [
  {
    section: '§4 / ACS-Trace',
    title:
      'trace_emission is {otel_enabled, ocsf_enabled} booleans, one of them on when acs-trace is accepted',
    async run(ctx) {
      const { hello: server } = await hello(ctx, ['acs-core', 'acs-trace'])
      const emission = server.trace_emission as JsonObject | undefined
      const accepted =
        Array.isArray(server.profiles_accepted) && server.profiles_accepted.includes('acs-trace')
      if (emission === undefined) {
        expect(!accepted, 'acs-trace accepted without trace_emission')
        return 'skip (no trace_emission)'
      }
      expect(
        typeof emission.otel_enabled === 'boolean' && typeof emission.ocsf_enabled === 'boolean',
        `trace_emission is ${JSON.stringify(emission).slice(0, 120)}`,
      )
      if (accepted)
        expect(emission.otel_enabled || emission.ocsf_enabled, 'acs-trace accepted, nothing emitted')
    },
  },
  {
    section: '§4 / §9',
    title: 'approver_types_supported names only human, agent or service',
    async run(ctx) {
      const { hello: server } = await hello(ctx)
      const types = server.approver_types_supported
      if (types === undefined) return 'skip (no approver_types_supported)'
      expect(
        Array.isArray(types) && types.every((t) => APPROVER_TYPES.includes(String(t))),
        `approver_types_supported is ${JSON.stringify(types).slice(0, 120)}`,
      )
    },
  },
  {
    section: '§8.4',
    title: 'a request outside Intent.parsed under scope_mode strict is not allowed',
    async run(ctx) {
      const sessionId = await withIntent(ctx, ['conformance.read'], 'strict')
      const inside = await ctx.post(toolCall(ctx, sessionId, 'conformance.read'))
      expect(inside?.result?.decision, `got ${JSON.stringify(inside).slice(0, 160)}`)
      const outside = await ctx.post(toolCall(ctx, sessionId, 'conformance.delete'))
      if (outside?.result?.decision === 'allow') return 'skip (no Intent enforcement)'
      expect(
        ['deny', 'ask', 'defer'].includes(outside?.result?.decision),
        `got ${JSON.stringify(outside).slice(0, 160)}`,
      )
      expect(typeof outside.result.reasoning === 'string', 'a refusal without reasoning')
    },
  },
  {
    section: '§8.4',
    title: 'Intent.parsed is immutable: a wider Intent at a later agentTrigger does not take effect',
    async run(ctx) {
      const sessionId = await withIntent(ctx, ['conformance.read'], 'strict')
      const probe = await ctx.post(toolCall(ctx, sessionId, 'conformance.delete'))
      if (probe?.result?.decision === 'allow') return 'skip (no Intent enforcement)'
      const trigger = {
        trigger_type: 'external_event',
        intent: intent(['conformance.read', 'conformance.delete']),
      }
      await ctx.post(acsRequest('steps/agentTrigger', trigger, { sessionId, ...signed(ctx) }))
      const after = await ctx.post(toolCall(ctx, sessionId, 'conformance.delete'))
      expect(
        after?.result?.decision !== 'allow',
        'after an agentTrigger carrying a wider Intent, the request outside the established Intent was allowed',
      )
    },
  },
  {
    section: '§6 / §9',
    title: 'an ASK carries reasoning and ask_details.approver {type, id} of an announced type',
    async run(ctx) {
      const { hello: server } = await hello(ctx)
      const sessionId = await withIntent(ctx, ['conformance.read'])
      const answer = await ctx.post(toolCall(ctx, sessionId, 'conformance.network'))
      if (answer?.result?.decision !== 'ask') return 'skip (answered without ASK)'
      const approver = answer.result.ask_details?.approver
      expect(typeof answer.result.reasoning === 'string', 'an ASK without reasoning')
      expect(
        approver && typeof approver.id === 'string' && APPROVER_TYPES.includes(approver.type),
        `ask_details.approver is ${JSON.stringify(approver).slice(0, 120)}`,
      )
      const announced = server.approver_types_supported
      if (Array.isArray(announced))
        expect(announced.includes(approver.type), `approver type ${approver.type} was not announced`)
    },
  },
]
