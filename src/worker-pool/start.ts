// Starting a pool's worker thread from its entry module, whether Warden runs compiled
// (`dist/`, a plain `.js` entry) or from its TypeScript sources (tests, `tsx`): there the
// thread first registers tsx's loader, then imports the `.ts` entry. Each worker gets a
// heap limit of its own, so a runaway job ends its worker, not the process.

import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { type MessagePort, Worker } from 'node:worker_threads'
import type { PoolWorkerData } from './pool.js'

/** Which hooks' work may leave the main thread: a tenant's (default), every hook's, or none. */
export type IsolateMode = 'tenant' | 'all' | 'none'

/** Whether a hook's work may move to a worker under `mode`. */
export function isolates(mode: IsolateMode, hook: { scope: { tenant?: string } }): boolean {
  return mode === 'all' || (mode === 'tenant' && hook.scope.tenant !== undefined)
}

/**
 * A pool's `start` function for a worker entry.
 * @param from `import.meta.url` of the module beside the entry
 * @param name the entry's file name without extension (`worker`, `script-worker`)
 * @param heapMb the old-generation heap a worker may use
 */
export function workerStarter(
  from: string,
  name: string,
  heapMb: number,
): (workerData: PoolWorkerData, transferList: MessagePort[]) => Worker {
  const fromSource = from.endsWith('.ts')
  const entry = new URL(`./${name}${fromSource ? '.ts' : '.js'}`, from)
  return (workerData, transferList) => {
    const options = { workerData, transferList, resourceLimits: { maxOldGenerationSizeMb: heapMb } }
    if (!fromSource) return new Worker(entry, options)
    const tsx = createRequire(from)
      .resolve('tsx/package.json')
      .replace(/package\.json$/, 'dist/esm/api/index.mjs')
    const boot = `import(${JSON.stringify(pathToFileURL(tsx).href)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}) })`
    return new Worker(boot, { ...options, eval: true, execArgv: [] })
  }
}
