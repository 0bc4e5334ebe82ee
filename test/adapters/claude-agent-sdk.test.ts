// The Claude Agent SDK adapter with the real SDK and Claude Code binary against a scripted
// local Messages server: the tool is really attempted, and the test checks what the tool
// saw (never ran, ran with the rewritten input) and what the model was told next.

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { wardenCanUseTool, wardenHooks } from '../../src/adapters/claude-agent-sdk/index.js'
import { createEngine, type HookDefinition } from '../../src/index.js'
import {
  type AnthropicServer,
  type ScriptedTurn,
  startAnthropicServer,
  toolResults,
  transcript,
} from './servers/anthropic.js'
import { runClaude, type Scratch, scratch } from './servers/claude-run.js'

let server: AnthropicServer | undefined
let where: Scratch | undefined
afterEach(async () => {
  await server?.close()
  where?.cleanup()
  server = undefined
  where = undefined
})

async function setup(script: (dir: string) => ScriptedTurn[]) {
  where = scratch()
  server = await startAnthropicServer(script(where.dir))
  return { server, where }
}

const noTouch: HookDefinition = {
  name: 'no-touch',
  event: 'PreToolUse',
  matcher: '^Bash$',
  handler: {
    type: 'fn',
    fn: ({ event }: { event: { payload: { tool: { input: { command?: string } } } } }) =>
      String(event.payload.tool.input.command).includes('touch')
        ? { decision: 'deny', reason: 'touch is not allowed here' }
        : undefined,
  },
}

describe('Claude Agent SDK adapter: hooks', () => {
  it('denies a tool call: the command never runs and the model is told the reason', async () => {
    const { server, where } = await setup((dir) => [
      { tool: { name: 'Bash', input: { command: `touch ${join(dir, 'ran')}`, description: 'touch' } } },
      { text: 'Blocked, so I stopped.' },
    ])
    const engine = createEngine({ hooks: [noTouch] })
    const run = await runClaude('touch the file', server.url, where, { hooks: wardenHooks(engine) })
    expect(existsSync(join(where.dir, 'ran'))).toBe(false)
    expect(server.turns).toHaveLength(2)
    expect(toolResults(server.turns[1] as never).join('\n')).toContain('touch is not allowed here')
    expect(run.result).toBe('Blocked, so I stopped.')
  }, 60_000)

  it('modifies a tool call: the command runs with the rewritten input', async () => {
    const { server, where } = await setup(() => [
      { tool: { name: 'Bash', input: { command: 'echo original > out.txt', description: 'write' } } },
      { text: 'Done.' },
    ])
    const engine = createEngine({
      hooks: [
        {
          name: 'rewrite',
          event: 'tool.pre',
          handler: {
            type: 'fn',
            fn: () => ({
              decision: 'modify',
              updatedInput: { command: 'echo rewritten > out.txt', description: 'write' },
            }),
          },
        },
      ],
    })
    await runClaude('write the file', server.url, where, { hooks: wardenHooks(engine) })
    expect(readFileSync(join(where.dir, 'out.txt'), 'utf8').trim()).toBe('rewritten')
  }, 60_000)

  it('rewrites a tool result before the model sees it, and prompt context reaches the model', async () => {
    const seen: string[] = []
    const { server, where } = await setup(() => [
      { tool: { name: 'Bash', input: { command: 'echo secret-token-123', description: 'print' } } },
      { text: 'Done.' },
    ])
    const engine = createEngine({
      hooks: [
        {
          name: 'redact',
          event: 'tool.post',
          handler: {
            type: 'fn',
            fn: () => ({
              decision: 'modify',
              updatedToolOutput: { stdout: '[redacted]', stderr: '', interrupted: false, isImage: false },
            }),
          },
        },
        {
          name: 'house-rules',
          event: 'user.message',
          handler: {
            type: 'fn',
            fn: () => {
              seen.push('user.message')
              return { decision: 'allow', additionalContext: 'House rule: never print tokens.' }
            },
          },
        },
      ],
    })
    await runClaude('print it', server.url, where, { hooks: wardenHooks(engine) })
    expect(seen).toEqual(['user.message'])
    expect(transcript(server.turns[0] as never)).toContain('House rule: never print tokens.')
    const results = toolResults(server.turns[1] as never).join('\n')
    expect(results).toContain('[redacted]')
    expect(results).not.toContain('secret-token-123')
  }, 60_000)

  it('blocks the prompt when the remote Warden is unreachable', async () => {
    const { server, where } = await setup(() => [{ text: 'should not be reached' }])
    const run = await runClaude('hello', server.url, where, { hooks: wardenHooks('http://127.0.0.1:9/aos') })
    expect(server.turns).toHaveLength(0)
    expect(JSON.stringify(run.messages)).toMatch(/remote Warden at .* could not be reached/)
  }, 60_000)

  it('blocks a prompt: the model is never called', async () => {
    const { server, where } = await setup(() => [{ text: 'should not be reached' }])
    const engine = createEngine({
      hooks: [
        {
          name: 'no-secrets',
          event: 'user.message',
          handler: { type: 'deny', reason: 'prompts may not carry secrets' },
        },
      ],
    })
    const run = await runClaude('my password is hunter2', server.url, where, { hooks: wardenHooks(engine) })
    expect(server.turns).toHaveLength(0)
    expect(JSON.stringify(run.messages)).toContain('prompts may not carry secrets')
  }, 60_000)

  it('hands a held ask to canUseTool, which asks the host', async () => {
    const { server, where } = await setup((dir) => [
      { tool: { name: 'Bash', input: { command: `echo yes > ${join(dir, 'asked')}`, description: 'x' } } },
      { text: 'Done.' },
    ])
    const engine = createEngine({
      hooks: [
        { name: 'confirm-bash', event: 'tool.pre', handler: { type: 'ask', reason: 'Bash needs a human' } },
      ],
    })
    const asked: string[] = []
    await runClaude('do it', server.url, where, {
      hooks: wardenHooks(engine),
      canUseTool: wardenCanUseTool(engine, {
        checkTool: false,
        onAsk: ({ reason }) => {
          asked.push(reason)
          return false
        },
      }),
    })
    expect(asked).toEqual(['Bash needs a human'])
    expect(existsSync(join(where.dir, 'asked'))).toBe(false)
    expect(toolResults(server.turns[1] as never).join('\n')).toContain('Bash needs a human; not approved')
  }, 60_000)
})

describe('Claude Agent SDK adapter: fail closed', () => {
  it('denies when the remote Warden is unreachable, naming the cause', async () => {
    const { server, where } = await setup((dir) => [
      { tool: { name: 'Bash', input: { command: `echo x > ${join(dir, 'ran')}`, description: 'x' } } },
      { text: 'Done.' },
    ])
    await runClaude('go', server.url, where, {
      hooks: wardenHooks('http://127.0.0.1:9/aos', { events: ['PreToolUse'] }),
    })
    expect(existsSync(join(where.dir, 'ran'))).toBe(false)
    expect(toolResults(server.turns[1] as never).join('\n')).toMatch(
      /remote Warden at .* could not be reached/,
    )
  }, 60_000)

  it('denies when a hook crashes inside the engine', async () => {
    const { server, where } = await setup((dir) => [
      { tool: { name: 'Bash', input: { command: `echo x > ${join(dir, 'ran')}`, description: 'x' } } },
      { text: 'Done.' },
    ])
    const engine = createEngine({
      hooks: [
        {
          name: 'broken',
          event: 'tool.pre',
          handler: {
            type: 'fn',
            fn: () => {
              throw new Error('policy store down')
            },
          },
        },
      ],
    })
    await runClaude('go', server.url, where, { hooks: wardenHooks(engine) })
    expect(existsSync(join(where.dir, 'ran'))).toBe(false)
    expect(toolResults(server.turns[1] as never).join('\n')).toContain('policy store down')
  }, 60_000)

  it('canUseTool denies when the remote Warden is too slow', async () => {
    const { server, where } = await setup((dir) => [
      { tool: { name: 'Bash', input: { command: `echo x > ${join(dir, 'ran')}`, description: 'x' } } },
      { text: 'Done.' },
    ])
    const { createServer } = await import('node:http')
    const silent = createServer(() => undefined)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const port = (silent.address() as { port: number }).port
    try {
      await runClaude('go', server.url, where, {
        allowedTools: [],
        canUseTool: wardenCanUseTool(`http://127.0.0.1:${port}/aos`, { remote: { timeoutMs: 300 } }),
      })
    } finally {
      silent.closeAllConnections()
      silent.close()
    }
    expect(existsSync(join(where.dir, 'ran'))).toBe(false)
    expect(toolResults(server.turns[1] as never).join('\n')).toContain('did not answer within 300 ms')
  }, 60_000)
})
