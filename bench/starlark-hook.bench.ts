// A Starlark guard hook against the same logic as an `fn` hook, both dispatched through the
// engine in the same run: a 9-substring deny list checked against a shell command.

import { createScriptHandler, fnHandler } from '../src/handlers/index.js'
import {
  createEngine,
  type DispatchInput,
  type HookCall,
  type HookDefinition,
  type JsonObject,
  parseHookDefinition,
} from '../src/index.js'
import { type BenchResult, compare } from './lib.js'

const DENY = ['rm -rf', 'mkfs', 'dd if=', ':(){', 'shutdown', 'reboot', 'chmod -R 777', '| sh', '> /dev/sd']

const source = `
DENY = ${JSON.stringify(DENY)}

def handle(event, payload):
    command = payload["args"].get("command", "")
    for pattern in DENY:
        if pattern in command:
            return block("refused: " + pattern)
    return allow()
`

function guardFn({ event }: { event: { payload: { tool?: { input?: { command?: unknown } } } } }) {
  const command = event.payload.tool?.input?.command
  const text = typeof command === 'string' ? command : ''
  for (const pattern of DENY)
    if (text.includes(pattern)) return { type: 'deny', reason: `refused: ${pattern}` }
  return { type: 'allow' }
}

const event: DispatchInput = {
  event: 'tool.pre',
  payload: { tool: { name: 'exec', input: { command: 'ls -la /srv/app && git status --short' } } },
  context: { session: { id: 'bench' } },
}

function engineWith(hook: HookDefinition) {
  return createEngine({ handlers: [createScriptHandler(), fnHandler], hooks: [hook] })
}

/** Runs the benchmark. */
export default async function starlarkHook(): Promise<BenchResult[]> {
  const script = engineWith({ name: 'guard', event: 'tool.pre', handler: { type: 'script', source } })
  const fn = engineWith({ name: 'guard', event: 'tool.pre', handler: { type: 'fn', fn: guardFn } })
  const [a, b] = await Promise.all([script.dispatch(event), fn.dispatch(event)])
  if (a.decision !== 'allow' || b.decision !== 'allow') throw new Error('the two guards disagree')
  const { candidateNs, baselineNs } = await compare(
    () => script.dispatch(event),
    () => fn.dispatch(event),
    50_000,
  )
  await Promise.all([script.close(), fn.close()])
  const guard = guardOnly()
  const direct = await compare(guard.script, guard.fn, 200_000)
  return [
    {
      name: 'dispatch with a Starlark guard (9-substring deny list) vs the same guard as an fn hook',
      value: candidateNs / 1000,
      baseline: baselineNs / 1000,
      unit: 'us',
      goal: 'ratio <= 5',
      pass: candidateNs / baselineNs <= 5,
    },
    {
      name: 'the guard alone: the script executor (view, handle, decision) vs the fn',
      value: direct.candidateNs / 1000,
      baseline: direct.baselineNs / 1000,
      unit: 'us',
      goal: 'us <= 5',
      pass: direct.candidateNs / 1000 <= 5,
    },
  ]
}

/** The two executors called directly, without the engine around them. */
function guardOnly() {
  const spec = {
    ...parseHookDefinition({ name: 'guard', event: 'tool.pre', handler: { type: 'script', source } }),
  }
  const execute = createScriptHandler().prepare(spec.handler, spec)
  const call: HookCall = {
    event: { event: 'tool.pre', payload: event.payload as JsonObject, context: {} },
    hook: spec,
    signal: new AbortController().signal,
    log: () => undefined,
  }
  return { script: () => execute(call), fn: () => guardFn(call as never) }
}
