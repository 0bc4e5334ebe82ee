// `warden test [DIR|FILE…]`: runs policy test files (*.test.yaml) against the hooks that
// `warden check` and `warden serve` would load (warden.yaml, hook folders, Claude Code
// settings, loom profiles, GoClaw files), prints each failing case with what came out vs
// what was expected, optionally writes JUnit XML and hook coverage, and exits 0 only when
// every case passed.

import { writeFile } from 'node:fs/promises'
import { relative, resolve, sep } from 'node:path'
import {
  type ApprovalRequest,
  type Decision,
  type DispatchInput,
  type Engine,
  fromClaudeInput,
} from '../core/index.js'
import { buildEngine } from '../sources/index.js'
import { parseArgs } from './args.js'
import { loadCliSources, SOURCE_HELP, SOURCE_OPTIONS } from './hook-sources.js'
import type { CliIo } from './io.js'
import { findTestFiles, readTestFile, type TestCase } from './test-files.js'
import { type CaseResult, checkCase, coverageOf, formatCoverage, toJunit } from './test-report.js'

const HELP = `usage: warden test [options] [DIR|FILE ...]

Runs policy test files against the hooks of the config and the source flags (the same
hooks warden check and warden serve load). A folder runs every *.test.yaml in it (and its
subfolders); without arguments, the current folder. Exit code: 0 when every case passed,
1 when one failed or a test file has a problem.

A test file:
  cases:
    - name: rm -rf is denied
      event: tool.pre                      # or input: <Claude Code hook input>
      payload: { tool: { name: Bash, input: { command: "rm -rf /" } } }
      context: { tenantId: acme }          # optional
      expect:
        decision: deny                     # allow | deny | modify | ask
        reason: "rm"                       # a regular expression the reason must match
        payload: { ... }                   # the payload after every modify, exactly
        context: "a text"                  # text an added-context line must contain (or a list)

options:
${SOURCE_HELP}
  --junit FILE              also write the results as JUnit XML
  --coverage                print which hooks no case made fire, and which never denied
                            or modified, per source file
  -h, --help                this text

examples:
  warden test policy-tests/
  warden test --coverage --junit results.xml
`

/** Runs `warden test`. */
export async function run(args: string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(args)
  } catch (error) {
    io.stderr(`warden test: ${(error as Error).message}\n\n${HELP}`)
    return 1
  }
  const { values, positionals } = parsed
  if (values.help) {
    io.stdout(HELP)
    return 0
  }
  let paths: string[]
  try {
    paths = await findTestFiles((positionals.length ? positionals : ['.']).map((p) => resolve(io.cwd, p)))
  } catch (error) {
    const cause = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or folder' : error
    io.stderr(`warden test: ${(error as { path?: string }).path ?? ''}: ${cause}\n`)
    return 1
  }
  if (paths.length === 0) {
    io.stderr('warden test: no test files (*.test.yaml) found\n')
    return 1
  }
  const files = await Promise.all(paths.map((p) => readTestFile(p, relative(io.cwd, p) || p)))
  const problems = files.flatMap((f) => f.problems)
  let engine: Engine
  const asked: ApprovalRequest[] = []
  try {
    const sources = await loadCliSources(values, io, 'warden test')
    engine = buildEngine(sources.config, {
      extraHooks: sources.extraHooks,
      env: io.env,
      ...(sources.tenantTokenBudgets ? { tenantTokenBudgets: sources.tenantTokenBudgets } : {}),
      // An ask is reported as such: the approver records it and lets the chain end.
      approver: (request) => {
        asked.push(request)
        return { outcome: 'approve', by: 'warden test' }
      },
    })
  } catch (error) {
    io.stderr(`warden test: ${(error as Error).message}\n`)
    return 1
  }
  const results: CaseResult[] = []
  const decisions: Decision[] = []
  try {
    for (const file of files) {
      for (const testCase of file.cases) {
        const result = await runCase(engine, testCase)
        results.push(result.result)
        if (result.decision) decisions.push(result.decision)
      }
    }
  } finally {
    await engine.close()
  }
  report(io, results, problems)
  if (values.coverage) {
    const coverage = coverageOf(engine.hooks(), decisions).map((c) => ({
      ...c,
      source: c.source.split(`${io.cwd}${sep}`).join(''),
    }))
    io.stdout(`\n${formatCoverage(coverage)}`)
  }
  if (values.junit) {
    try {
      await writeFile(resolve(io.cwd, values.junit), toJunit(results, problems))
    } catch (error) {
      io.stderr(`warden test: cannot write ${values.junit}: ${(error as Error).message}\n`)
      return 1
    }
  }
  const failed = results.some((r) => r.failures.length > 0 || r.error !== undefined)
  return failed || problems.length > 0 ? 1 : 0
}

/** Runs one case. */
async function runCase(
  engine: Engine,
  testCase: TestCase,
): Promise<{ result: CaseResult; decision?: Decision }> {
  const started = performance.now()
  let input: DispatchInput
  if (testCase.input) {
    const converted = fromClaudeInput(testCase.input)
    if ('error' in converted)
      return { result: { testCase, failures: [], error: `input: ${converted.error}`, durationMs: 0 } }
    input = converted
  } else {
    input = {
      event: testCase.event as string,
      payload: testCase.payload,
      ...(testCase.context ? { context: testCase.context } : {}),
    }
  }
  const decision = await engine.dispatch({ ...input, wait: true })
  const durationMs = performance.now() - started
  if (decision.reasonCode.includes('invalid-event'))
    return { result: { testCase, failures: [], error: decision.reason, durationMs } }
  return { result: { testCase, failures: checkCase(testCase.expect, decision), durationMs }, decision }
}

/** The human report: problems, each failing case with its diff, then the totals. */
function report(io: CliIo, results: readonly CaseResult[], problems: readonly string[]): void {
  const colour = io.isTTY === true && io.env.NO_COLOR === undefined
  const paint = (code: string, text: string) => (colour ? `\u001b[${code}m${text}\u001b[0m` : text)
  for (const problem of problems) io.stdout(`${paint('31', 'ERROR')} ${problem}\n`)
  let passed = 0
  for (const r of results) {
    const where = `${r.testCase.file}:${r.testCase.line}`
    if (r.error !== undefined) {
      io.stdout(`${paint('31', 'ERROR')} ${r.testCase.name}  (${where})\n    ${r.error}\n`)
    } else if (r.failures.length > 0) {
      io.stdout(`${paint('31', 'FAIL')}  ${r.testCase.name}  (${where})\n`)
      for (const f of r.failures) io.stdout(`    ${f}\n`)
    } else {
      passed++
      io.stdout(`${paint('32', 'PASS')}  ${r.testCase.name}  (${where})\n`)
    }
  }
  const failed = results.length - passed
  const summary = `${passed} passed, ${failed} failed${problems.length ? `, ${problems.length} test file problem${problems.length === 1 ? '' : 's'}` : ''}`
  io.stdout(`\n${failed + problems.length === 0 ? paint('32', summary) : paint('31', summary)}\n`)
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...SOURCE_OPTIONS,
      junit: { type: 'string' },
      coverage: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  })
}
