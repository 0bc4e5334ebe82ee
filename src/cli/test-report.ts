// What `warden test` reports: each case's outcome checked against what it expects (with a
// diff of what came out vs what was expected), JUnit XML for CI, and coverage — which hooks
// no case made fire and which never denied or modified, per source file, as
// `opa test --coverage` reports rules.

import type { Decision, HookSpec } from '../core/index.js'
import type { Expectation, TestCase } from './test-files.js'

/** A case's result. */
export interface CaseResult {
  testCase: TestCase
  /** The problems found: empty when the case passed. */
  failures: string[]
  /** Why the case could not run (a bad event), instead of failures. */
  error?: string
  durationMs: number
}

/** The decision a case sees: a held ask counts as `ask`, whatever was answered. */
export function outcomeOf(decision: Decision): Expectation['decision'] {
  return decision.approval ? 'ask' : decision.decision
}

/** Checks a decision against what the case expects; the failures say expected vs got. */
export function checkCase(expect: Expectation, decision: Decision): string[] {
  const failures: string[] = []
  const got = outcomeOf(decision)
  if (expect.decision !== undefined && expect.decision !== got)
    failures.push(`decision: expected ${expect.decision}, got ${got} (${decision.reason})`)
  if (expect.reason !== undefined && !new RegExp(expect.reason).test(decision.reason))
    failures.push(`reason: expected to match /${expect.reason}/, got "${decision.reason}"`)
  if (expect.payload !== undefined) {
    const actual = decision.decision === 'modify' ? decision.payload : undefined
    if (actual === undefined) failures.push(`payload: expected a modified payload, got none (${got})`)
    else {
      const diff = lineDiff(stableJson(expect.payload), stableJson(actual))
      if (diff) failures.push(`payload: differs (- expected, + got):\n${diff}`)
    }
  }
  for (const text of expect.context ?? []) {
    if (!decision.additionalContext.some((line) => line.includes(text))) {
      const said = decision.additionalContext.length
        ? decision.additionalContext.map((l) => JSON.stringify(l)).join(', ')
        : 'none'
      failures.push(`context: expected a line containing "${text}", got ${said}`)
    }
  }
  return failures
}

/** JSON with sorted keys, two-space indented, for a stable diff. */
function stableJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort)
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.keys(v as object)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      )
    return v
  }
  return JSON.stringify(sort(value), null, 2)
}

/** A line diff (longest common subsequence) with `-` expected and `+` got lines; '' when equal. */
export function lineDiff(expected: string, actual: string): string {
  const a = expected.split('\n')
  const b = actual.split('\n')
  if (a.length * b.length > 4_000_000) return expected === actual ? '' : `    - ${expected}\n    + ${actual}`
  const n = a.length
  const m = b.length
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0))
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      (lcs[i] as number[])[j] =
        a[i] === b[j]
          ? ((lcs[i + 1] as number[])[j + 1] as number) + 1
          : Math.max((lcs[i + 1] as number[])[j] as number, (lcs[i] as number[])[j + 1] as number)
  const out: string[] = []
  let changed = false
  let i = 0
  let j = 0
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push(`      ${a[i]}`)
      i++
      j++
    } else if (
      i < n &&
      (j >= m || ((lcs[i + 1] as number[])[j] as number) >= ((lcs[i] as number[])[j + 1] as number))
    ) {
      out.push(`    - ${a[i]}`)
      changed = true
      i++
    } else {
      out.push(`    + ${b[j]}`)
      changed = true
      j++
    }
  }
  return changed ? out.join('\n') : ''
}

/** Per hook: how often it fired, denied and modified over every case. */
export interface HookCoverage {
  id: string
  source: string
  fired: number
  denied: number
  modified: number
  asked: number
}

/** Counts, per hook, what the cases' traces show it did. */
export function coverageOf(hooks: readonly HookSpec[], decisions: readonly Decision[]): HookCoverage[] {
  const byId = new Map<string, HookCoverage>()
  for (const hook of hooks)
    byId.set(hook.id, {
      id: hook.id,
      source: hook.source ?? 'config',
      fired: 0,
      denied: 0,
      modified: 0,
      asked: 0,
    })
  for (const decision of decisions) {
    for (const step of decision.trace) {
      const entry = byId.get(step.id)
      if (!entry || step.outcome === 'skipped') continue
      entry.fired++
      if (step.outcome === 'deny') entry.denied++
      if (step.outcome === 'modify') entry.modified++
      if (step.outcome === 'ask') entry.asked++
    }
  }
  return [...byId.values()]
}

/** Coverage as text, grouped by source file. */
export function formatCoverage(coverage: readonly HookCoverage[]): string {
  const fired = coverage.filter((c) => c.fired > 0).length
  const percent = coverage.length ? Math.round((fired / coverage.length) * 100) : 100
  const lines = [`coverage: ${fired} of ${coverage.length} hooks fired in some case (${percent}%)`]
  const bySource = new Map<string, HookCoverage[]>()
  for (const c of coverage) bySource.set(c.source, [...(bySource.get(c.source) ?? []), c])
  for (const [source, entries] of [...bySource].sort((a, b) => a[0].localeCompare(b[0]))) {
    const covered = entries.filter((c) => c.fired > 0).length
    lines.push(`  ${source}  ${covered}/${entries.length}`)
    for (const c of entries) {
      const status =
        c.fired === 0
          ? 'never fired'
          : c.denied + c.modified === 0
            ? `fired ${c.fired}, never denied or modified${c.asked ? ` (asked ${c.asked})` : ''}`
            : `fired ${c.fired}, denied ${c.denied}, modified ${c.modified}${c.asked ? `, asked ${c.asked}` : ''}`
      const mark = c.fired === 0 ? '✗' : c.denied + c.modified === 0 ? '~' : '✓'
      lines.push(`    ${mark} ${c.id.padEnd(36)} ${status}`)
    }
  }
  return `${lines.join('\n')}\n`
}

function xml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
}

/** The results as JUnit XML: one suite per test file, one test case per case. */
export function toJunit(results: readonly CaseResult[], fileProblems: readonly string[]): string {
  const byFile = new Map<string, CaseResult[]>()
  for (const r of results) byFile.set(r.testCase.file, [...(byFile.get(r.testCase.file) ?? []), r])
  const suites: string[] = []
  for (const [file, cases] of byFile) {
    const failures = cases.filter((c) => c.failures.length > 0).length
    const errors = cases.filter((c) => c.error !== undefined).length
    const time = cases.reduce((t, c) => t + c.durationMs, 0) / 1000
    const body = cases.map((c) => {
      const open = `    <testcase classname="${xml(file)}" name="${xml(c.testCase.name)}" file="${xml(file)}" line="${c.testCase.line}" time="${(c.durationMs / 1000).toFixed(3)}"`
      if (c.error !== undefined) return `${open}>\n      <error message="${xml(c.error)}"/>\n    </testcase>`
      if (c.failures.length === 0) return `${open}/>`
      const message = c.failures[0]?.split('\n')[0] ?? 'failed'
      return `${open}>\n      <failure message="${xml(message)}">${xml(c.failures.join('\n'))}</failure>\n    </testcase>`
    })
    suites.push(
      `  <testsuite name="${xml(file)}" tests="${cases.length}" failures="${failures}" errors="${errors}" time="${time.toFixed(3)}">\n${body.join('\n')}\n  </testsuite>`,
    )
  }
  if (fileProblems.length > 0) {
    const body = fileProblems.map(
      (p, i) =>
        `    <testcase classname="warden test" name="test file ${i + 1}">\n      <error message="${xml(p)}"/>\n    </testcase>`,
    )
    suites.push(
      `  <testsuite name="test files" tests="${fileProblems.length}" failures="0" errors="${fileProblems.length}">\n${body.join('\n')}\n  </testsuite>`,
    )
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="warden test">\n${suites.join('\n')}\n</testsuites>\n`
}
