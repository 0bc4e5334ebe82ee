// What every file-based hook source (hook folders, Claude Code settings, agent.json
// profiles) hands back: the hook definitions it could build, the problems that stop a
// file from loading, and the warnings that do not. Each carries a file:line:col position.

import type { HookDefinition } from '../core/index.js'

/** One problem or warning found in a hook source, with its position when known. */
export interface SourceProblem {
  file: string
  /** 1-based line in the file, when known. */
  line?: number
  /** 1-based column in the file, when known. */
  col?: number
  message: string
}

/** The outcome of loading one hook source. */
export interface SourceReport {
  hooks: HookDefinition[]
  /** Problems that kept a hook (or the whole file) from loading. */
  problems: SourceProblem[]
  /** Things worth fixing that did not keep anything from loading (unknown keys, ...). */
  warnings: SourceProblem[]
  /** Monthly LLM judge token budgets by tenant (GoClaw's `budget_total`), when a source sets them. */
  tokenBudgets?: Record<string, number>
}

/** An empty report. */
export function emptyReport(): SourceReport {
  return { hooks: [], problems: [], warnings: [] }
}

/** Formats a problem as `file:line:col: message` (the position parts only when known). */
export function formatProblem(problem: SourceProblem): string {
  let where = problem.file
  if (problem.line !== undefined) {
    where += `:${problem.line}`
    if (problem.col !== undefined) where += `:${problem.col}`
  }
  return `${where}: ${problem.message}`
}

/** Appends the hooks, problems and warnings of `next` to `into`; returns `into`. */
export function mergeReports(into: SourceReport, next: SourceReport): SourceReport {
  into.hooks.push(...next.hooks)
  into.problems.push(...next.problems)
  into.warnings.push(...next.warnings)
  if (next.tokenBudgets) into.tokenBudgets = { ...into.tokenBudgets, ...next.tokenBudgets }
  return into
}

/** A JSON object read from a hook source. */
export type JsonRecord = Record<string, unknown>

/** Whether a value is a JSON object (not null, not a list). */
export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** How {@link readHooksSection} names the file kind in its messages. */
export interface HooksSectionWording {
  /** e.g. "the settings file" or "the profile". */
  what: string
  /** An example of the whole file, for the "must be an object" message. */
  example: string
  /** What `hooks` must hold, for its "must be an object" message. */
  hooksShape: string
}

/**
 * Parses a JSON hook source and returns its top-level object and `hooks` section, or
 * undefined after recording in `report` why nothing can be loaded from it.
 */
export function readHooksSection(
  text: string,
  file: string,
  report: SourceReport,
  wording: HooksSectionWording,
): { data: JsonRecord; hooks: JsonRecord } | undefined {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    report.problems.push({ file, message: `not valid JSON: ${(error as Error).message}` })
    return undefined
  }
  if (!isRecord(data)) {
    report.problems.push({
      file,
      message: `${wording.what} must be a JSON object such as ${wording.example}`,
    })
    return undefined
  }
  if (data.hooks === undefined) {
    report.warnings.push({
      file,
      message: `${wording.what} has no "hooks" section; no hooks were loaded from it`,
    })
    return undefined
  }
  if (!isRecord(data.hooks)) {
    report.problems.push({ file, message: `"hooks" must be an object ${wording.hooksShape}` })
    return undefined
  }
  return { data, hooks: data.hooks }
}
