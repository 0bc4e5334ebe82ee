// Adapter benchmarks: the no-hook path of each SDK adapter against the bare SDK call, both
// driving the same local model server (or in-memory MCP server) in the same run, every run
// replaying the whole script (a tool call, then the answer). Goal: the adapter adds at most
// 5% when no hook applies.

import { createOpenAI } from '@ai-sdk/openai'
import { query } from '@anthropic-ai/claude-agent-sdk'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents'
import { tool as aiTool, generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai'
import { z } from 'zod'
import { guardTools, wardenMiddleware } from '../src/adapters/ai-sdk/index.js'
import { wardenHooks } from '../src/adapters/claude-agent-sdk/index.js'
import { HookRegistry, HookRuntime, type Provider, Session } from '../src/adapters/loom/index.js'
import { guardMcpClient } from '../src/adapters/mcp-client/index.js'
import { wardenGuardrails } from '../src/adapters/openai-agents/index.js'
import { createEngine } from '../src/index.js'
import { startAnthropicServer, toolResults } from '../test/adapters/servers/anthropic.js'
import { offlineEnv, scratch } from '../test/adapters/servers/claude-run.js'
import { startOpenAiServer } from '../test/adapters/servers/openai.js'
import { type BenchResult, quantile } from './lib.js'

const GOAL = 1.05
/** Timed pairs of the model-server benchmarks (a few ms per call). */
const SAMPLES = 600
const SCRIPT = [{ tool: { name: 'echo', input: { text: 'hi' } } }, { text: 'done' }]

/**
 * Times `candidate` and `baseline` call by call, alternating which goes first, and compares
 * the medians: on a shared machine, load drifts over seconds, and pairing the calls makes
 * both sides see the same drift (best-of-rounds swung either way by 40% here). `between`
 * runs untimed after each pair (e.g. to drop what a server kept).
 */
async function compare(
  candidate: () => unknown,
  baseline: () => unknown,
  samples: number,
  between?: () => void,
): Promise<{ candidateNs: number; baselineNs: number; samples: number }> {
  const time = async (fn: () => unknown) => {
    const start = process.hrtime.bigint()
    await fn()
    return Number(process.hrtime.bigint() - start)
  }
  for (let i = 0; i < Math.max(3, samples / 10); i++) {
    await candidate()
    await baseline()
    between?.()
  }
  const a: number[] = []
  const b: number[] = []
  for (let i = 0; i < samples; i++) {
    if (i % 2 === 0) {
      a.push(await time(candidate))
      b.push(await time(baseline))
    } else {
      b.push(await time(baseline))
      a.push(await time(candidate))
    }
    between?.()
  }
  return { candidateNs: quantile(a, 0.5), baselineNs: quantile(b, 0.5), samples }
}

/** Fails the benchmark when the runs did not all call the tool (the script is per run). */
function usedTool(calls: number, runs: number): void {
  if (calls < runs) throw new Error(`the tool ran ${calls} times in ${runs} runs`)
}

function result(
  name: string,
  { candidateNs, baselineNs, samples }: { candidateNs: number; baselineNs: number; samples: number },
): BenchResult {
  const ratio = candidateNs / baselineNs
  const pass = ratio <= GOAL
  if (!pass) process.stdout.write(`MISS: ${name}: ${ratio.toFixed(3)}x > ${GOAL}x\n`)
  return {
    name,
    value: candidateNs / 1000,
    baseline: baselineNs / 1000,
    unit: 'us',
    goal: `ratio <= ${GOAL}`,
    pass,
    extra: { 'median of': `${samples} pairs` },
  }
}

async function aiSdk(): Promise<BenchResult[]> {
  const server = await startOpenAiServer(SCRIPT, { perConversation: true })
  const forget = () => {
    server.requests.length = 0
  }
  try {
    const engine = createEngine()
    const bare = createOpenAI({ baseURL: server.url, apiKey: 'sk' }).chat('gpt-test')
    const wrapped = wrapLanguageModel({ model: bare, middleware: wardenMiddleware(engine) })
    let ran = 0
    const tools = {
      echo: aiTool({
        inputSchema: z.object({ text: z.string() }),
        execute: async ({ text }) => {
          ran++
          return text
        },
      }),
    }
    const guarded = guardTools(tools, engine)
    const run = (model: typeof bare, t: typeof tools) => async () => {
      await generateText({ model, tools: t, prompt: 'hi', stopWhen: stepCountIs(3) })
    }
    const streamed = (model: typeof bare, t: typeof tools) => async () => {
      await streamText({ model, tools: t, prompt: 'hi', stopWhen: stepCountIs(3) }).consumeStream()
    }
    const generate = await compare(run(wrapped, guarded), run(bare, tools), SAMPLES, forget)
    usedTool(ran, 2 * SAMPLES)
    ran = 0
    const stream = await compare(streamed(wrapped, guarded), streamed(bare, tools), SAMPLES, forget)
    usedTool(ran, 2 * SAMPLES)
    return [
      result('AI SDK generateText + tool, middleware and guardTools, no hook', generate),
      result('AI SDK streamText + tool, middleware and guardTools, no hook', stream),
    ]
  } finally {
    await server.close()
  }
}

async function openAiAgents(): Promise<BenchResult> {
  setTracingDisabled(true)
  const server = await startOpenAiServer(SCRIPT, { perConversation: true })
  const forget = () => {
    server.requests.length = 0
  }
  try {
    const kit = wardenGuardrails(createEngine())
    let ran = 0
    const make = (guarded: boolean) => {
      const echo = tool({
        name: 'echo',
        description: 'echo',
        parameters: z.object({ text: z.string() }),
        execute: async ({ text }) => {
          ran++
          return text
        },
        ...(guarded
          ? { inputGuardrails: [kit.toolInputGuardrail], outputGuardrails: [kit.toolOutputGuardrail] }
          : {}),
      })
      const agent = new Agent({
        name: 'a',
        instructions: 'x',
        tools: [echo],
        ...(guarded
          ? { inputGuardrails: [kit.inputGuardrail], outputGuardrails: [kit.outputGuardrail] }
          : {}),
      })
      const runner = new Runner({
        modelProvider: new OpenAIProvider({ baseURL: server.url, apiKey: 'sk', useResponses: true }),
        ...(guarded ? { callModelInputFilter: kit.callModelInputFilter } : {}),
      })
      return async () => {
        await runner.run(agent, 'hi')
      }
    }
    const timed = await compare(make(true), make(false), SAMPLES, forget)
    usedTool(ran, 2 * SAMPLES)
    return result('OpenAI Agents run + tool, every guardrail and the input filter, no hook', timed)
  } finally {
    await server.close()
  }
}

async function mcpClient(): Promise<BenchResult> {
  const connect = async () => {
    const server = new McpServer({ name: 's', version: '1' })
    server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: 'text', text }],
    }))
    const [a, b] = InMemoryTransport.createLinkedPair()
    await server.connect(b)
    const client = new Client({ name: 'c', version: '1' })
    await client.connect(a)
    return client
  }
  const bare = await connect()
  const guarded = guardMcpClient(await connect(), createEngine())
  const call = (client: Client) => () => client.callTool({ name: 'echo', arguments: { text: 'hi' } })
  const timed = await compare(call(guarded), call(bare), 10_000)
  await bare.close()
  await guarded.close()
  return result('MCP client callTool (in memory), no hook', timed)
}

async function claudeAgentSdk(): Promise<BenchResult> {
  const server = await startAnthropicServer(
    [{ tool: { name: 'Bash', input: { command: 'true', description: 'x' } } }, { text: 'done' }],
    { perConversation: true },
  )
  const where = scratch()
  try {
    const hooks = wardenHooks(createEngine())
    const run = (withHooks: boolean) => async () => {
      const q = query({
        prompt: 'go',
        options: {
          cwd: where.dir,
          env: offlineEnv(server.url, where.home),
          settingSources: [],
          allowedTools: ['Bash'],
          maxTurns: 3,
          ...(withHooks ? { hooks } : {}),
        },
      })
      for await (const _ of q) {
        // drain
      }
    }
    // Each run starts a Claude Code process (about 0.5 s), whose start-up varies by more
    // than 5% from one run to the next: ADAPTERS_CLAUDE_RUNS sets how many pairs are timed.
    const pairs = Number(process.env.ADAPTERS_CLAUDE_RUNS ?? 20)
    const timed = await compare(run(true), run(false), pairs)
    usedTool(server.turns.filter((turn) => toolResults(turn).length > 0).length, 2 * pairs)
    return result('Claude Agent SDK query + Bash (Claude Code process), every hook, no Warden hook', timed)
  } finally {
    where.cleanup()
    await server.close()
  }
}

/**
 * loom's `Session` with a `HookRuntime` whose hooks are bound to other events against the
 * same loop without a runtime: loom's "no hook bound, no cost" rule.
 */
async function loomSession(): Promise<BenchResult> {
  const server = await startOpenAiServer(SCRIPT, { perConversation: true })
  const forget = () => {
    server.requests.length = 0
  }
  const registry = new HookRegistry()
  registry.register('custom.unused', { type: 'fn', name: 'elsewhere', fn: () => ({}) })
  const hooks = new HookRuntime({ registry })
  try {
    let ran = 0
    const provider: Provider = async ({ messages, signal }) => {
      const body = {
        model: 'gpt-test',
        messages: messages.map((m) =>
          m.role === 'tool' ? { role: 'tool', tool_call_id: m.toolCallId, content: m.content } : m,
        ),
      }
      const response = await fetch(`${server.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal,
      })
      const answer = (await response.json()) as {
        choices: {
          message: {
            content?: string
            tool_calls?: { id: string; function: { name: string; arguments: string } }[]
          }
        }[]
      }
      const message = answer.choices[0]?.message
      const calls = (message?.tool_calls ?? []).map((c) => ({
        id: c.id,
        name: c.function.name,
        input: JSON.parse(c.function.arguments) as unknown,
      }))
      return {
        text: message?.content ?? '',
        toolCalls: calls,
        stopReason: calls.length ? 'tool_use' : 'end_turn',
      }
    }
    const tools = [{ name: 'echo', execute: () => String(++ran) }]
    const run = (withHooks: boolean) => async () => {
      await new Session({ provider, tools, ...(withHooks ? { hooks } : {}) }).submitMessage('hi')
    }
    const timed = await compare(run(true), run(false), SAMPLES, forget)
    usedTool(ran, 2 * SAMPLES)
    return result('loom Session + tool, a HookRuntime with no hook on its events', timed)
  } finally {
    await registry.engine.close()
    await server.close()
  }
}

/** `ADAPTERS_BENCH=mcp,ai` runs only the named parts (ai, agents, mcp, claude, loom). */
export default async function adapters(): Promise<BenchResult[]> {
  const only = process.env.ADAPTERS_BENCH?.split(',')
  const want = (name: string) => !only || only.includes(name)
  const results: BenchResult[] = []
  if (want('ai')) results.push(...(await aiSdk()))
  if (want('agents')) results.push(await openAiAgents())
  if (want('mcp')) results.push(await mcpClient())
  if (want('claude')) results.push(await claudeAgentSdk())
  if (want('loom')) results.push(await loomSession())
  return results
}
