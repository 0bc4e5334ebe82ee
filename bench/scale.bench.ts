// How Warden's cost grows with its work, each figure a ratio against a baseline measured in
// the same run: dispatch with 10 to 10,000 hooks registered (over 1,000 tenants, 200 tool
// names, every event) while the same 7 apply, against only those 7; registering, replacing
// and removing one hook among 10,000; a tool.pre with a 1 KB to 1 MB tool input through 7
// CEL/regex hooks and one Starlark hook, against JSON.parse of the same body; and the RSS
// that 10,000 hooks add. Draws the curves to docs/scale.svg.

import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { createScriptHandler } from '../src/handlers/index.js'
import {
  CANONICAL_EVENTS,
  createEngine,
  type DispatchInput,
  type Engine,
  type HookDefinition,
} from '../src/index.js'
import { type BenchResult, compare, fmt } from './lib.js'
import { type Curve, scaleChart } from './scale-chart.js'

const HOOK_GOAL = 1.3
const PAYLOAD_GOAL = 3
const CHANGE_GOAL_MS = 1
const MEMORY_GOAL_MB = 100
const TENANTS = 1000
const TOOLS = 200

const abstain = () => undefined

/** The 7 hooks that apply to the dispatched event: regex and exact matchers, CEL conditions. */
function applying(): HookDefinition[] {
  const hook = (
    name: string,
    matcher: string | undefined,
    condition: string | undefined,
  ): HookDefinition => ({
    name,
    event: 'tool.pre',
    ...(matcher ? { matcher } : {}),
    ...(condition ? { if: condition } : {}),
    handler: { type: 'fn', fn: abstain },
  })
  return [
    hook('writes', '^(write_file|edit_file)$', 'size(tool_input) > 0'),
    hook('paths', 'write_file', "!tool_input.path.startsWith('/etc/')"),
    hook('depth', '.*_file', 'depth < 3'),
    hook('tenant', undefined, "tenant == 'tenant-7'"),
    hook('secrets', 'write_file|edit_file', "!tool_input.path.endsWith('.pem')"),
    hook('names', '^write_', "tool_name != 'exec'"),
    hook('always', undefined, undefined),
  ]
}

/** Hooks that do not apply: spread over tenants, tools, agents and every event. */
function others(count: number): HookDefinition[] {
  const events = [...CANONICAL_EVENTS, 'custom.deploy']
  const hooks: HookDefinition[] = []
  for (let i = 0; i < count; i++) {
    const event = events[i % events.length] as string
    const tenant = `tenant-${(i * 7919) % TENANTS}`
    const hook: HookDefinition = {
      name: `h-${i}`,
      event,
      priority: i % 5,
      scope: i % 10 === 3 ? { tenant, agents: [`agent-${i % 50}`] } : { tenant },
      if: `depth < ${1 + (i % 4)}`,
      handler: i % 10 === 0 ? { type: 'deny', reason: 'no' } : { type: 'fn', fn: abstain },
    }
    if (event.startsWith('tool.') || event.startsWith('mcp.')) hook.matcher = `tool-${i % TOOLS}`
    hooks.push(hook)
  }
  return hooks
}

/** The dispatched event: tenant-7's agent writes a file (tenant-7 has hooks of its own). */
function writeEvent(content: string): DispatchInput {
  return {
    event: 'tool.pre',
    payload: { tool: { name: 'write_file', input: { path: 'src/app.ts', content } } },
    context: { tenantId: 'tenant-7', agent: { id: 'agent-3' }, session: { id: 's' } },
  }
}

async function ran(engine: Engine, input: DispatchInput): Promise<number> {
  const decision = await engine.dispatch(input)
  if (decision.decision !== 'allow')
    throw new Error(`expected allow, got ${decision.decision}: ${decision.reason}`)
  return decision.trace.filter((t) => t.outcome !== 'skipped').length
}

async function hookCurve(): Promise<{ results: BenchResult[]; curve: Curve }> {
  const input = writeEvent('export const x = 1\n')
  const only = createEngine({ hooks: applying() })
  if ((await ran(only, input)) !== 7) throw new Error('expected the 7 hooks to run')
  const results: BenchResult[] = []
  const points: Curve['points'] = []
  for (const total of [10, 100, 1000, 10_000]) {
    const engine = createEngine({ hooks: [...applying(), ...others(total - 7)] })
    if ((await ran(engine, input)) !== 7) throw new Error(`expected the same 7 hooks to run with ${total}`)
    const traced = (await engine.dispatch(input)).trace.length
    const { candidateNs, baselineNs } = await compare(
      () => engine.dispatch(input),
      () => only.dispatch(input),
      20_000,
    )
    const ratio = candidateNs / baselineNs
    points.push({ x: total, ratio })
    results.push({
      name: `dispatch with ${total} hooks registered, the same 7 applying, vs only the 7`,
      value: candidateNs / 1000,
      baseline: baselineNs / 1000,
      unit: 'us',
      goal: `ratio <= ${HOOK_GOAL}`,
      pass: ratio <= HOOK_GOAL,
      extra: { 'in trace': traced },
    })
    if (total === 10_000) results.push(changeOne(engine))
  }
  return { results, curve: { title: 'hooks registered (7 apply)', goal: HOOK_GOAL, points } }
}

/** Register a new hook, replace it, remove it: each among 10,000, against the same on an empty engine. */
function changeOne(engine: Engine): BenchResult {
  const empty = createEngine({ hooks: [] })
  const definition = (i: number, version: number): HookDefinition => ({
    name: `change-${i}`,
    event: 'tool.pre',
    matcher: 'write_file',
    if: `tool_input.path.startsWith('/srv/${i}/v${version}')`,
    version,
    scope: { tenant: `tenant-${i % TENANTS}` },
    handler: { type: 'fn', fn: abstain },
  })
  const cycle = (target: Engine, rounds: number): number => {
    const started = performance.now()
    for (let i = 0; i < rounds; i++) {
      target.register(definition(i, 1))
      target.register(definition(i, 2), { replace: true })
      target.unregister(`tenant-${i % TENANTS}/change-${i}`)
    }
    return ((performance.now() - started) * 1000) / (rounds * 3)
  }
  cycle(empty, 200)
  cycle(engine, 200)
  let base = Number.POSITIVE_INFINITY
  let big = Number.POSITIVE_INFINITY
  for (let r = 0; r < 3; r++) {
    base = Math.min(base, cycle(empty, 300))
    big = Math.min(big, cycle(engine, 300))
  }
  return {
    name: 'register, replace or unregister one hook among 10,000 (per change, validation and CEL compile included) vs on an empty engine',
    value: big,
    baseline: base,
    unit: 'us',
    goal: `ms <= ${CHANGE_GOAL_MS}`,
    pass: big <= CHANGE_GOAL_MS * 1000,
  }
}

/**
 * File content whose JSON form is about `bytes` bytes: source lines with quotes, tabs and a
 * few non-ASCII letters, so that both escaping and UTF-8 take part.
 */
function content(bytes: number): string {
  const line = '\tconst greeting = "héllo, wörld" // a \'quoted\' comment with a path C:\\tmp\n'
  const encoded = new TextEncoder().encode(JSON.stringify(line)).length - 2
  return line.repeat(Math.max(1, Math.floor(bytes / encoded)))
}

const STARLARK = `
def handle(event, payload):
    path = payload["args"].get("path", "")
    if path.startswith("/etc/"):
        return block("system files are off limits")
    return allow()
`

async function payloadCurve(): Promise<{ results: BenchResult[]; curve: Curve }> {
  const hooks: HookDefinition[] = [
    ...applying(),
    { name: 'starlark', event: 'tool.pre', handler: { type: 'script', source: STARLARK } },
  ]
  const engine = createEngine({ hooks, handlers: [createScriptHandler()] })
  const results: BenchResult[] = []
  const points: Curve['points'] = []
  for (const [label, bytes] of [
    ['1 KB', 1000],
    ['10 KB', 10_000],
    ['100 KB', 100_000],
    ['1 MB', 1_000_000],
  ] as const) {
    const input = writeEvent(content(bytes))
    const body = JSON.stringify(input)
    if ((await ran(engine, input)) !== 8) throw new Error('expected the 8 hooks to run')
    const iterations = Math.max(20, Math.round(2_000_000 / bytes))
    const { candidateNs, baselineNs } = await compare(
      () => engine.dispatch(input),
      () => JSON.parse(body),
      iterations,
    )
    const ratio = candidateNs / baselineNs
    const goal = bytes >= 100_000
    points.push({ x: bytes, ratio, judged: goal })
    results.push({
      name: `tool.pre with a ${label} tool input through 7 CEL/regex hooks and 1 Starlark hook vs JSON.parse of the body`,
      value: candidateNs / 1000,
      baseline: baselineNs / 1000,
      unit: 'us',
      goal: goal ? `ratio <= ${PAYLOAD_GOAL}` : 'none (small payloads: fixed costs dominate)',
      pass: !goal || ratio <= PAYLOAD_GOAL,
    })
  }
  await engine.close()
  return { results, curve: { title: 'tool input size (8 hooks)', goal: PAYLOAD_GOAL, points } }
}

/** RSS after a full GC, in MB. */
function settledRss(gc: () => void): number {
  for (let i = 0; i < 3; i++) gc()
  return process.memoryUsage().rss / 1e6
}

function memory(): BenchResult {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void
  const empty = createEngine({ hooks: [] })
  const before = settledRss(gc)
  const engine = createEngine({ hooks: [...applying(), ...others(10_000 - 7)] })
  const after = settledRss(gc)
  if (engine.hooks().length !== 10_000 || empty.hooks().length !== 0) throw new Error('hooks missing')
  const added = after - before
  return {
    name: 'RSS with 10,000 hooks registered (matcher, CEL if, tenant scope) vs an empty engine',
    value: after,
    baseline: before,
    unit: 'MB',
    goal: `added MB <= ${MEMORY_GOAL_MB}`,
    pass: added <= MEMORY_GOAL_MB,
    extra: { 'added MB': added },
  }
}

/** Runs the scale benchmarks and draws docs/scale.svg. */
export default async function scale(): Promise<BenchResult[]> {
  const rss = memory()
  const hooks = await hookCurve()
  const payload = await payloadCurve()
  const svg = scaleChart([hooks.curve, payload.curve])
  const target = fileURLToPath(new URL('../docs/scale.svg', import.meta.url))
  writeFileSync(target, svg)
  for (const curve of [hooks.curve, payload.curve]) {
    const line = curve.points.map(
      (p) => `${p.x}: ${fmt(p.ratio)}x${p.judged !== false && p.ratio > curve.goal ? ' MISS' : ''}`,
    )
    process.stdout.write(`\n${curve.title} (goal <= ${curve.goal}x): ${line.join(', ')}`)
  }
  process.stdout.write('\n')
  return [rss, ...hooks.results, ...payload.results]
}
