// Watching a hook folder: a changed file is reloaded, a new one added, a deleted one
// removed; a file that breaks is reported and its previous good version kept, so a typo in
// an editor never switches a policy off. `attachHookDir` applies the changes to an engine.

import { type FSWatcher, watch } from 'node:fs'
import { resolve } from 'node:path'
import { type Engine, errorMessage, type HookDefinition } from '../core/index.js'
import { type HookFileResult, listHookFiles, loadHookFile } from './hook-files.js'
import type { SourceProblem, SourceReport } from './hook-files-report.js'

/** What changed in a watched folder, with the folder's whole current state. */
export interface HookDirChange extends SourceReport {
  /** Names of hooks added or replaced by a new version. */
  updated: string[]
  /** Ids (name, or tenant/name) of hooks whose file was deleted or whose id changed. */
  removed: string[]
  /** Files that are broken now; the hooks they held keep their previous version. */
  broken: string[]
}

/** A running folder watch. */
export interface HookDirWatcher {
  /** The current hooks (last good version of each file) with current problems. */
  current(): SourceReport
  /** Scans the folder now (the watcher also does it on its own). */
  rescan(): Promise<HookDirChange | undefined>
  close(): void
}

/** Options of {@link watchHookDir}. */
export interface WatchOptions {
  /** Wait after a file event before rescanning, so an editor's burst of writes is one reload (ms, default 100). */
  debounceMs?: number
  /** Also rescan at this interval, for file systems without change events (ms, default 2000; 0 = off). */
  pollMs?: number
  /** Called when a scan itself fails (the folder vanished, ...). */
  onError?: (error: unknown) => void
}

interface FileState {
  text: string | undefined
  /** The last good hook of the file, kept while the file is broken. */
  hook: HookDefinition | undefined
  problems: SourceProblem[]
  warnings: SourceProblem[]
}

/**
 * Loads a hook folder and watches it. `onChange` is called after every scan that changed
 * something (never for the initial load, whose result `current()` gives).
 */
export async function watchHookDir(
  dir: string,
  onChange: (change: HookDirChange) => void,
  options: WatchOptions = {},
): Promise<HookDirWatcher> {
  const folder = resolve(dir)
  const files = new Map<string, FileState>()
  let scanning: Promise<HookDirChange | undefined> | undefined
  let again = false
  let closed = false

  const current = (): SourceReport => {
    const report: SourceReport = { hooks: [], problems: [], warnings: [] }
    for (const state of [...files.values()]) {
      if (state.hook) report.hooks.push(state.hook)
      report.problems.push(...state.problems)
      report.warnings.push(...state.warnings)
    }
    return report
  }

  async function scanOnce(): Promise<HookDirChange | undefined> {
    const names = await listHookFiles(folder)
    const updated: string[] = []
    const removed: string[] = []
    const broken: string[] = []
    let problemsChanged = false
    for (const file of names) {
      const previous = files.get(file)
      const result: HookFileResult = await loadHookFile(file)
      if (previous && result.text !== undefined && previous.text === result.text) continue
      const next: FileState = {
        text: result.text,
        hook: result.hook ?? previous?.hook,
        problems: result.problems,
        warnings: result.warnings,
      }
      if (result.hook) updated.push(result.hook.name)
      if (result.hook && previous?.hook && hookId(previous.hook) !== hookId(result.hook))
        removed.push(hookId(previous.hook))
      if (result.problems.length > 0) broken.push(file)
      if (result.problems.length > 0 || (previous?.problems.length ?? 0) > 0) problemsChanged = true
      files.set(file, next)
    }
    const present = new Set(names)
    for (const [file, state] of [...files]) {
      if (present.has(file)) continue
      files.delete(file)
      if (state.hook) removed.push(hookId(state.hook))
      if (state.problems.length > 0) problemsChanged = true
    }
    if (updated.length === 0 && removed.length === 0 && !problemsChanged) return undefined
    return { ...current(), updated, removed, broken }
  }

  async function scan(): Promise<HookDirChange | undefined> {
    if (scanning) {
      again = true
      return scanning
    }
    scanning = (async () => {
      let change: HookDirChange | undefined
      do {
        again = false
        try {
          const next = await scanOnce()
          if (next) change = next
        } catch (error) {
          options.onError?.(error)
        }
      } while (again && !closed)
      return change
    })()
    try {
      const change = await scanning
      if (change && !closed) onChange(change)
      return change
    } finally {
      scanning = undefined
    }
  }

  await scanOnce()
  const debounceMs = options.debounceMs ?? 100
  let timer: ReturnType<typeof setTimeout> | undefined
  const schedule = () => {
    if (closed) return
    clearTimeout(timer)
    timer = setTimeout(() => void scan(), debounceMs)
    timer.unref?.()
  }
  let watcher: FSWatcher | undefined
  try {
    watcher = watch(folder, { persistent: false }, schedule)
    watcher.on('error', (error) => options.onError?.(error))
  } catch (error) {
    options.onError?.(error)
  }
  const pollMs = options.pollMs ?? 2000
  const poll = pollMs > 0 ? setInterval(schedule, pollMs) : undefined
  poll?.unref?.()
  return {
    current,
    rescan: scan,
    close() {
      closed = true
      clearTimeout(timer)
      if (poll) clearInterval(poll)
      watcher?.close()
    },
  }
}

/** A hook's id in the engine: its name, or tenant/name when scoped to a tenant. */
export function hookId(hook: HookDefinition): string {
  return hook.scope?.tenant ? `${hook.scope.tenant}/${hook.name}` : hook.name
}

/** What {@link attachHookDir} reports after applying a change. */
export interface AttachReport {
  change: HookDirChange
  /** Hooks the engine refused (e.g. a name another source already uses). */
  refused: SourceProblem[]
}

/**
 * Registers a hook folder's hooks with an engine and keeps them in step with the folder:
 * changed files replace their hook, deleted files unregister theirs, broken files keep the
 * previous version. Returns the watcher and the problems of the initial load.
 */
export async function attachHookDir(
  engine: Engine,
  dir: string,
  options: WatchOptions & { onReport?: (report: AttachReport) => void } = {},
): Promise<{ watcher: HookDirWatcher; initial: SourceReport; refused: SourceProblem[] }> {
  const folder = resolve(dir)
  const apply = (hooks: HookDefinition[], removed: string[]): SourceProblem[] => {
    const refused: SourceProblem[] = []
    for (const id of removed) engine.unregister(id)
    for (const hook of hooks) {
      try {
        engine.register(hook, { replace: true })
      } catch (error) {
        refused.push({
          file: hook.source?.replace(/^hook-file:/, '') ?? folder,
          message: errorMessage(error),
        })
      }
    }
    return refused
  }
  const watcher = await watchHookDir(
    folder,
    (change) => {
      const updated = new Set(change.updated)
      const refused = apply(
        change.hooks.filter((h) => updated.has(h.name)),
        change.removed,
      )
      options.onReport?.({ change, refused })
    },
    options,
  )
  const initial = watcher.current()
  const refused = apply(initial.hooks, [])
  return { watcher, initial, refused }
}
