// Every adapter × every decision (allow, deny, modify, ask) × stream and no stream where the
// SDK has both, run through the real SDK loops against the local scripted model servers
// (the MCP client against a real MCP server in memory, loom's runtime directly): what the
// tool ran with, what the model was told next, and what the user got. A decision the SDK
// cannot apply (a tool-input rewrite under the OpenAI Agents SDK) is refused with the
// cause, never dropped; an ask no approver resolves is denied (or handed to the host's
// own prompt, for the Claude Agent SDK) and the tool never runs.

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createOpenAI } from '@ai-sdk/openai'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { Agent, tool as agentsTool, OpenAIProvider, Runner, setTracingDisabled } from '@openai/agents'
import { tool as aiTool, generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { guardTools, wardenMiddleware } from '../../src/adapters/ai-sdk/index.js'
import type { WardenBackend } from '../../src/adapters/backend.js'
import { toHookOutput, wardenCanUseTool, wardenHooks } from '../../src/adapters/claude-agent-sdk/index.js'
import { createLoomRuntime } from '../../src/adapters/loom/index.js'
import { guardMcpClient } from '../../src/adapters/mcp-client/index.js'
import { wardenGuardrails } from '../../src/adapters/openai-agents/index.js'
import {
  createEngine,
  type Engine,
  type EventName,
  type HookCall,
  type HookDefinition,
  type JsonObject,
} from '../../src/index.js'
import { startAnthropicServer, toolResults } from './servers/anthropic.js'
import { runClaude, scratch } from './servers/claude-run.js'
import { type OpenAiServer, startOpenAiServer } from './servers/openai.js'

type Kind = 'allow' | 'deny' | 'modify' | 'ask'
const KINDS: Kind[] = ['allow', 'deny', 'modify', 'ask']

/** A `tool.pre` hook on `tool` answering `kind`; a modify rewrites `field` to `rewritten`. */
function decide(kind: Kind, tool: string, field: string, rewritten: string): HookDefinition {
  if (kind === 'ask') {
    return {
      name: 'matrix',
      event: 'tool.pre',
      matcher: `^${tool}$`,
      handler: { type: 'ask', reason: 'matrix asks' },
    }
  }
  return {
    name: 'matrix',
    event: 'tool.pre',
    matcher: `^${tool}$`,
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        if (kind === 'allow') return { decision: 'allow' }
        if (kind === 'deny') return { decision: 'deny', reason: 'matrix says no' }
        const input = (event.payload.tool as { input: Record<string, unknown> }).input
        return { decision: 'modify', updatedInput: { ...input, [field]: rewritten } }
      },
    },
  }
}

/** What one run showed. */
interface Seen {
  /** What the tool ran with (empty: it never ran). */
  tool: string[]
  /** What the model was sent after the tool call (empty when it was not called again). */
  model: string
  /** What the user got: the final answer, or the error. */
  user: string
}

/** What each decision must show, for adapters whose tool input can be rewritten. */
function expectApplied(kind: Kind, seen: Seen, original: string, rewritten: string, askCause: RegExp) {
  if (kind === 'allow') {
    expect(seen.tool).toEqual([original])
  } else if (kind === 'modify') {
    expect(seen.tool).toEqual([rewritten])
  } else {
    expect(seen.tool).toEqual([])
    const cause = kind === 'deny' ? /matrix says no/ : askCause
    expect(`${seen.model}\n${seen.user}`).toMatch(cause)
  }
}

let openai: OpenAiServer | undefined
afterEach(async () => {
  await openai?.close()
  openai = undefined
})

const toolTurn = (name: string, input: Record<string, unknown>) => [
  { tool: { name, input } },
  { text: 'Done.' },
]

describe('decision matrix: AI SDK (generateText / streamText, guardTools)', () => {
  for (const stream of [false, true]) {
    for (const kind of KINDS) {
      it(`${kind}, ${stream ? 'stream' : 'no stream'}`, async () => {
        openai = await startOpenAiServer(toolTurn('shell', { cmd: 'cat notes' }))
        const engine = createEngine({ hooks: [decide(kind, 'shell', 'cmd', 'cat public-notes')] })
        const ran: string[] = []
        const tools = guardTools(
          {
            shell: aiTool({
              description: 'run a shell command',
              inputSchema: z.object({ cmd: z.string() }),
              execute: async ({ cmd }) => {
                ran.push(cmd)
                return `ran ${cmd}`
              },
            }),
          },
          engine,
        )
        const model = wrapLanguageModel({
          model: createOpenAI({ baseURL: openai.url, apiKey: 'sk-test' }).chat('gpt-test'),
          middleware: wardenMiddleware(engine, { checkToolCalls: false }),
        })
        const options = { model, prompt: 'read my notes', tools, stopWhen: stepCountIs(3) }
        let user: string
        if (stream) {
          const result = streamText(options)
          user = ''
          for await (const delta of result.textStream) user += delta
        } else {
          user = (await generateText(options)).text
        }
        const seen = { tool: ran, model: JSON.stringify(openai.requests[1]?.body ?? ''), user }
        expectApplied(kind, seen, 'cat notes', 'cat public-notes', /matrix asks.*no approver is configured/)
        expect(user).toBe('Done.')
        if (kind !== 'deny' && kind !== 'ask') expect(seen.model).toContain(`ran ${ran[0]}`)
      })
    }
  }

  for (const stream of [false, true]) {
    it(`modify of the answer, ${stream ? 'stream' : 'no stream'}: the user reads the rewrite`, async () => {
      openai = await startOpenAiServer([{ text: 'The key is sk-live-123456, keep it safe.' }])
      const engine = createEngine({
        hooks: [
          {
            name: 'redact',
            event: 'agent.response',
            handler: {
              type: 'fn',
              fn: ({ event }: HookCall) => ({
                decision: 'modify',
                payload: {
                  message: {
                    role: 'agent',
                    text: String((event.payload.message as { text: string }).text).replace(
                      /sk-live-\d+/g,
                      '[key]',
                    ),
                  },
                },
              }),
            },
          },
        ],
      })
      const model = wrapLanguageModel({
        model: createOpenAI({ baseURL: openai.url, apiKey: 'sk-test' }).chat('gpt-test'),
        middleware: wardenMiddleware(engine, { checkEveryChars: 4 }),
      })
      let user = ''
      if (stream) {
        for await (const delta of streamText({ model, prompt: 'key?' }).textStream) user += delta
      } else {
        user = (await generateText({ model, prompt: 'key?' })).text
      }
      expect(user).toBe('The key is [key], keep it safe.')
    })
  }
})

describe('decision matrix: OpenAI Agents SDK (Runner.run, stream and not)', () => {
  beforeAll(() => setTracingDisabled(true))

  for (const stream of [false, true]) {
    for (const kind of KINDS) {
      it(`${kind}, ${stream ? 'stream' : 'no stream'}`, async () => {
        openai = await startOpenAiServer(toolTurn('shell', { cmd: 'cat notes' }))
        const engine = createEngine({ hooks: [decide(kind, 'shell', 'cmd', 'cat public-notes')] })
        const kit = wardenGuardrails(engine)
        const ran: string[] = []
        const shell = agentsTool({
          name: 'shell',
          description: 'run a shell command',
          parameters: z.object({ cmd: z.string() }),
          execute: async ({ cmd }) => {
            ran.push(cmd)
            return `ran ${cmd}`
          },
          inputGuardrails: [kit.toolInputGuardrail],
          outputGuardrails: [kit.toolOutputGuardrail],
        })
        const agent = new Agent({ name: 'ops', instructions: 'You run commands.', tools: [shell] })
        const runner = new Runner({
          // The scripted server streams Chat Completions only; the Responses API answers JSON.
          modelProvider: new OpenAIProvider({
            baseURL: openai.url,
            apiKey: 'sk-test',
            useResponses: !stream,
          }),
        })
        kit.attach(runner)
        let user: string
        if (stream) {
          const result = await runner.run(agent, 'read my notes', { stream: true })
          await result.completed
          user = String(result.finalOutput)
        } else {
          user = String((await runner.run(agent, 'read my notes')).finalOutput)
        }
        const seen = { tool: ran, model: JSON.stringify(openai.requests[1]?.body ?? ''), user }
        if (kind === 'modify') {
          // The SDK cannot rewrite a tool's input: refused with the cause, never run as given.
          expect(seen.tool).toEqual([])
          expect(seen.model).toContain('does not let a guardrail change tool input')
        } else {
          expectApplied(kind, seen, 'cat notes', 'cat public-notes', /matrix asks.*no approver is configured/)
        }
        if (kind === 'allow') expect(seen.model).toContain('ran cat notes')
        expect(user).toBe('Done.')
      })
    }
  }
})

describe('decision matrix: MCP client (callTool; the SDK has no streaming call)', () => {
  for (const kind of KINDS) {
    it(kind, async () => {
      const ran: string[] = []
      const server = new McpServer({ name: 'files', version: '1.0.0' })
      server.registerTool('read_file', { inputSchema: { path: z.string() } }, async ({ path }) => {
        ran.push(path)
        return { content: [{ type: 'text', text: `read ${path}` }] }
      })
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      await server.connect(serverSide)
      const client = new Client({ name: 'agent', version: '1.0.0' })
      await client.connect(clientSide)
      guardMcpClient(client, createEngine({ hooks: [decide(kind, 'read_file', 'path', '/tmp/public')] }))
      let user: string
      try {
        const result = await client.callTool({ name: 'read_file', arguments: { path: '/tmp/notes' } })
        user = JSON.stringify(result.content)
      } catch (error) {
        user = String(error)
      }
      await client.close()
      expectApplied(
        kind,
        { tool: ran, model: '', user },
        '/tmp/notes',
        '/tmp/public',
        /matrix asks.*no approver/,
      )
      if (kind === 'allow' || kind === 'modify') expect(user).toContain(`read ${ran[0]}`)
    })
  }
})

describe('decision matrix: a modify the adapter cannot apply is refused with the cause', () => {
  /** A backend (as a remote Guardian might answer) whose modify carries no tool input. */
  const hollowModify: WardenBackend = {
    dispatch: async (input) => ({
      id: 'm-1',
      event: input.event as EventName,
      decision: 'modify',
      reason: 'rewritten elsewhere',
      reasonCode: [],
      additionalContext: [],
      policies: [],
      trace: [],
      durationMs: 0,
      blocking: true,
      payload: { note: 'no tool here' },
    }),
  }

  it('MCP client: the call never reaches the server', async () => {
    const ran: string[] = []
    const server = new McpServer({ name: 'files', version: '1.0.0' })
    server.registerTool('read_file', { inputSchema: { path: z.string() } }, async ({ path }) => {
      ran.push(path)
      return { content: [{ type: 'text', text: `read ${path}` }] }
    })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await server.connect(serverSide)
    const client = new Client({ name: 'agent', version: '1.0.0' })
    await client.connect(clientSide)
    guardMcpClient(client, hollowModify)
    await expect(client.callTool({ name: 'read_file', arguments: { path: '/tmp/notes' } })).rejects.toThrow(
      'a modify of tool.pre without tool.input as an object cannot be applied, so it is refused (rewritten elsewhere)',
    )
    await client.close()
    expect(ran).toEqual([])
  })

  it('loom runtime: the tool is blocked before it runs', async () => {
    const runtime = createLoomRuntime({ engine: hollowModify as Engine })
    const ran: string[] = []
    const outcome = await runtime.runTool('shell', { cmd: 'cat notes' }, (input) => {
      ran.push(String(input.cmd))
    })
    expect(ran).toEqual([])
    expect(outcome).toMatchObject({ status: 'blocked', stage: 'before' })
    expect(JSON.stringify(outcome)).toContain('without tool.input as an object cannot be applied')
  })
})

describe('decision matrix: loom runtime (runTool; no model stream of its own)', () => {
  for (const kind of KINDS) {
    it(kind, async () => {
      const runtime = createLoomRuntime({ hooks: [decide(kind, 'shell', 'cmd', 'cat public-notes')] })
      const ran: string[] = []
      const outcome = await runtime.runTool('shell', { cmd: 'cat notes' }, (input) => {
        ran.push(String((input as { cmd: string }).cmd))
        return `ran ${(input as { cmd: string }).cmd}`
      })
      const seen = { tool: ran, model: runtime.takeReminders(), user: JSON.stringify(outcome) }
      expectApplied(kind, seen, 'cat notes', 'cat public-notes', /matrix asks.*no approver/)
      expect(outcome.status).toBe(kind === 'deny' || kind === 'ask' ? 'blocked' : 'ok')
      if (kind === 'deny') expect(seen.model).toContain('matrix says no')
    })
  }
})

describe('decision matrix: Claude Agent SDK (query streams its messages; there is no other mode)', () => {
  for (const kind of KINDS) {
    it(kind, async () => {
      const where = scratch()
      const out = join(where.dir, 'out.txt')
      const server = await startAnthropicServer([
        { tool: { name: 'Bash', input: { command: `echo original > ${out}`, description: 'write' } } },
        { text: 'Done.' },
      ])
      try {
        const engine = createEngine({ hooks: [decide(kind, 'Bash', 'command', `echo rewritten > ${out}`)] })
        const asked: string[] = []
        const run = await runClaude('write the file', server.url, where, {
          hooks: wardenHooks(engine),
          // A held ask goes to the host's own prompt, which says no here.
          canUseTool: wardenCanUseTool(engine, {
            checkTool: false,
            onAsk: ({ reason }) => {
              asked.push(reason)
              return false
            },
          }),
        })
        const wrote = existsSync(out) ? readFileSync(out, 'utf8').trim() : undefined
        const seen = {
          tool: wrote ? [wrote] : [],
          model: server.turns[1] ? toolResults(server.turns[1] as never).join('\n') : '',
          user: run.result,
        }
        expectApplied(kind, seen, 'original', 'rewritten', /matrix asks; not approved/)
        if (kind === 'ask') expect(asked).toEqual(['matrix asks'])
        expect(run.result).toBe('Done.')
      } finally {
        await server.close()
        where.cleanup()
      }
    }, 60_000)
  }
})

/** A decision on `event` of `kind`, carrying `payload` when it is a modify. */
function sdkDecision(event: EventName, kind: 'allow' | 'modify', reason: string, payload: JsonObject) {
  return {
    id: 'd-1',
    event,
    decision: kind,
    reason,
    reasonCode: [],
    additionalContext: [],
    policies: [],
    trace: [],
    durationMs: 0,
    blocking: true,
    ...(kind === 'modify' ? { payload } : {}),
  }
}

describe('decision matrix: Claude Agent SDK events it cannot rewrite', () => {
  it('a modify of a sub-agent start stops it with the cause; allow lets it start', () => {
    const decision = (kind: 'allow' | 'modify') =>
      sdkDecision('subagent.start', kind, 'matrix rewrote the task', { subagent: { name: 'x' } })
    expect(toHookOutput('SubagentStart', decision('modify'))).toEqual({
      continue: false,
      stopReason:
        'Warden rewrote the sub-agent start, and the SDK cannot apply a rewrite there, so it was refused: matrix rewrote the task',
    })
    expect(toHookOutput('SubagentStart', decision('allow'))).toEqual({})
  })
})

describe('decision matrix: Claude Agent SDK permission flow', () => {
  it('a rewritten tool input is passed on without granting permission; an allow grants nothing', () => {
    const decision = (kind: 'allow' | 'modify') =>
      sdkDecision('tool.pre', kind, 'matrix rewrote the command', {
        tool: { name: 'Bash', input: { command: 'ls' } },
      })
    expect(toHookOutput('PreToolUse', decision('modify'))).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { command: 'ls' } },
    })
    expect(toHookOutput('PreToolUse', decision('allow'))).toEqual({})
  })
})
