// The OpenAI Agents SDK adapter with the real Runner against a scripted local Responses
// server: guardrails trip with Warden's reason, tools really run (or never do), and the
// test reads what the model was told next.

import {
  Agent,
  InputGuardrailTripwireTriggered,
  OpenAIProvider,
  OutputGuardrailTripwireTriggered,
  Runner,
  setTracingDisabled,
  tool,
} from '@openai/agents'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { wardenGuardrails } from '../../src/adapters/openai-agents/index.js'
import { createEngine, type DecisionRecord, type HookCall, type HookDefinition } from '../../src/index.js'
import { type OpenAiServer, type ScriptedTurn, startOpenAiServer } from './servers/openai.js'

beforeAll(() => setTracingDisabled(true))

let server: OpenAiServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function setup(script: ScriptedTurn[], hooks: HookDefinition[], source?: string) {
  server = await startOpenAiServer(script)
  const records: DecisionRecord[] = []
  const engine = createEngine({ hooks, recorder: { record: (r) => void records.push(r) } })
  const kit = wardenGuardrails(source ?? engine)
  const ran: string[] = []
  const shell = tool({
    name: 'shell',
    description: 'run a shell command',
    parameters: z.object({ cmd: z.string() }),
    execute: async ({ cmd }) => {
      ran.push(cmd)
      return `output of ${cmd}: token sk-abc`
    },
    inputGuardrails: [kit.toolInputGuardrail],
    outputGuardrails: [kit.toolOutputGuardrail],
  })
  const agent = new Agent({
    name: 'ops',
    instructions: 'You run commands.',
    tools: [shell],
    inputGuardrails: [kit.inputGuardrail],
    outputGuardrails: [kit.outputGuardrail],
  })
  const runner = new Runner({
    modelProvider: new OpenAIProvider({ baseURL: server.url, apiKey: 'sk-test', useResponses: true }),
    callModelInputFilter: kit.callModelInputFilter,
  })
  kit.attach(runner)
  return { agent, runner, ran, records, server }
}

/** The function_call_output items the model was sent on a request. */
function toolOutputs(s: OpenAiServer, i: number): string {
  const input = s.requests[i]?.body.input as { type?: string; output?: unknown }[]
  return JSON.stringify(
    input.filter((item) => item.type === 'function_call_output').map((item) => item.output),
  )
}

describe('OpenAI Agents SDK adapter', () => {
  it('a tool input deny: the tool never runs and the model is told why', async () => {
    const { agent, runner, ran, server } = await setup(
      [{ tool: { name: 'shell', input: { cmd: 'rm -rf /' } } }, { text: 'I will not.' }],
      [
        {
          name: 'no-rm',
          event: 'tool.pre',
          if: "tool_input.cmd.contains('rm')",
          handler: { type: 'deny', reason: 'rm is not allowed' },
        },
      ],
    )
    const result = await runner.run(agent, 'clean up')
    expect(ran).toEqual([])
    expect(toolOutputs(server, 1)).toContain('Warden blocked the tool call shell: rm is not allowed')
    expect(result.finalOutput).toBe('I will not.')
  })

  it('a tool input rewrite is refused, saying the SDK cannot apply it', async () => {
    const { agent, runner, ran, server } = await setup(
      [{ tool: { name: 'shell', input: { cmd: 'deploy prod' } } }, { text: 'ok' }],
      [
        {
          name: 'staging',
          event: 'tool.pre',
          handler: {
            type: 'fn',
            fn: () => ({ decision: 'modify', updatedInput: { cmd: 'deploy staging' } }),
          },
        },
      ],
    )
    await runner.run(agent, 'deploy')
    expect(ran).toEqual([])
    expect(toolOutputs(server, 1)).toContain('does not let a guardrail change tool input')
  })

  it('a tool output rewrite replaces what the model sees', async () => {
    const { agent, runner, ran, server } = await setup(
      [{ tool: { name: 'shell', input: { cmd: 'env' } } }, { text: 'ok' }],
      [
        {
          name: 'redact',
          event: 'tool.post',
          handler: { type: 'fn', fn: () => ({ decision: 'modify', updatedToolOutput: 'output redacted' }) },
        },
      ],
    )
    await runner.run(agent, 'show env')
    expect(ran).toEqual(['env'])
    const told = toolOutputs(server, 1)
    expect(told).toContain('output redacted')
    expect(told).not.toContain('sk-abc')
  })

  it('an input deny trips the input guardrail before the model is called', async () => {
    const { agent, runner, server } = await setup(
      [{ text: 'never' }],
      [{ name: 'no-pii', event: 'user.message', handler: { type: 'deny', reason: 'no personal data' } }],
    )
    const error = await runner.run(agent, 'my SSN is 123').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InputGuardrailTripwireTriggered)
    expect((error as InputGuardrailTripwireTriggered).result.output.outputInfo).toEqual({
      reason: 'no personal data',
    })
    expect(server.requests).toHaveLength(0)
  })

  it('an answer deny trips the output guardrail', async () => {
    const { agent, runner } = await setup(
      [{ text: 'the password is hunter2' }],
      [
        {
          name: 'no-passwords',
          event: 'agent.response',
          if: "message.text.contains('password')",
          handler: { type: 'deny', reason: 'no passwords out' },
        },
      ],
    )
    const error = await runner.run(agent, 'hi').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OutputGuardrailTripwireTriggered)
  })

  it('model.pre context reaches the model as a system reminder, and run hooks report for audit', async () => {
    const { agent, runner, server, records } = await setup(
      [{ tool: { name: 'shell', input: { cmd: 'ls' } } }, { text: 'done' }],
      [
        {
          name: 'rules',
          event: 'model.pre',
          handler: { type: 'fn', fn: () => ({ decision: 'allow', additionalContext: 'Never run sudo.' }) },
        },
      ],
    )
    await runner.run(agent, 'list')
    expect(String(server.requests[0]?.body.instructions)).toContain(
      '<system-reminder>\nNever run sudo.\n</system-reminder>',
    )
    await new Promise((resolve) => setTimeout(resolve, 20))
    const events = records.map((r) => r.event.event)
    expect(events).toContain('custom.openai.toolEnd')
    expect(events).toContain('model.post')
  })

  it('run hooks report a handoff as subagent.start and its end as subagent.stop', async () => {
    const { agent, runner, records } = await setup(
      [{ tool: { name: 'transfer_to_billing', input: {} } }, { text: 'billing here' }],
      [],
    )
    const billing = new Agent({ name: 'billing', instructions: 'You handle bills.' })
    const result = await runner.run(agent.clone({ handoffs: [billing] }), 'refund me')
    expect(result.finalOutput).toBe('billing here')
    await new Promise((resolve) => setTimeout(resolve, 20))
    const started = records.find((r) => r.event.event === 'subagent.start')
    expect(started?.event.payload).toEqual({ subagent: { name: 'billing', task: { from: 'ops' } } })
    const stopped = records.find((r) => r.event.event === 'subagent.stop')
    expect(stopped?.event.payload).toEqual({ subagent: { name: 'billing', result: 'billing here' } })
  })

  it('fails closed: an unreachable remote Warden trips the input guardrail with the cause', async () => {
    const { agent, runner } = await setup([{ text: 'never' }], [], 'http://127.0.0.1:9/aos')
    const error = await runner.run(agent, 'hello').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InputGuardrailTripwireTriggered)
    expect(JSON.stringify((error as InputGuardrailTripwireTriggered).result.output.outputInfo)).toMatch(
      /could not be reached/,
    )
  })

  it('the model input filter never changes the items it is given (the SDK skips copying them)', async () => {
    const engine = createEngine({
      hooks: [
        {
          name: 'redact',
          event: 'model.pre',
          handler: {
            type: 'fn',
            fn: (call: HookCall) => {
              const model = call.event.payload.model as { messages: { content?: unknown }[] }
              for (const message of model.messages) message.content = 'changed in place'
              return {
                decision: 'modify',
                payload: { model: { messages: [{ role: 'user', content: 'x' }] } },
              }
            },
          },
        },
        {
          name: 'note',
          event: 'model.pre',
          handler: { type: 'fn', fn: () => ({ decision: 'allow', additionalContext: 'be brief' }) },
        },
      ],
    })
    const kit = wardenGuardrails(engine)
    expect(kit.callModelInputFilter.preserveInputIdentity).toBe(true)
    const input = [{ role: 'user' as const, content: 'hello', nested: { list: [1, 2] } }]
    const before = structuredClone(input)
    const answer = await kit.callModelInputFilter({
      modelData: { input: input as never, instructions: 'x' },
      agent: new Agent({ name: 'a' }),
      context: undefined,
    })
    expect(input).toEqual(before)
    expect(answer.input).toEqual([{ role: 'user', content: 'x' }])
    expect(answer.instructions).toContain('be brief')
  })
})
