// The Starlark test runner behind `warden starlark FILE...`: runs each file with an
// `assert` module, counts every assertion, and records failures with their position.
// Pure: the caller reads the files.

import { RE2JS } from 're2js'
import { type Limits, StarlarkError, type Thread } from '../base/index.js'
import { compare, contains, equals, reprForMessage } from '../ops/index.js'
import { callValue, truth, type Value } from '../values/index.js'
import { builtin, module } from './host.js'
import { compile } from './program.js'

/** One failed assertion or failed file. */
export interface TestFailure {
  file: string
  line: number
  col: number
  message: string
}

/** Totals of a test run. */
export interface TestReport {
  passed: number
  failed: number
  failures: TestFailure[]
}

/** Whether an error message matches a pattern: a substring, else a regular expression. */
export function messageMatches(message: string, pattern: string): boolean {
  if (message.includes(pattern)) return true
  try {
    return RE2JS.compile(pattern).matcher(message).find()
  } catch {
    return false
  }
}

/** A value as an assertion message shows it: repr, cut short after 4096 characters. */
function show(value: Value): string {
  return reprForMessage(value, 4096)
}

class Session {
  readonly report: TestReport = { passed: 0, failed: 0, failures: [] }
  file = ''

  record(thread: Thread, ok: boolean, message: string): Value {
    if (ok) {
      this.report.passed++
      return null
    }
    this.report.failed++
    const site = thread.site
    this.report.failures.push({ file: this.file, line: site?.line ?? 0, col: site?.col ?? 0, message })
    return null
  }

  fail(error: StarlarkError | Error): void {
    this.report.failed++
    if (error instanceof StarlarkError) {
      this.report.failures.push({
        file: error.file || this.file,
        line: error.line,
        col: error.col,
        message: error.message,
      })
    } else {
      this.report.failures.push({ file: this.file, line: 0, col: 0, message: error.message })
    }
  }

  assertModule() {
    const withMessage = (base: string, args: Value[], index: number) => {
      const extra = args[index]
      return extra === undefined ? base : `${base}: ${typeof extra === 'string' ? extra : show(extra)}`
    }
    const need = (args: Value[], n: number, name: string) => {
      if (args.length < n) throw new Error(`assert.${name}: got ${args.length} arguments, want ${n}`)
    }
    return module('assert', {
      eq: builtin('assert.eq', (args, _kw, t) => {
        need(args, 2, 'eq')
        const [a, b] = args as [Value, Value]
        return this.record(t, equals(a, b), withMessage(`${show(a)} != ${show(b)}`, args, 2))
      }),
      ne: builtin('assert.ne', (args, _kw, t) => {
        need(args, 2, 'ne')
        const [a, b] = args as [Value, Value]
        return this.record(t, !equals(a, b), withMessage(`${show(a)} == ${show(b)}`, args, 2))
      }),
      true: builtin('assert.true', (args, _kw, t) => {
        need(args, 1, 'true')
        return this.record(t, truth(args[0]!), withMessage(`${show(args[0]!)} is not true`, args, 1))
      }),
      lt: builtin('assert.lt', (args, _kw, t) => {
        need(args, 2, 'lt')
        const [a, b] = args as [Value, Value]
        return this.record(
          t,
          compare(a, b) < 0,
          withMessage(`${show(a)} is not less than ${show(b)}`, args, 2),
        )
      }),
      contains: builtin('assert.contains', (args, _kw, t) => {
        need(args, 2, 'contains')
        const [container, x] = args as [Value, Value]
        return this.record(t, contains(container, x), `${show(container)} does not contain ${show(x)}`)
      }),
      fails: builtin('assert.fails', (args, _kw, t) => {
        need(args, 2, 'fails')
        const [fn, pattern] = args as [Value, Value]
        if (typeof pattern !== 'string') throw new Error('assert.fails: pattern must be a string')
        const site = t.site
        let message: string
        try {
          callValue(fn, [], null, t)
          message = `evaluation succeeded unexpectedly (want error matching ${show(pattern)})`
        } catch (error) {
          if (!(error instanceof StarlarkError)) throw error
          t.site = site
          if (messageMatches(error.reason, pattern) || messageMatches(error.message, pattern)) {
            return this.record(t, true, '')
          }
          message = `regular expression (${pattern}) did not match error (${error.reason})`
        }
        t.site = site
        return this.record(t, false, message)
      }),
    })
  }
}

/**
 * Runs Starlark test files. Each assertion (`assert.eq`, `assert.ne`, `assert.true`,
 * `assert.lt`, `assert.contains`, `assert.fails`) counts as passed or failed; a failure
 * records the assert call's position and execution continues. After the module body has
 * run (and its globals are frozen), every global function named `test_*` is called with
 * no arguments. A file that does not parse, or fails outside an assertion, counts as one
 * failure with the error's position.
 */
export function runStarlarkTests(
  files: { path: string; source: string }[],
  limits?: Partial<Limits>,
): TestReport {
  const session = new Session()
  const assert = session.assertModule()
  for (const { path, source } of files) {
    session.file = path
    try {
      compile(source, path).run({
        globals: { assert },
        limits: limits ?? { maxWallTimeMs: 10_000, maxSteps: 10_000_000 },
      })
    } catch (error) {
      session.fail(error instanceof Error ? error : new Error(String(error)))
    }
  }
  return session.report
}
