// Blocking rules per home system and loom's answer shapes, from each system's documented
// examples: a hook loaded in GoClaw's, loom's or AI Harness's format keeps its home's rule
// on its event (GoClaw post_tool_use and stop only observe; loom tool.post and model.pre
// only observe; Harness delegation.post_verify blocks), and loom's `additionalContext` and
// `output` are context, never a denial or a rewrite. Real shell commands, real Starlark.

import { describe, expect, it } from 'vitest'
import { createEngine, type Decision, type DispatchInput, type HookDefinition } from '../../src/core/index.js'
import { commandHandler, createScriptHandler, fnHandler } from '../../src/handlers/index.js'
import { parseGoclawHooks, parseHookFile } from '../../src/sources/index.js'

const handlers = [fnHandler, commandHandler, createScriptHandler()]
const tool = (event: string, name = 'Bash'): DispatchInput => ({
  event,
  payload: { tool: { name, input: { command: 'ls' }, ...(event === 'tool.post' ? { output: 'ok' } : {}) } },
  context: { session: { id: 's1' }, turnId: 't1' },
})
const stop: DispatchInput = { event: 'agent.stop', payload: {}, context: { session: { id: 's1' } } }
const model: DispatchInput = { event: 'model.pre', payload: { messages: [] }, context: {} }
const session: DispatchInput = { event: 'session.start', payload: {}, context: {}, wait: true }
const subagent = (wait: boolean): DispatchInput => ({
  event: 'subagent.stop',
  payload: { subagent: { name: 'reviewer' } },
  context: {},
  ...(wait ? { wait } : {}),
})

/** The caller's decision, and every decision recorded (background runs included). */
async function runRecorded(hooks: HookDefinition[], input: DispatchInput) {
  const recorded: Decision[] = []
  const engine = createEngine({
    handlers,
    hooks,
    recorder: { record: async ({ decision }) => void recorded.push(decision) },
  })
  try {
    return { decision: await engine.dispatch(input), recorded }
  } finally {
    await engine.close()
  }
}

async function run(hooks: HookDefinition[], input: DispatchInput) {
  return (await runRecorded(hooks, input)).decision
}

describe('GoClaw: a block counts where GoClaw blocks, and only there', () => {
  const goclaw = (event: string) =>
    parseGoclawHooks(
      JSON.stringify([
        { name: 'guard', event, handler_type: 'command', config: { command: 'echo "not now" >&2; exit 2' } },
      ]),
      'goclaw.json',
    ).hooks
  const rows: [string, DispatchInput, string][] = [
    ['pre_tool_use blocks', tool('tool.pre'), 'deny'],
    [
      'user_prompt_submit blocks',
      { event: 'user.message', payload: { message: { role: 'user', text: 'hi' } }, context: {} },
      'deny',
    ],
    ['post_tool_use only observes: the tool result is not withheld', tool('tool.post'), 'allow'],
    ['stop only observes: the agent is not kept going', stop, 'allow'],
  ]
  const names: Record<string, string> = {
    'tool.pre': 'pre_tool_use',
    'user.message': 'user_prompt_submit',
    'tool.post': 'post_tool_use',
    'agent.stop': 'stop',
  }
  for (const [label, input, expected] of rows) {
    it(label, async () => {
      const { decision, recorded } = await runRecorded(goclaw(names[input.event as string] as string), input)
      expect(decision.decision, decision.reason).toBe(expected)
      if (expected === 'allow') {
        // GoClaw runs these async: the run is recorded apart from the caller's decision.
        const run = recorded.flatMap((d) => d.trace).find((t) => t.hook === 'guard')
        expect(run).toMatchObject({ outcome: 'allow' })
        expect(run?.reason).toContain('it answered deny: not now')
      }
    })
  }

  it('the same block from a warden.yaml hook still counts on tool.post', async () => {
    const hook: HookDefinition = {
      name: 'guard',
      event: 'tool.post',
      handler: { type: 'command', command: 'echo no >&2; exit 2', shell: true },
    }
    expect((await run([hook], tool('tool.post'))).decision).toBe('deny')
  })
})

describe('loom: answers and blocking rules', () => {
  const loom = (event: string, fn: () => unknown): HookDefinition => ({
    name: 'loom-hook',
    event,
    handler: { type: 'fn', dialect: 'loom', fn },
  })
  const rows: [string, HookDefinition, DispatchInput, string, string[]][] = [
    [
      'additionalContext on model.pre is fresh context, not a deny',
      loom('model.pre', () => ({ additionalContext: 'today is Tuesday' })),
      model,
      'allow',
      ['today is Tuesday'],
    ],
    [
      'additionalContext on session.start reaches the model, nothing is blocked',
      loom('session.start', () => ({ additionalContext: ['repo: warden', 'branch: main'] })),
      session,
      'allow',
      ['repo: warden', 'branch: main'],
    ],
    [
      'continue: false on tool.pre blocks',
      loom('tool.pre', () => ({ continue: false, reason: 'no' })),
      tool('tool.pre'),
      'deny',
      [],
    ],
    [
      'continue: false on tool.post only observes (the result already exists)',
      loom('tool.post', () => ({ continue: false, reason: 'too late' })),
      tool('tool.post'),
      'allow',
      [],
    ],
    [
      'continue: false on model.pre only observes',
      loom('model.pre', () => ({ continue: false, reason: 'quiet' })),
      model,
      'allow',
      [],
    ],
  ]
  for (const [label, hook, input, expected, context] of rows) {
    it(label, async () => {
      const decision = await run([hook], input)
      expect(decision.decision, decision.reason).toBe(expected)
      expect(decision.additionalContext).toEqual(context)
    })
  }

  const command = (event: string, line: string): HookDefinition => ({
    name: 'loom-cmd',
    event,
    handler: { type: 'command', command: line, shell: true, dialect: 'loom' },
  })
  const commandRows: [string, HookDefinition, DispatchInput, string, string[], string?][] = [
    [
      '{"output": …} is output shown to the model, the tool result stays',
      command('tool.post', `echo '{"output": "lint passed"}'`),
      tool('tool.post'),
      'allow',
      ['hook loom-cmd output: lint passed'],
    ],
    [
      'a non-zero exit blocks with stderr as the reason',
      command('tool.pre', 'echo "no rm" >&2; exit 1'),
      tool('tool.pre'),
      'deny',
      [],
      'no rm',
    ],
    [
      '{"continue": false, "reason": …} blocks',
      command('tool.pre', `echo '{"continue": false, "reason": "read-only"}'`),
      tool('tool.pre'),
      'deny',
      [],
      'read-only',
    ],
    [
      'plain stdout with exit 0 allows, the stdout shown to the model as output',
      command('tool.pre', 'echo fine'),
      tool('tool.pre'),
      'allow',
      ['hook loom-cmd output: fine'],
    ],
  ]
  for (const [label, hook, input, expected, context, reason] of commandRows) {
    it(`command hook: ${label}`, async () => {
      const decision = await run([hook], input)
      expect(decision.decision, decision.reason).toBe(expected)
      expect(decision.additionalContext).toEqual(context)
      if (reason) expect(decision.reason).toBe(reason)
      expect(decision.payload).toBeUndefined()
    })
  }

  it('without the dialect, a command hook\'s {"output": …} rewrites the tool result (Warden)', async () => {
    const hook: HookDefinition = {
      name: 'rewrite',
      event: 'tool.post',
      handler: { type: 'command', command: `echo '{"output": "[redacted]"}'`, shell: true },
    }
    const decision = await run([hook], tool('tool.post'))
    expect(decision.decision).toBe('modify')
    expect(decision.payload?.tool).toMatchObject({ output: '[redacted]' })
  })
})

describe('AI Harness: delegation.post_verify blocks', () => {
  const file = (event: string) => {
    const parsed = parseHookFile(
      `---\nevent: ${event}\nscript: |\n  def handle(event, payload):\n    return block("the review found a bug")\n---\nVerifies a delegate's work.\n`,
      '/hooks/verify.md',
    )
    expect(parsed.problems).toEqual([])
    return parsed.hook as HookDefinition
  }

  it('block() in delegation.post_verify denies, and the caller waits for it', async () => {
    for (const wait of [true, false]) {
      const decision = await run([file('delegation.post_verify')], subagent(wait))
      expect(decision.decision, decision.reason).toBe('deny')
      expect(decision.reason).toBe('the review found a bug')
    }
  })

  it('block() in delegation.post does not block, as in Harness', async () => {
    const decision = await run([file('delegation.post')], subagent(true))
    expect(decision.decision).toBe('allow')
    expect(decision.reason).toContain('cannot block')
  })
})

describe('loom: model.post carries what loom meters', () => {
  it('stop reason, tokens, cost and tool calls reach model.post hooks; unreported fields stay out', async () => {
    const { createLoomRuntime } = await import('../../src/adapters/loom/index.js')
    const runtime = createLoomRuntime()
    const seen: unknown[] = []
    runtime.register('model.post', (ctx) => {
      seen.push(ctx.payload)
      return {}
    })
    await runtime.run('model.post', {
      response: 'done',
      metering: { stopReason: 'end_turn', inputTokens: 120, outputTokens: 30, costUsd: 0.0021, toolCalls: 2 },
    })
    await runtime.run('model.post', { response: 'again', metering: { stopReason: 'max_tokens' } })
    expect(seen).toEqual([
      {
        model: {
          response: 'done',
          stopReason: 'end_turn',
          toolCalls: 2,
          usage: { inputTokens: 120, outputTokens: 30, costUsd: 0.0021 },
        },
      },
      { model: { response: 'again', stopReason: 'max_tokens' } },
    ])
    await runtime.engine.close()
  })
})
