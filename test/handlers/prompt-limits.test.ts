// The LLM judge's bounds against the local Chat Completions server: the decision cache
// (hook version, tenant and input hash, 60 s TTL), the per-turn call cap and the monthly token
// budget per tenant, each with a clear deny reason.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createPromptHandler, judgeCacheKey, type PromptHandlerOptions } from '../../src/handlers/index.js'
import { createEngine, type Engine, type HookDefinition } from '../../src/index.js'
import { createOutboundClient } from '../../src/net/index.js'
import { decideAnswer, type FakeLlm, reply, startFakeLlm, textAnswer } from './prompt-fake-llm.js'

let llm: FakeLlm
const client = createOutboundClient({ allow: ['127.0.0.1'] })

beforeAll(async () => {
  llm = await startFakeLlm()
  llm.script = (_r, res) =>
    reply(res, decideAnswer({ decision: 'allow', reason: 'fine', injection_detected: false }, 60))
})
afterAll(async () => {
  await client.close()
  await llm.close()
})
beforeEach(() => {
  llm.requests.length = 0
})

const hook = (version = 1): HookDefinition => ({
  name: 'judge',
  event: 'tool.pre',
  matcher: 'exec',
  version,
  handler: { type: 'prompt', prompt: 'Deny destructive commands.' },
})

function engineWith(options: Partial<PromptHandlerOptions> = {}, hooks: HookDefinition[] = [hook()]): Engine {
  return createEngine({
    hooks,
    handlers: [createPromptHandler({ client, judge: { baseUrl: llm.baseUrl, model: 'm' }, ...options })],
  })
}

const call = (cmd: string, context: Record<string, unknown> = {}) => ({
  event: 'tool.pre',
  payload: { tool: { name: 'exec', input: { cmd, flags: { a: 1, b: 2 } } } },
  context: { tenantId: 'acme', session: { id: 's' }, ...context },
})

describe('judge decision cache', () => {
  it('answers the same input from the cache for 60 s, then asks again', async () => {
    let time = Date.UTC(2026, 0, 10)
    const engine = engineWith({ now: () => time })
    await engine.dispatch(call('ls'))
    const again = await engine.dispatch(call('ls'))
    expect(llm.requests).toHaveLength(1)
    expect(again.decision).toBe('allow')
    expect(again.trace[0]?.logs).toEqual(['decision taken from the judge cache'])
    await engine.dispatch(call('ls -la'))
    expect(llm.requests).toHaveLength(2)
    time += 61_000
    await engine.dispatch(call('ls'))
    expect(llm.requests).toHaveLength(3)
    await engine.close()
  })

  it('keys by hook version and a hash of the input that ignores key order', async () => {
    const a = judgeCacheKey('judge', 1, 'tool.pre', 'exec', { cmd: 'ls', flags: { a: 1, b: 2 } })
    const b = judgeCacheKey('judge', 1, 'tool.pre', 'exec', { flags: { b: 2, a: 1 }, cmd: 'ls' })
    expect(a).toBe(b)
    expect(judgeCacheKey('judge', 2, 'tool.pre', 'exec', { cmd: 'ls', flags: { a: 1, b: 2 } })).not.toBe(a)
    expect(a).not.toContain('ls')
    const engine = engineWith()
    await engine.dispatch(call('ls'))
    engine.register(hook(2), { replace: true })
    await engine.dispatch(call('ls'))
    expect(llm.requests).toHaveLength(2)
    await engine.close()
  })

  it('never answers one tenant from another tenant’s cached verdict', async () => {
    const engine = engineWith()
    await engine.dispatch(call('ls'))
    const other = await engine.dispatch(call('ls', { tenantId: 'globex' }))
    expect(other.trace[0]?.logs ?? []).not.toContain('decision taken from the judge cache')
    expect(llm.requests).toHaveLength(2)
    expect((await engine.dispatch(call('ls', { tenantId: 'globex' }))).trace[0]?.logs).toEqual([
      'decision taken from the judge cache',
    ])
    expect(llm.requests).toHaveLength(2)
    await engine.close()
  })

  it('does not cache failures', async () => {
    const engine = engineWith()
    llm.script = (_r, res) => reply(res, { error: 'down' }, 500)
    expect((await engine.dispatch(call('cat x'))).decision).toBe('deny')
    llm.script = (_r, res) =>
      reply(res, decideAnswer({ decision: 'allow', reason: 'fine', injection_detected: false }, 60))
    expect((await engine.dispatch(call('cat x'))).decision).toBe('allow')
    expect(llm.requests).toHaveLength(2)
    await engine.close()
  })
})

describe('judge call cap per turn', () => {
  it('allows 5 judge calls per turn, then denies saying why; other turns are unaffected', async () => {
    const engine = engineWith()
    for (let i = 0; i < 5; i++)
      expect((await engine.dispatch(call(`cmd ${i}`, { turnId: 't1' }))).decision).toBe('allow')
    const capped = await engine.dispatch(call('cmd 6', { turnId: 't1' }))
    expect(capped.decision).toBe('deny')
    expect(capped.reason).toMatch(/already asked 5 times in turn "t1" \(judge\.maxCallsPerTurn\)/)
    expect(llm.requests).toHaveLength(5)
    // Cached answers cost nothing and are not capped.
    expect((await engine.dispatch(call('cmd 0', { turnId: 't1' }))).decision).toBe('allow')
    expect((await engine.dispatch(call('cmd 6', { turnId: 't2' }))).decision).toBe('allow')
    expect(llm.requests).toHaveLength(6)
    await engine.close()
  })

  it('takes its cap from the options', async () => {
    const engine = engineWith({ maxCallsPerTurn: 1 })
    await engine.dispatch(call('a', { turnId: 'x' }))
    expect((await engine.dispatch(call('b', { turnId: 'x' }))).reason).toMatch(/already asked 1 times/)
    await engine.close()
  })
})

describe('monthly token budget per tenant', () => {
  it('denies a tenant over its budget until the next month; other tenants are unaffected', async () => {
    let time = Date.UTC(2026, 2, 30)
    const engine = engineWith({ monthlyTokenBudget: 100, now: () => time })
    expect((await engine.dispatch(call('one'))).decision).toBe('allow')
    expect((await engine.dispatch(call('two'))).decision).toBe('allow')
    const over = await engine.dispatch(call('three'))
    expect(over.decision).toBe('deny')
    expect(over.reason).toBe(
      'tenant "acme" has used its monthly LLM judge budget (120 of 100 tokens in 2026-03); raise judge.monthlyTokenBudget or wait for next month',
    )
    expect(over.reasonCode).toEqual(['judge-budget'])
    expect(llm.requests).toHaveLength(2)
    expect((await engine.dispatch(call('three', { tenantId: 'globex' }))).decision).toBe('allow')
    time = Date.UTC(2026, 3, 1)
    expect((await engine.dispatch(call('four'))).decision).toBe('allow')
    expect(llm.requests).toHaveLength(4)
    await engine.close()
  })

  it('counts the tokens of unusable answers (free text, a malformed decide call) too', async () => {
    const added: number[] = []
    const engine = engineWith({ ledger: { used: () => 0, add: (_t, _m, n) => void added.push(n) } })
    llm.script = (_r, res) => reply(res, { ...textAnswer('Looks fine.'), usage: { total_tokens: 70 } })
    expect((await engine.dispatch(call('free text'))).reason).toMatch(/free text instead of calling decide/)
    llm.script = (_r, res) => reply(res, decideAnswer({ decision: 'perhaps' }, 45))
    expect((await engine.dispatch(call('malformed'))).reason).toMatch(/invalid arguments/)
    llm.script = (_r, res) =>
      reply(res, decideAnswer({ decision: 'allow', reason: 'fine', injection_detected: false }, 60))
    await engine.close()
    expect(added).toEqual([70, 45])
  })

  it('uses an injected ledger (e.g. one kept by the store)', async () => {
    const added: [string, string, number][] = []
    const engine = engineWith({
      monthlyTokenBudget: 1000,
      ledger: { used: async () => 999, add: async (t, m, n) => void added.push([t, m, n]) },
    })
    expect((await engine.dispatch(call('x'))).decision).toBe('allow')
    expect(added).toEqual([['acme', expect.stringMatching(/^\d{4}-\d{2}$/), 60]])
    await engine.close()
  })
})
