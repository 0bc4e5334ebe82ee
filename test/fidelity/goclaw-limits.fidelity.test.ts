// GoClaw's per-hook and per-tenant limits under Warden: `max_invocations_per_turn`
// (Warden: `maxInvocationsPerTurn`) stops a hook's runs after N in one turn (the turnId,
// else the session) with its onError decision naming the hook and the cap, without
// starting the process; and a tenant's `budget_total` is its monthly LLM judge token
// budget, denying the judge's calls once used up. Command hooks are real child processes,
// the judge a real loopback HTTP server speaking the Chat Completions API.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type HookDefinition, TurnCap } from '../../src/core/index.js'
import { commandHandler, createPromptHandler, memoryTokenLedger } from '../../src/handlers/index.js'
import { createEngine } from '../../src/index.js'
import { createOutboundClient } from '../../src/net/index.js'
import { buildEngine, parseConfig, parseGoclawHooks } from '../../src/sources/index.js'
import { decideAnswer, type FakeLlm, reply, startFakeLlm } from '../handlers/prompt-fake-llm.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-goclaw-limits-'))
let llm: FakeLlm
const client = createOutboundClient({ allow: ['127.0.0.1'] })
beforeAll(async () => {
  llm = await startFakeLlm()
})
afterAll(async () => {
  await client.close()
  await llm.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A command hook that appends a line to `file` per run, then allows. */
function counting(file: string, extra: Partial<HookDefinition> = {}): HookDefinition {
  writeFileSync(file, '')
  return {
    name: 'counted',
    event: 'tool.pre',
    handler: { type: 'command', command: `echo run >> '${file}'`, shell: true },
    ...extra,
  }
}
const runsIn = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).length

const exec = (context: Record<string, unknown>) => ({
  event: 'tool.pre',
  payload: { tool: { name: 'exec', input: { cmd: 'ls' } } },
  context,
})

describe('maxInvocationsPerTurn', () => {
  const rows: {
    name: string
    extra: Partial<HookDefinition>
    contexts: Record<string, unknown>[]
    decisions: string[]
    runs: number
  }[] = [
    {
      name: 'the third run in one turn is denied',
      extra: { maxInvocationsPerTurn: 2 },
      contexts: [{ turnId: 't1' }, { turnId: 't1' }, { turnId: 't1' }],
      decisions: ['allow', 'allow', 'deny'],
      runs: 2,
    },
    {
      name: 'a new turn starts a new count',
      extra: { maxInvocationsPerTurn: 1 },
      contexts: [{ turnId: 't1' }, { turnId: 't2' }, { turnId: 't1' }],
      decisions: ['allow', 'allow', 'deny'],
      runs: 2,
    },
    {
      name: 'onError allow lets the capped run through without running the hook',
      extra: { maxInvocationsPerTurn: 1, onError: 'allow' },
      contexts: [{ turnId: 't1' }, { turnId: 't1' }],
      decisions: ['allow', 'allow'],
      runs: 1,
    },
    {
      name: 'without a turnId the session is the turn',
      extra: { maxInvocationsPerTurn: 1 },
      contexts: [{ session: { id: 's1' } }, { session: { id: 's1' } }, { session: { id: 's2' } }],
      decisions: ['allow', 'deny', 'allow'],
      runs: 2,
    },
    {
      name: 'tenants count apart',
      extra: { maxInvocationsPerTurn: 1 },
      contexts: [
        { turnId: 't1', tenantId: 'acme' },
        { turnId: 't1', tenantId: 'globex' },
      ],
      decisions: ['allow', 'allow'],
      runs: 2,
    },
    {
      name: 'an event naming no turn and no session is not capped',
      extra: { maxInvocationsPerTurn: 1 },
      contexts: [{}, {}, {}],
      decisions: ['allow', 'allow', 'allow'],
      runs: 3,
    },
  ]

  it.each(rows)('$name', async ({ name, extra, contexts, decisions, runs }) => {
    const file = join(dir, `${name.replace(/\W+/g, '-')}.log`)
    const engine = createEngine({ hooks: [counting(file, extra)], handlers: [commandHandler] })
    try {
      const got = []
      for (const context of contexts) {
        const decision = await engine.dispatch(exec(context))
        got.push(decision.decision)
        if (decision.decision === 'deny') {
          expect(decision.reason).toContain('hook "counted" already ran')
          expect(decision.reason).toContain(`maxInvocationsPerTurn: ${extra.maxInvocationsPerTurn}`)
          expect(decision.trace[0]?.error?.kind).toBe('turn-cap')
        }
      }
      expect(got).toEqual(decisions)
      expect(runsIn(file)).toBe(runs)
    } finally {
      await engine.close()
    }
  })

  it("reads GoClaw's max_invocations_per_turn, on the hook or in its config", async () => {
    const file = join(dir, 'goclaw.log')
    writeFileSync(file, '')
    const report = parseGoclawHooks(
      JSON.stringify([
        {
          name: 'top',
          event: 'pre_tool_use',
          handler_type: 'command',
          config: { command: `echo top >> '${file}'` },
          max_invocations_per_turn: 1,
        },
        {
          name: 'nested',
          event: 'pre_tool_use',
          handler_type: 'command',
          config: { command: `echo nested >> '${file}'`, max_invocations_per_turn: 2 },
        },
      ]),
      'goclaw.json',
    )
    expect(report.problems).toEqual([])
    expect(report.warnings).toEqual([])
    expect(report.hooks.map((h) => h.maxInvocationsPerTurn)).toEqual([1, 2])
    const engine = createEngine({
      hooks: report.hooks.map((h) => ({ ...h, onError: 'allow' as const })),
      handlers: [commandHandler],
    })
    try {
      for (let i = 0; i < 4; i++) await engine.dispatch(exec({ turnId: 'turn-9' }))
      const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean)
      expect(lines.filter((l) => l === 'top')).toHaveLength(1)
      expect(lines.filter((l) => l === 'nested')).toHaveLength(2)
    } finally {
      await engine.close()
    }
  })

  it('refuses a bad cap at load', () => {
    const bad = parseGoclawHooks(
      JSON.stringify([
        {
          name: 'x',
          event: 'pre_tool_use',
          handler_type: 'command',
          config: { command: 'true' },
          max_invocations_per_turn: -1,
        },
      ]),
      'goclaw.json',
    )
    expect(bad.problems[0]?.message).toContain('max_invocations_per_turn must be a whole number')
    expect(() =>
      createEngine({
        hooks: [counting(join(dir, 'x.log'), { maxInvocationsPerTurn: 0 })],
        handlers: [commandHandler],
      }),
    ).toThrow(/maxInvocationsPerTurn/)
  })

  it('keeps memory bounded: idle turns are forgotten, the least recently used goes first', () => {
    let now = 0
    const cap = new TurnCap(1, { maxTurns: 3, ttlMs: 1000, now: () => now })
    for (const turn of ['a', 'b', 'c']) expect(cap.take(turn)).toBeUndefined()
    expect(cap.take('a')).toBe(1)
    expect(cap.take('d')).toBeUndefined()
    expect(cap.size).toBe(3)
    expect(cap.take('b')).toBeUndefined()
    now = 5000
    expect(cap.take('e')).toBeUndefined()
    expect(cap.size).toBe(1)
    expect(cap.take('a')).toBeUndefined()
  })
})

describe("a tenant's budget_total", () => {
  const judgeHook = {
    name: 'judge',
    event: 'pre_tool_use',
    handler_type: 'prompt',
    matcher: '^exec$',
    config: { prompt: 'Deny destructive commands.' },
  }

  function engineFor(budgets: unknown[], judgeExtra = '') {
    const report = parseGoclawHooks(JSON.stringify({ hooks: [judgeHook], budgets }), 'goclaw.json')
    expect(report.problems).toEqual([])
    const config = parseConfig(
      `judge: { baseUrl: "${llm.baseUrl}", model: judge-model, monthlyTokenBudget: 1000000, cacheTtlMs: 0${judgeExtra} }\nnetwork: { allow: ["127.0.0.1"] }\n`,
      dir,
    )
    return buildEngine(config, {
      extraHooks: report.hooks,
      tokenLedger: memoryTokenLedger(),
      ...(report.tokenBudgets ? { tenantTokenBudgets: report.tokenBudgets } : {}),
      env: {},
    })
  }

  const rows: { name: string; budgets: unknown[]; judge?: string; tenant: string; decisions: string[] }[] = [
    {
      name: 'a tenant over its budget_total is denied the judge',
      budgets: [{ tenant_id: 'acme', budget_total: 100 }],
      tenant: 'acme',
      decisions: ['allow', 'allow', 'deny'],
    },
    {
      name: 'another tenant keeps judge.monthlyTokenBudget',
      budgets: [{ tenant_id: 'acme', budget_total: 100 }],
      tenant: 'globex',
      decisions: ['allow', 'allow', 'allow'],
    },
    {
      name: 'budget_total 0 is no budget',
      budgets: [{ tenant_id: 'acme', budget_total: 0 }],
      tenant: 'acme',
      decisions: ['allow', 'allow', 'allow'],
    },
    {
      name: 'judge.tenantBudgets in warden.yaml wins over the file',
      budgets: [{ tenant_id: 'acme', budget_total: 1000 }],
      judge: ', tenantBudgets: { acme: 100 }',
      tenant: 'acme',
      decisions: ['allow', 'allow', 'deny'],
    },
  ]

  it.each(rows)('$name', async ({ budgets, judge, tenant, decisions }) => {
    llm.script = (_request, res) =>
      reply(res, decideAnswer({ decision: 'allow', reason: 'fine', injection_detected: false }, 60))
    const engine = engineFor(budgets, judge)
    try {
      const got = []
      for (let i = 0; i < decisions.length; i++) {
        const decision = await engine.dispatch(exec({ tenantId: tenant, turnId: `t${i}` }))
        got.push(decision.decision)
        if (decision.decision === 'deny') {
          expect(decision.reason).toContain(`tenant "${tenant}" has used its monthly LLM judge budget`)
          expect(decision.reason).toContain('of 100 tokens')
        }
      }
      expect(got).toEqual(decisions)
    } finally {
      await engine.close()
    }
  })

  it('refuses a budgets row without a tenant or with a bad total', () => {
    for (const budgets of [[{ budget_total: 5 }], [{ tenant_id: 'acme', budget_total: -1 }], { acme: 5 }]) {
      const report = parseGoclawHooks(JSON.stringify({ hooks: [judgeHook], budgets }), 'goclaw.json')
      expect(report.problems[0]?.message).toMatch(/budgets/)
    }
  })

  it('the prompt handler takes per-tenant budgets directly', async () => {
    llm.script = (_request, res) =>
      reply(res, decideAnswer({ decision: 'allow', reason: 'fine', injection_detected: false }, 60))
    const engine = createEngine({
      hooks: [{ name: 'j', event: 'tool.pre', matcher: '^exec$', handler: { type: 'prompt', prompt: 'p' } }],
      handlers: [
        createPromptHandler({
          client,
          judge: { baseUrl: llm.baseUrl, model: 'm' },
          cacheTtlMs: 0,
          tenantTokenBudgets: { acme: 50 },
        }),
      ],
    })
    try {
      expect((await engine.dispatch(exec({ tenantId: 'acme' }))).decision).toBe('allow')
      const over = await engine.dispatch(exec({ tenantId: 'acme' }))
      expect(over.decision).toBe('deny')
      expect(over.reason).toContain('judge.tenantBudgets.acme')
    } finally {
      await engine.close()
    }
  })
})
