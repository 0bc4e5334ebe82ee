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
  return into
}
