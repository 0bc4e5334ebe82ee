// The command handler against real child processes: exit codes, every output dialect,
// the environment allowlist, timeouts that kill the whole process group, and floods.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createEngine, type HookDefinition } from '../../src/index.js'

const node = process.execPath

function nodeHook(
  name: string,
  script: string,
  extra: Partial<HookDefinition> = {},
  handler: Record<string, unknown> = {},
): HookDefinition {
  return {
    name,
    event: 'tool.pre',
    handler: { type: 'command', command: node, args: ['-e', script], ...handler },
    ...extra,
  }
}

const toolEvent = (
  input: Record<string, unknown> = { cmd: 'ls' },
  event = 'tool.pre',
  extra: Record<string, unknown> = {},
) => ({
  event,
  payload: { tool: { name: 'exec', input, ...extra } },
  context: { session: { id: 's1' }, cwd: '/work' },
})

const answer = (json: unknown) => `process.stdout.write(${JSON.stringify(JSON.stringify(json))})`

async function decide(hook: HookDefinition, event = toolEvent()) {
  const engine = createEngine({ hooks: [hook] })
  try {
    return await engine.dispatch(event)
  } finally {
    await engine.close()
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('command handler: the contract', () => {
  it('sends Claude Code style input with the canonical event on stdin', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-cmd-'))
    const out = join(dir, 'input.json')
    await decide(
      nodeHook(
        'capture',
        `require('fs').writeFileSync(${JSON.stringify(out)}, require('fs').readFileSync(0))`,
      ),
    )
    const input = JSON.parse(readFileSync(out, 'utf8'))
    expect(input).toMatchObject({
      hook_event_name: 'PreToolUse',
      session_id: 's1',
      cwd: '/work',
      tool_name: 'exec',
      tool_input: { cmd: 'ls' },
      warden: { event: 'tool.pre', payload: { tool: { name: 'exec', input: { cmd: 'ls' } } } },
    })
  })

  it('exit 0 with no JSON allows; exit 2 denies with stderr as the reason', async () => {
    expect((await decide(nodeHook('ok', 'process.stdout.write("all good")'))).decision).toBe('allow')
    const denied = await decide(
      nodeHook('no', 'process.stderr.write("rm is not allowed here\\n"); process.exit(2)'),
    )
    expect(denied).toMatchObject({ decision: 'deny', reason: 'rm is not allowed here', reasonCode: ['no'] })
  })

  it('exit 1 is an error: deny by default, allow with onError: allow', async () => {
    const script = 'process.stderr.write("config missing"); process.exit(1)'
    const denied = await decide(nodeHook('broken', script))
    expect(denied.decision).toBe('deny')
    expect(denied.reason).toBe('hook "broken" failed closed: the command exited with code 1: config missing')
    expect((await decide(nodeHook('broken', script, { onError: 'allow' }))).decision).toBe('allow')
  })

  it('a signal and an unparseable JSON answer are errors', async () => {
    const killed = await decide(nodeHook('suicide', 'process.kill(process.pid, "SIGTERM")'))
    expect(killed.reason).toMatch(/killed by SIGTERM/)
    const garbage = await decide(nodeHook('garbage', 'process.stdout.write("{ not json")'))
    expect(garbage.decision).toBe('deny')
    expect(garbage.reason).toMatch(/printed invalid JSON/)
  })

  it('a missing program is an error that names it', async () => {
    const decision = await decide({
      name: 'ghost',
      event: 'tool.pre',
      handler: { type: 'command', command: '/nonexistent/hook --flag' },
    })
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(/could not start \/nonexistent\/hook: spawn \/nonexistent\/hook ENOENT/)
  })
})

describe('command handler: output dialects', () => {
  const cases: [string, unknown, Record<string, unknown>][] = [
    [
      'Claude deny',
      {
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'deny',
          permissionDecisionReason: 'nope',
        },
      },
      { decision: 'deny', reason: 'nope' },
    ],
    [
      'Claude allow',
      { hookSpecificOutput: { permissionDecision: 'allow' } },
      { decision: 'allow', trace: [{ outcome: 'allow' }] },
    ],
    [
      'Claude defer (no opinion)',
      { hookSpecificOutput: { permissionDecision: 'defer' } },
      { decision: 'allow', trace: [{ outcome: 'abstain' }] },
    ],
    [
      'Claude ask',
      { hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: 'human please' } },
      { decision: 'deny', approval: { outcome: 'unavailable' } },
    ],
    [
      'Claude updatedInput',
      { hookSpecificOutput: { permissionDecision: 'allow', updatedInput: { cmd: 'ls -a' } } },
      { decision: 'modify', payload: { tool: { name: 'exec', input: { cmd: 'ls -a' } } } },
    ],
    [
      'Claude additionalContext',
      { hookSpecificOutput: { additionalContext: 'be careful' } },
      { decision: 'allow', additionalContext: ['be careful'] },
    ],
    [
      'Claude top-level block',
      { decision: 'block', reason: 'blocked at top level' },
      { decision: 'deny', reason: 'blocked at top level' },
    ],
    [
      'Claude continue false',
      { continue: false, stopReason: 'stop the agent' },
      { decision: 'deny', reason: 'stop the agent' },
    ],
    [
      'loom continue false',
      { continue: false, reason: 'loom says no' },
      { decision: 'deny', reason: 'loom says no' },
    ],
    [
      'loom output on tool.pre',
      { continue: true, output: { cmd: 'pwd' } },
      { decision: 'modify', payload: { tool: { name: 'exec', input: { cmd: 'pwd' } } } },
    ],
    [
      'GoClaw block',
      { decision: 'block', reason: 'goclaw blocked' },
      { decision: 'deny', reason: 'goclaw blocked' },
    ],
    [
      'loom additionalContext',
      { continue: true, additionalContext: ['remember the style guide'] },
      { decision: 'allow', additionalContext: ['remember the style guide'] },
    ],
    [
      'GoClaw allow with updatedInput',
      { decision: 'allow', reason: 'made safe', updatedInput: { cmd: 'true' } },
      {
        decision: 'modify',
        payload: { tool: { input: { cmd: 'true' } } },
        trace: [{ outcome: 'modify', reason: 'made safe' }],
      },
    ],
  ]
  it.each(cases)('%s', async (_label, output, expected) => {
    expect(await decide(nodeHook('dialect', answer(output)))).toMatchObject(expected)
  })

  it('loom and Claude output rewrite a tool result on tool.post', async () => {
    const post = toolEvent({ cmd: 'cat .env' }, 'tool.post', { output: 'SECRET=hunter2' })
    const loom = await decide(
      nodeHook('redact', answer({ continue: true, output: 'SECRET=[redacted]' }), { event: 'tool.post' }),
      post,
    )
    expect(loom).toMatchObject({ decision: 'modify', payload: { tool: { output: 'SECRET=[redacted]' } } })
    const claude = await decide(
      nodeHook('redact', answer({ hookSpecificOutput: { updatedToolOutput: 'x' } }), { event: 'tool.post' }),
      post,
    )
    expect(claude).toMatchObject({ decision: 'modify', payload: { tool: { output: 'x' } } })
  })

  it('an invalid permissionDecision is an error naming the field', async () => {
    const decision = await decide(
      nodeHook('bad', answer({ hookSpecificOutput: { permissionDecision: 'sure' } })),
    )
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(
      /hookSpecificOutput.permissionDecision must be allow, deny, ask or defer \(got "sure"\)/,
    )
  })
})

describe('command handler: isolation and limits', () => {
  it('empties the environment but for PATH, HOME and the allowlist', async () => {
    process.env.WARDEN_TEST_SECRET = 'hunter2'
    process.env.WARDEN_TEST_ALLOWED = 'visible'
    try {
      const envScript = 'process.stderr.write(JSON.stringify(process.env)); process.exit(2)'
      const decision = await decide(nodeHook('env', envScript, {}, { env: ['WARDEN_TEST_ALLOWED'] }))
      const env = JSON.parse(decision.reason)
      expect(env.WARDEN_TEST_SECRET).toBeUndefined()
      expect(env.WARDEN_TEST_ALLOWED).toBe('visible')
      expect(env.PATH).toBe(process.env.PATH)
      expect(Object.keys(env).filter((k) => !['PATH', 'HOME', 'WARDEN_TEST_ALLOWED'].includes(k))).toEqual([])
    } finally {
      delete process.env.WARDEN_TEST_SECRET
      delete process.env.WARDEN_TEST_ALLOWED
    }
  })

  it('runs no shell unless asked: metacharacters stay literal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-shell-'))
    const script = join(dir, 'args.mjs')
    writeFileSync(script, 'process.stderr.write(JSON.stringify(process.argv.slice(2))); process.exit(2)')
    const literal = await decide({
      name: 'lit',
      event: 'tool.pre',
      handler: { type: 'command', command: `${node} ${script} '$HOME' "a b" ';'` },
    })
    expect(JSON.parse(literal.reason)).toEqual(['$HOME', 'a b', ';'])
    const shell = await decide({
      name: 'sh',
      event: 'tool.pre',
      handler: { type: 'command', shell: true, command: 'echo "from $0" >&2; exit 2' },
    })
    expect(shell.reason).toBe('from /bin/sh')
  })

  it('a timeout denies and kills the whole process group, leaving no orphan', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-orphan-'))
    const pids = join(dir, 'pids')
    const script = `
      const { spawn } = require('child_process');
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
      require('fs').writeFileSync(${JSON.stringify(pids)}, JSON.stringify([process.pid, child.pid]));
      setInterval(() => {}, 1000);`
    const decision = await decide(nodeHook('hang', script, { timeoutMs: 1500 }))
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(/timed out after 1500 ms/)
    const [parent, grandchild] = JSON.parse(readFileSync(pids, 'utf8')) as [number, number]
    const deadline = Date.now() + 3000
    while ((alive(parent) || alive(grandchild)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50))
    expect(alive(parent)).toBe(false)
    expect(alive(grandchild)).toBe(false)
  })

  it('survives a stdout flood without stalling, keeping at most 1 MiB', async () => {
    const flood = 'const chunk = "x".repeat(65536); for (let i = 0; i < 800; i++) process.stdout.write(chunk)'
    const started = performance.now()
    const decision = await decide(nodeHook('flood', flood, { timeoutMs: 20_000 }))
    expect(decision.decision).toBe('allow')
    expect(performance.now() - started).toBeLessThan(20_000)
    const jsonFlood = `process.stdout.write("{" + "x".repeat(3 * 1024 * 1024))`
    const truncated = await decide(nodeHook('json-flood', jsonFlood, { timeoutMs: 20_000 }))
    expect(truncated.decision).toBe('deny')
    expect(truncated.reason).toMatch(/JSON output exceeded 1048576 bytes/)
    const errFlood =
      'const chunk = "e".repeat(65536); for (let i = 0; i < 800; i++) process.stderr.write(chunk); process.exit(2)'
    const denied = await decide(nodeHook('err-flood', errFlood, { timeoutMs: 20_000 }))
    expect(denied.decision).toBe('deny')
    expect(denied.reason).toBe('e'.repeat(2000))
  })
})
