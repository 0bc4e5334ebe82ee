// `warden hooks validate DIR|FILE...`: checks hook files without running them — YAML front
// matter, required fields, unknown events (with the closest names), Starlark syntax, the
// `handle(event, payload)` function and its arity, duplicate hook names — and prints every
// problem as file:line:col. Exit 0 when there is none, 1 otherwise.

import { stat } from 'node:fs/promises'
import { basename, resolve } from 'node:path'
import type { HookDefinition } from '../core/index.js'
import {
  duplicateHookProblems,
  formatProblem,
  loadConfig,
  loadHookDir,
  loadHookFile,
  type SourceProblem,
} from '../sources/index.js'
import { parseArgs } from './args.js'
import type { CliIo } from './io.js'
import { type Progress, progress, styleFor } from './style.js'

const HELP = `usage: warden hooks validate [--config warden.yaml] DIR|FILE.md...

Checks hook files (Markdown with YAML front matter and a Starlark script) and prints
each problem as file:line:col. Checks: the front matter and its YAML, required fields
(event, script), unknown events (with suggestions), Starlark syntax, handle(event,
payload) present with two parameters, the when expression, duplicate hook names (also
against the hooks of --config). Unknown keys are warnings. Exit code: 0 when every file
is fine, 1 when any has a problem.

example:
  warden hooks validate examples/hooks-md
  3 hook files checked: 0 problems, 0 warnings
`

/** Runs `warden hooks`. */
export async function run(args: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args
  if (action === '--help' || action === '-h' || action === 'help') {
    io.stdout(HELP)
    return 0
  }
  if (action !== 'validate') {
    io.stderr(
      `warden hooks: ${action ? `unknown action "${action}"` : 'missing action'}; use "validate"\n\n${HELP}`,
    )
    return 1
  }
  let parsed: ReturnType<typeof parseValidateArgs>
  try {
    parsed = parseValidateArgs(rest)
  } catch (error) {
    io.stderr(`warden hooks validate: ${(error as Error).message}\n\n${HELP}`)
    return 1
  }
  if (parsed.values.help) {
    io.stdout(HELP)
    return 0
  }
  if (parsed.positionals.length === 0) {
    io.stderr(`warden hooks validate: name at least one folder or hook file\n\n${HELP}`)
    return 1
  }
  const problems: SourceProblem[] = []
  const warnings: SourceProblem[] = []
  const hooks: HookDefinition[] = []
  let files = 0
  if (parsed.values.config) {
    try {
      hooks.push(...(await loadConfig(resolve(io.cwd, parsed.values.config))).hooks)
    } catch (error) {
      io.stderr(`warden hooks validate: ${(error as Error).message}\n`)
      return 1
    }
  }
  for (const target of parsed.positionals) {
    const path = resolve(io.cwd, target)
    const isFile = await stat(path).then(
      (s) => s.isFile(),
      () => false,
    )
    let shown: Progress | undefined
    const loaded = isFile
      ? singleFile(await loadHookFile(path))
      : await loadHookDir(path, {
          onFile(file, index, total) {
            if (index === 0) shown = progress(io, total, `checking ${target}`)
            shown?.tick(basename(file))
          },
        })
    shown?.done()
    files += loaded.files.length
    problems.push(...loaded.problems)
    warnings.push(...loaded.warnings)
    hooks.push(...loaded.hooks)
  }
  problems.push(...duplicateHookProblems(hooks))
  const style = styleFor(io)
  for (const warning of warnings) io.stdout(`${formatProblem(warning)} ${style.yellow('(warning)')}\n`)
  for (const problem of problems) io.stdout(`${style.red(formatProblem(problem))}\n`)
  const summary = `${files} hook file${files === 1 ? '' : 's'} checked: ${problems.length} problem${problems.length === 1 ? '' : 's'}, ${warnings.length} warning${warnings.length === 1 ? '' : 's'}\n`
  if (problems.length > 0) {
    io.stderr(summary)
    return 1
  }
  io.stdout(summary)
  return 0
}

function singleFile(result: Awaited<ReturnType<typeof loadHookFile>>) {
  return {
    files: [result],
    problems: result.problems,
    warnings: result.warnings,
    hooks: result.hook ? [result.hook] : [],
  }
}

function parseValidateArgs(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      config: { type: 'string', short: 'c' },
      help: { type: 'boolean', short: 'h' },
    },
  })
}
