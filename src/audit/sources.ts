// Where a decision's hooks came from: the files and folders `warden serve` loaded them from
// (`--config`, `--goclaw`, `--hooks`, `--claude-settings`, `--profile`, as absolute paths).
// Recorded with every decision's input, so that `warden replay` loads the same sources
// again instead of replaying against a config alone.

import type { JsonObject } from '../core/index.js'

/** The hook sources of a running Warden. */
export interface HookSources {
  config?: string
  goclaw?: string[]
  hooks?: string[]
  claudeSettings?: string[]
  profiles?: string[]
}

const LISTS = ['goclaw', 'hooks', 'claudeSettings', 'profiles'] as const

/** The sources as they are recorded, or undefined when there is nothing to record. */
export function sourcesRecord(sources: HookSources): JsonObject | undefined {
  const out: JsonObject = {}
  if (sources.config) out.config = sources.config
  for (const key of LISTS) {
    const list = sources[key]
    if (list && list.length > 0) out[key] = [...list]
  }
  return Object.keys(out).length > 0 ? out : undefined
}

/** The sources recorded in a decision's input, if any (anything malformed is ignored). */
export function recordedSources(input: unknown): HookSources | undefined {
  if (typeof input !== 'object' || input === null) return undefined
  const raw = (input as { sources?: unknown }).sources
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined
  const record = raw as Record<string, unknown>
  const sources: HookSources = {}
  if (typeof record.config === 'string' && record.config !== '') sources.config = record.config
  for (const key of LISTS) {
    const list = record[key]
    if (Array.isArray(list) && list.every((p) => typeof p === 'string')) sources[key] = list as string[]
  }
  return sourcesRecord(sources) ? sources : undefined
}

/** The sources as the command-line flags that load them (for messages). */
export function sourcesAsFlags(sources: HookSources): string {
  const flags: string[] = []
  if (sources.config) flags.push(`--config ${sources.config}`)
  for (const path of sources.goclaw ?? []) flags.push(`--goclaw ${path}`)
  for (const path of sources.hooks ?? []) flags.push(`--hooks ${path}`)
  for (const path of sources.claudeSettings ?? []) flags.push(`--claude-settings ${path}`)
  for (const path of sources.profiles ?? []) flags.push(`--profile ${path}`)
  return flags.join(' ')
}
