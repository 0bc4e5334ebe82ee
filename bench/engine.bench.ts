// Engine benchmarks: the cost of a dispatch with no hook, of a 10-hook stack with regex
// matchers and CEL conditions (2 matching), and of a command hook against a bare spawn.

import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createEngine, type HookDefinition } from '../src/index.js'
import { type BenchResult, compare } from './lib.js'

const event = {
  event: 'tool.pre',
  payload: { tool: { name: 'exec', input: { cmd: 'rm -rf /tmp/x' } } },
  context: { session: { id: 's' } },
}

async function noHook(): Promise<BenchResult> {
  const engine = createEngine({ hooks: [] })
  const check = await engine.dispatch(event)
  if (check.decision !== 'allow' || check.id === (await engine.dispatch(event)).id)
    throw new Error('expected an allow with a fresh decision id per dispatch')
  // The baseline: a real no-op async function, called and awaited in the same loop.
  const noop = async (_x: unknown) => undefined
  const { candidateNs, baselineNs } = await compare(
    () => engine.dispatch(event),
    () => noop(event),
    200_000,
  )
  return {
    name: 'dispatch, no hook for the event, vs a no-op async call',
    value: candidateNs,
    baseline: baselineNs,
    unit: 'ns',
    goal: 'ratio <= 2',
    pass: candidateNs / baselineNs <= 2,
  }
}

async function tenHooks(): Promise<BenchResult> {
  let calls = 0
  const allowFn = () => {
    calls++
    return undefined
  }
  const hooks: HookDefinition[] = []
  const tools = [
    'write_file',
    'read_file',
    'http_get',
    'sql_query',
    'send_email',
    'deploy',
    'git_push',
    'delete_user',
  ]
  tools.forEach((tool, i) => {
    hooks.push({
      name: `guard-${tool}`,
      event: 'tool.pre',
      priority: i,
      matcher: `^(${tool}|${tool}_v2)$`,
      if: `size(tool_input) > 0`,
      handler: { type: 'fn', fn: allowFn },
    })
  })
  hooks.push({
    name: 'exec-rm',
    event: 'tool.pre',
    priority: 20,
    matcher: '^(exec|shell)$',
    if: "tool_input.cmd.contains('rm') && depth < 3",
    handler: { type: 'fn', fn: allowFn },
  })
  hooks.push({
    name: 'exec-any',
    event: 'tool.pre',
    priority: 21,
    matcher: 'ex.c',
    if: "tool_name == 'exec'",
    handler: { type: 'fn', fn: allowFn },
  })
  const engine = createEngine({ hooks })
  const check = await engine.dispatch(event)
  if (check.trace.filter((t) => t.outcome !== 'skipped').length !== 2)
    throw new Error('expected exactly 2 hooks to run')
  const direct = () => {
    allowFn()
    allowFn()
  }
  const { candidateNs, baselineNs } = await compare(() => engine.dispatch(event), direct, 50_000)
  if (calls === 0) throw new Error('hooks did not run')
  const us = candidateNs / 1000
  return {
    name: '10 fn hooks with regex matchers and CEL if, 2 matching (per dispatch) vs calling the 2 functions directly',
    value: us,
    baseline: baselineNs / 1000,
    unit: 'us',
    goal: 'us <= 10',
    pass: us <= 10,
  }
}

function bareSpawn(script: string, input: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(script, [], { stdio: ['pipe', 'pipe', 'pipe'] })
    child.stdout.resume()
    child.stderr.resume()
    child.on('error', reject)
    child.on('close', () => resolve())
    child.stdin.end(input)
  })
}

async function commandHook(): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'warden-bench-'))
  const script = join(dir, 'hook.sh')
  writeFileSync(script, '#!/bin/sh\ncat > /dev/null\nexit 0\n', { mode: 0o755 })
  const engine = createEngine({
    hooks: [{ name: 'sh', event: 'tool.pre', handler: { type: 'command', command: script } }],
  })
  const input = JSON.stringify(event)
  const { candidateNs, baselineNs } = await compare(
    () => engine.dispatch(event),
    () => bareSpawn(script, input),
    150,
    3,
  )
  const ratio = candidateNs / baselineNs
  return {
    name: 'command hook (sh script) vs a bare child_process.spawn of the same script',
    value: candidateNs / 1e6,
    baseline: baselineNs / 1e6,
    unit: 'ms',
    goal: 'ratio <= 1.2',
    pass: ratio <= 1.2,
  }
}

/** Runs the engine benchmarks. */
export default async function run(): Promise<BenchResult[]> {
  return [await noHook(), await tenHooks(), await commandHook()]
}
