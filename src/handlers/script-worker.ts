// The entry of a script worker thread: compiles each hook's script once (kept by its key),
// runs one event through `when` and `handle` under the hook's full limits, and answers
// with the verdict, the failure or the http request to make. Counters, cache entries and
// the loaded hooks live on the main thread: the worker reads them through host calls
// answered for the run's own tenant, and sends its writes back to be committed there.

import type { CheckedEvent, Json } from '../core/index.js'
import { type HostCall, serveJobs } from '../worker-pool/index.js'
import type { RunState } from './script-builtins.js'
import type { HostOp, ScriptJob, ScriptJobResult } from './script-job.js'
import { attemptRun, type Prepared, prepareScript, problemOf, problemText } from './script-run.js'
import { type MapView, StagedWrites, type StateSource, type WriteSet } from './script-state.js'
import { payloadView } from './script-view.js'

/** Most compiled scripts a worker keeps; the oldest is dropped first. */
const MAX_PREPARED = 256
const prepared = new Map<string, Prepared>()

function preparedFor(job: ScriptJob): Prepared {
  const known = prepared.get(job.key)
  if (known) return known
  let made: Prepared
  try {
    made = prepareScript(job.config, job.hookName, job.limits)
  } catch (error) {
    throw new Error(`hook "${job.hookName}": ${problemOf(error, job.config).message}`)
  }
  prepared.set(job.key, made)
  if (prepared.size > MAX_PREPARED) {
    const oldest = prepared.keys().next().value
    if (oldest !== undefined) prepared.delete(oldest)
  }
  return made
}

/** A map on the main thread, read through host calls. */
function remoteMap<V>(host: HostCall, kind: 'metrics' | 'cache'): MapView<V> {
  const call = (op: HostOp, args: unknown[]) => host(op, args)
  return {
    get: (key) => {
      const entry = call(`${kind}.get`, [key]) as V[]
      return entry.length > 0 ? entry[0] : undefined
    },
    has: (key) => call(`${kind}.has`, [key]) === true,
    get size() {
      return Number(call(`${kind}.size`, []))
    },
    keys: () => call(`${kind}.keys`, []) as string[],
  }
}

function runJob(job: ScriptJob, host: HostCall): ScriptJobResult {
  const script = preparedFor(job)
  const event = { ...job.event, id: '' } as unknown as CheckedEvent
  let view = payloadView(event)
  if (job.turnLogs && view.logs === undefined) view = { ...view, logs: job.turnLogs }
  let writes: WriteSet = { deltas: [], values: [], cache: [] }
  const source: StateSource = {
    metrics: () => remoteMap<number>(host, 'metrics'),
    cache: () => remoteMap<Json>(host, 'cache'),
    apply: (_tenant, _run, made) => {
      writes = made
    },
  }
  const run: RunState = {
    staged: new StagedWrites(source, '', ''),
    logs: [],
    context: job.event.context,
    answers: job.answers,
    httpIndex: 0,
    checkUrl: (url) => (host('http.check', [url]) ?? undefined) as string | undefined,
    loadedHooks: () => host('hooks.list', []) as ReturnType<RunState['loadedHooks']>,
  }
  const outcome = attemptRun(script, event, view, run, job.limits)
  if (outcome.type === 'pending') return { type: 'pending', request: outcome.request }
  run.staged.commit()
  if (outcome.type === 'failed')
    return { type: 'failed', message: problemText(outcome.error, script), logs: run.logs, writes }
  return { type: 'verdict', verdict: outcome.verdict, logs: run.logs, writes }
}

serveJobs((message, host) => runJob(message as ScriptJob, host))
