// The ACS v0.1 conformance cases: each a MUST (or SHOULD) of the spec, named by section,
// checked against any Guardian's HTTP endpoint. Cases that need the shared HMAC key skip
// (rather than fail) without one.

import { randomUUID } from 'node:crypto'
import type { JsonObject } from '../../src/core/index.js'
import { acsRequest, type ClientKey, clientHello, responseSigned } from '../../src/protocols/acs/index.js'
import { CRYPTO_CASES } from './acs-crypto-cases.js'
import { PROFILE_CASES } from './acs-profile-cases.js'

/** What a case has to work with. */
export interface CaseContext {
  // biome-ignore lint/suspicious/noExplicitAny: cases read arbitrary fields of any Guardian's answer
  post(body: unknown): Promise<any>
  key: ClientKey | undefined
}

/** One case: a section, what it checks, and the check (throws to fail, resolves 'skip' to skip). */
export interface ConformanceCase {
  section: string
  title: string
  run(ctx: CaseContext): Promise<unknown>
}

function expect(condition: unknown, message: string): void {
  if (!condition) throw new Error(message)
}

const TOOL: JsonObject = { tool: { id: 'get_weather' }, arguments: { city: { value: 'Barcelona' } } }

/** A handshake/hello for a new session, signed when the case has the key. */
function helloFor(ctx: CaseContext, fields: JsonObject = {}, sessionId = randomUUID()): JsonObject {
  return clientHello(sessionId, fields, ctx.key ? { key: ctx.key } : {})
}

async function session(ctx: CaseContext): Promise<string> {
  const sessionId = randomUUID()
  const hello = await ctx.post(helloFor(ctx, {}, sessionId))
  expect(hello?.result, `handshake/hello failed: ${JSON.stringify(hello).slice(0, 200)}`)
  return sessionId
}

function hook(
  ctx: CaseContext,
  sessionId: string,
  method = 'steps/toolCallRequest',
  payload: JsonObject = TOOL,
  params: JsonObject = {},
): JsonObject {
  return acsRequest(method, payload, { sessionId, ...(ctx.key ? { key: ctx.key } : {}), params })
}

function errorCode(answer: { error?: { code?: number } } | undefined): number | undefined {
  return answer?.error?.code
}

export const CASES: ConformanceCase[] = [
  {
    section: '§4',
    title: 'handshake/hello answers a ServerHello with negotiated_version of the same major',
    async run(ctx) {
      const hello = await ctx.post(helloFor(ctx))
      expect(
        typeof hello?.result?.negotiated_version === 'string' &&
          hello.result.negotiated_version.startsWith('0.'),
        'no negotiated_version 0.y.z',
      )
      expect(typeof hello.result.skew_window_ms === 'number', 'no skew_window_ms')
      expect(['deny', 'proceed'].includes(hello.result.on_decision_failure), 'no on_decision_failure')
    },
  },
  {
    section: '§4 / §17.1',
    title: 'an unsupported major version is refused with -32001 UNSUPPORTED_VERSION',
    async run(ctx) {
      const answer = await ctx.post(helloFor(ctx, { acs_versions_supported: ['9.0.0'] }))
      expect(
        errorCode(answer) === -32001,
        `got ${JSON.stringify(answer?.error ?? answer?.result).slice(0, 120)}`,
      )
    },
  },
  {
    section: '§4',
    title: 'unknown ClientHello fields are ignored',
    async run(ctx) {
      const answer = await ctx.post(helloFor(ctx, { x_future_field: { a: 1 } }))
      expect(answer?.result, 'the handshake failed on an unknown field')
    },
  },
  {
    section: '§6',
    title: 'steps/toolCallRequest answers a decision of the five dispositions',
    async run(ctx) {
      const answer = await ctx.post(hook(ctx, await session(ctx)))
      expect(
        ['allow', 'deny', 'modify', 'ask', 'defer'].includes(answer?.result?.decision),
        `got ${JSON.stringify(answer).slice(0, 160)}`,
      )
      if (answer.result.decision !== 'allow')
        expect(typeof answer.result.reasoning === 'string', 'a non-allow without reasoning')
    },
  },
  {
    section: '§8.6',
    title: 'a content-bearing step publishes chain_hash (64 hex)',
    async run(ctx) {
      const answer = await ctx.post(hook(ctx, await session(ctx)))
      expect(/^[0-9a-f]{64}$/.test(String(answer?.result?.chain_hash)), 'no chain_hash in the result')
    },
  },
  {
    section: '§10',
    title: 'the response is signed with HMAC-SHA256 over the JCS envelope under the session key',
    async run(ctx) {
      if (!ctx.key) return 'skip'
      const sessionId = await session(ctx)
      const answer = await ctx.post(hook(ctx, sessionId))
      expect(responseSigned(answer, ctx.key, sessionId), 'the response signature does not verify')
    },
  },
  {
    section: '§10 / §17.1',
    title: 'an altered signed request is refused with -32004 SIGNATURE_INVALID',
    async run(ctx) {
      if (!ctx.key) return 'skip'
      const request = hook(ctx, await session(ctx))
      // A new payload object: TOOL itself is shared by every case and every run.
      ;(request.params as JsonObject).payload = { ...TOOL, tool: { id: 'delete_all' } }
      expect(errorCode(await ctx.post(request)) === -32004, 'an altered request was not refused with -32004')
    },
  },
  {
    section: '§10.3 / §17.1',
    title: 'a repeated request_id is refused with -32005 REPLAY_DETECTED',
    async run(ctx) {
      const request = hook(ctx, await session(ctx))
      await ctx.post(request)
      expect(errorCode(await ctx.post(request)) === -32005, 'the replay was not refused with -32005')
    },
  },
  {
    section: '§10.3 / §17.1',
    title: 'a timestamp outside the skew window is refused with -32006 and data.skew_window_ms',
    async run(ctx) {
      const old = new Date(Date.now() - 24 * 3_600_000).toISOString()
      const answer = await ctx.post(
        hook(ctx, await session(ctx), 'steps/toolCallRequest', TOOL, { timestamp: old }),
      )
      expect(
        errorCode(answer) === -32006,
        `got ${JSON.stringify(answer?.error ?? answer?.result).slice(0, 120)}`,
      )
      expect(typeof answer.error.data?.skew_window_ms === 'number', 'no data.skew_window_ms')
    },
  },
  {
    section: '§13',
    title: 'system/ping always allows, unsigned, with status ok and the echo',
    async run(ctx) {
      const answer = await ctx.post({
        jsonrpc: '2.0',
        id: randomUUID(),
        method: 'system/ping',
        params: { payload: { echo: 'e' } },
      })
      expect(answer?.result?.decision === 'allow', 'ping did not allow')
      expect(
        answer.result.payload?.status === 'ok' && answer.result.payload?.echo === 'e',
        'no status ok / echo',
      )
    },
  },
  {
    section: '§3',
    title: 'a batch is answered with an array of correlated responses',
    async run(ctx) {
      const sessionId = await session(ctx)
      const answer = await ctx.post([hook(ctx, sessionId), hook(ctx, sessionId)])
      if (errorCode(answer) === -32600) return
      expect(Array.isArray(answer) && answer.length === 2, 'not an array of two responses')
    },
  },
  {
    section: '§17',
    title: 'malformed JSON is answered -32700 and an unknown method -32601',
    async run(ctx) {
      expect(errorCode(await ctx.post('{oops')) === -32700, 'bad JSON was not -32700')
      expect(
        errorCode(await ctx.post(hook(ctx, await session(ctx), 'steps/noSuchHook', {}))) === -32601,
        'unknown method was not -32601',
      )
    },
  },
  ...['sessionStart', 'userMessage', 'agentResponse', 'toolCallResult', 'subagentStart', 'sessionEnd'].map(
    (step): ConformanceCase => ({
      section: 'Conformance ACS-Core',
      title: `minimum hook steps/${step} is answered with a decision`,
      async run(ctx) {
        const payload: JsonObject =
          step.endsWith('Message') || step === 'agentResponse'
            ? { message: 'hello' }
            : step === 'toolCallResult'
              ? { tool: { id: 't' }, execution_id: 'e', outputs: [] }
              : {}
        const answer = await ctx.post(hook(ctx, await session(ctx), `steps/${step}`, payload))
        expect(typeof answer?.result?.decision === 'string', `got ${JSON.stringify(answer).slice(0, 160)}`)
      },
    }),
  ),
  {
    section: 'extend_mcp.md',
    title: 'protocols/MCP/tools/call is answered with a decision',
    async run(ctx) {
      const mcp: JsonObject = {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_weather', arguments: { city: 'Barcelona' } },
      }
      const answer = await ctx.post(hook(ctx, await session(ctx), 'protocols/MCP/tools/call', mcp))
      expect(typeof answer?.result?.decision === 'string', `got ${JSON.stringify(answer).slice(0, 160)}`)
    },
  },
  ...PROFILE_CASES,
  ...CRYPTO_CASES,
]
