// Agent loops through `warden llm` by their base URL alone: the Vercel AI SDK (Chat
// Completions, streamed and not) and the OpenAI Agents SDK (Responses) run their tools
// for real; a denied tool call never runs and the loop ends with Warden's reason, a
// rewritten one runs with the new arguments, a redacted tool result never reaches the model.

import { createOpenAI } from '@ai-sdk/openai'
import { Agent, tool as agentTool, OpenAIProvider, Runner, setTracingDisabled } from '@openai/agents'
import { generateText, stepCountIs, streamText, tool } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { Engine } from '../../src/core/index.js'
import { type LlmGateway, startLlmGateway } from '../../src/gateway/index.js'
import { buildEngine } from '../../src/sources/index.js'
import { LLM_HOOKS } from './llm-hooks.js'
import { type ModelServer, startModelServer } from './llm-upstream.js'

describe('agent loops through warden llm', () => {
  let upstream: ModelServer
  let gateway: LlmGateway
  let engine: Engine
  const ran: string[] = []
  const shell = tool({
    description: 'run a shell command',
    inputSchema: z.object({ command: z.string() }),
    execute: async ({ command }) => {
      ran.push(command)
      return `ran ${command}; password=hunter2`
    },
  })

  beforeAll(async () => {
    setTracingDisabled(true)
    upstream = await startModelServer()
    engine = buildEngine(undefined, { extraHooks: LLM_HOOKS })
    gateway = await startLlmGateway({ engine, upstream: new URL(upstream.url) })
  })

  afterAll(async () => {
    await gateway?.close()
    await upstream?.close()
    await engine?.close()
  })

  const model = () =>
    createOpenAI({ baseURL: new URL('/v1', gateway.url).href, apiKey: 'sk-test' }).chat('gpt-test')

  it('AI SDK generateText: a denied tool never runs; the loop ends with the reason', async () => {
    ran.length = 0
    upstream.script([{ tools: [{ name: 'Bash', input: { command: 'rm -rf /' } }] }, { text: ['never'] }])
    const result = await generateText({
      model: model(),
      tools: { Bash: shell },
      stopWhen: stepCountIs(3),
      prompt: 'clean up',
    })
    expect(ran).toEqual([])
    expect(result.text).toBe('Warden blocked the tool call Bash: rm -rf is never allowed')
  })

  it('AI SDK streamText: a rewritten call runs rewritten and its result is redacted for the model', async () => {
    ran.length = 0
    upstream.script([
      { tools: [{ name: 'Bash', input: { command: 'touch original.txt' } }] },
      { text: ['done'] },
    ])
    const result = streamText({
      model: model(),
      tools: { Bash: shell },
      stopWhen: stepCountIs(3),
      prompt: 'touch',
    })
    expect(await result.text).toBe('done')
    expect(ran).toEqual(['touch rewritten.txt'])
    const second = upstream.requests.at(-1)?.body
    expect(JSON.stringify(second.messages)).toContain('password=[REDACTED]')
    expect(JSON.stringify(second.messages)).not.toContain('hunter2')
  })

  it('OpenAI Agents run (Responses): a denied tool never runs; a rewritten one runs rewritten', async () => {
    const calls: string[] = []
    const bash = agentTool({
      name: 'Bash',
      description: 'run a shell command',
      parameters: z.object({ command: z.string() }),
      execute: async ({ command }) => {
        calls.push(command)
        return 'ok'
      },
    })
    const agent = new Agent({ name: 'ops', instructions: 'You run commands.', tools: [bash] })
    const runner = new Runner({
      modelProvider: new OpenAIProvider({
        baseURL: new URL('/v1', gateway.url).href,
        apiKey: 'sk-test',
        useResponses: true,
      }),
    })
    upstream.script([{ tools: [{ name: 'Bash', input: { command: 'rm -rf /' } }] }, { text: ['never'] }])
    const denied = await runner.run(agent, 'clean up')
    expect(calls).toEqual([])
    expect(String(denied.finalOutput)).toContain('rm -rf is never allowed')
    upstream.script([{ tools: [{ name: 'Bash', input: { command: 'ls original' } }] }, { text: ['listed'] }])
    const rewritten = await runner.run(agent, 'list')
    expect(calls).toEqual(['ls rewritten'])
    expect(rewritten.finalOutput).toBe('listed')
  })
})
