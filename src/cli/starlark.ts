// `warden starlark FILE.star|DIR...`: runs Starlark test files with the `assert` module
// (assert.eq, assert.ne, assert.true, assert.lt, assert.contains, assert.fails), prints
// each failure with its file:line:col, and exits 0 only when every assertion passed.

import { readdir, readFile, stat } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'
import { runStarlarkTests } from '../starlark/index.js'
import { parseArgs } from './args.js'
import type { CliIo } from './io.js'

const HELP = `usage: warden starlark [--max-steps N] FILE.star|DIR...

Runs Starlark test files (a folder runs every *.star file in it) with an assert module:
assert.eq(a, b), assert.ne(a, b), assert.true(x), assert.lt(a, b),
assert.contains(container, x), assert.fails(fn, pattern). Prints each failure with its
position. Exit code: 0 when every assertion passed, 1 otherwise.

example:
  warden starlark tests/                              # runs every *.star file in tests/
`

/** Largest test file read, in bytes. */
const MAX_FILE_BYTES = 4 * 1024 * 1024

/** Runs `warden starlark`. */
export async function run(args: string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parseStarlarkArgs>
  try {
    parsed = parseStarlarkArgs(args)
  } catch (error) {
    io.stderr(`warden starlark: ${(error as Error).message}\n\n${HELP}`)
    return 1
  }
  if (parsed.values.help) {
    io.stdout(HELP)
    return 0
  }
  if (parsed.positionals.length === 0) {
    io.stderr(`warden starlark: name at least one .star file or folder\n\n${HELP}`)
    return 1
  }
  const maxSteps = parsed.values['max-steps'] === undefined ? undefined : Number(parsed.values['max-steps'])
  if (maxSteps !== undefined && !(Number.isInteger(maxSteps) && maxSteps > 0)) {
    io.stderr('warden starlark: --max-steps must be a positive whole number\n')
    return 1
  }
  const files: { path: string; source: string }[] = []
  try {
    for (const target of parsed.positionals) {
      for (const path of await expand(resolve(io.cwd, target))) {
        const info = await stat(path)
        if (info.size > MAX_FILE_BYTES) throw new Error(`${path} is over ${MAX_FILE_BYTES} bytes`)
        const shown = relative(io.cwd, path)
        files.push({
          path: shown === '' || shown.startsWith('..') ? path : shown,
          source: await readFile(path, 'utf8'),
        })
      }
    }
  } catch (error) {
    io.stderr(
      `warden starlark: cannot read ${(error as NodeJS.ErrnoException).path ?? ''}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`,
    )
    return 1
  }
  if (files.length === 0) {
    io.stderr('warden starlark: no .star files found\n')
    return 1
  }
  const report = runStarlarkTests(
    files,
    maxSteps === undefined ? undefined : { maxSteps, maxWallTimeMs: 60_000 },
  )
  for (const failure of report.failures) {
    const firstLine = failure.message.split('\n')[0] ?? ''
    const message = firstLine.startsWith(`${failure.file}:`)
      ? failure.message
      : `${failure.file}:${failure.line}:${failure.col}: ${failure.message}`
    io.stdout(`FAIL ${message}\n`)
  }
  const summary = `${files.length} file${files.length === 1 ? '' : 's'}: ${report.passed} passed, ${report.failed} failed\n`
  if (report.failed > 0) {
    io.stderr(summary)
    return 1
  }
  io.stdout(summary)
  return 0
}

async function expand(path: string): Promise<string[]> {
  const info = await stat(path)
  if (!info.isDirectory()) return [path]
  const entries = await readdir(path, { withFileTypes: true })
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.star'))
    .map((e) => join(path, e.name))
    .sort()
}

function parseStarlarkArgs(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      'max-steps': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
}
