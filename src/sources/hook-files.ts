// Hook folders: every `DIR/*.md` file is one hook, a Starlark script or a static deny /
// allow / ask (see hook-files-parse.ts for the format). Loading checks each file completely
// — front matter, event name, `when` and `script` compiled, `handle(event, payload)`
// present, a static handler's fields — and reports every problem with its file:line:col,
// so a broken file never becomes a hook.

import { statSync } from 'node:fs'
import { readdir, readFile, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import {
  compileCondition,
  compileMatcher,
  errorMessage,
  type HookDefinition,
  parseHookDefinition,
} from '../core/index.js'
import { allowHandler, askHandler, checkScriptHook, denyHandler } from '../handlers/index.js'
import {
  MAX_HOOK_FILE_BYTES,
  type ParsedHookFile,
  parseHookFile,
  SCRIPT_HANDLER_TYPE,
} from './hook-files-parse.js'
import { emptyReport, type SourceProblem, type SourceReport } from './hook-files-report.js'

/** Most hook files read from one folder. */
export const MAX_HOOK_FILES = 1_000

/** The outcome of loading one hook file. */
export interface HookFileResult {
  file: string
  /** The hook, when the file has no problem. */
  hook?: HookDefinition
  problems: SourceProblem[]
  warnings: SourceProblem[]
  /** The file's text (to tell a changed file from an unchanged one). */
  text?: string
}

/** The handlers a hook file may use besides `script`. */
const STATIC_HANDLERS = new Map([denyHandler, allowHandler, askHandler].map((h) => [h.type, h]))

/**
 * Checks a parsed hook file as the engine would: the hook definition (event name, fields),
 * its `matcher` (RE2) and `if` (CEL) compiled, and the Starlark code of `when` and `script`
 * (or the static handler's fields).
 */
export function checkHookFile(parsed: ParsedHookFile, file: string): SourceProblem[] {
  const hook = parsed.hook
  if (!hook) return []
  try {
    const spec = parseHookDefinition(hook)
    if (spec.matcher !== undefined) compileMatcher(spec.matcher)
    if (spec.if !== undefined) compileCondition(spec.if)
    STATIC_HANDLERS.get(spec.handler.type)?.prepare(spec.handler, spec)
  } catch (error) {
    const message = errorMessage(error).replace(/^hook "[^"]*": /, '')
    const key = Object.keys(parsed.keyLines).find((k) => message.startsWith(k) || message.includes(`${k} "`))
    const problem: SourceProblem = { file, message }
    const line = key ? parsed.keyLines[key] : undefined
    if (line !== undefined) {
      problem.line = line
      problem.col = 1
    }
    return [problem]
  }
  if (hook.handler.type !== SCRIPT_HANDLER_TYPE) return []
  return checkScriptHook(hook.handler, hook.name).map((p) => ({ file, ...p }))
}

/** Reads, parses and checks one hook file. Never throws. */
export async function loadHookFile(path: string): Promise<HookFileResult> {
  const file = resolve(path)
  const result: HookFileResult = { file, problems: [], warnings: [] }
  let text: string
  try {
    const info = await stat(file)
    if (info.size > MAX_HOOK_FILE_BYTES) {
      result.problems.push({
        file,
        message: `the file is ${info.size} bytes, over the limit of ${MAX_HOOK_FILE_BYTES} bytes for a hook file`,
      })
      return result
    }
    text = await readFile(file, 'utf8')
  } catch (error) {
    result.problems.push({
      file,
      message: `cannot read: ${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}`,
    })
    return result
  }
  result.text = text
  const parsed = parseHookFile(text, file)
  result.problems.push(...parsed.problems)
  result.warnings.push(...parsed.warnings)
  if (parsed.hook && parsed.problems.length === 0) {
    const problems = checkHookFile(parsed, file)
    if (problems.length > 0) result.problems.push(...problems)
    else result.hook = parsed.hook
  }
  return result
}

/** Where AI Harness keeps a project's hook files, under its working folder. */
export const HARNESS_HOOK_DIR = join('.harness', 'hooks')

/**
 * The hook folders to load: those given, else the working folder's `.harness/hooks/` when
 * it is a folder (AI Harness finds its hooks there), else none.
 */
export function hookDirsOrHarness(given: readonly string[] | undefined, cwd: string): string[] {
  if (given && given.length > 0) return [...given]
  const harness = join(cwd, HARNESS_HOOK_DIR)
  try {
    return statSync(harness).isDirectory() ? [harness] : []
  } catch {
    return []
  }
}

/** The `.md` files of a folder that are hooks, sorted by name (a README.md is documentation). */
export async function listHookFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true })
  return entries
    .filter(
      (e) => (e.isFile() || e.isSymbolicLink()) && /\.md$/i.test(e.name) && !/^readme\.md$/i.test(e.name),
    )
    .map((e) => join(dir, e.name))
    .sort()
}

/**
 * Loads every hook file of a folder. Hooks come only from files without problems; the
 * report lists the problems and warnings of all files. Never throws.
 */
export async function loadHookDir(
  dir: string,
  options: { onFile?: (file: string, index: number, total: number) => void } = {},
): Promise<SourceReport & { files: HookFileResult[] }> {
  const folder = resolve(dir)
  const report = { ...emptyReport(), files: [] as HookFileResult[] }
  let files: string[]
  try {
    files = await listHookFiles(folder)
  } catch (error) {
    report.problems.push({
      file: folder,
      message: `cannot read the hook folder: ${(error as NodeJS.ErrnoException).code ?? errorMessage(error)}`,
    })
    return report
  }
  if (files.length > MAX_HOOK_FILES) {
    report.problems.push({
      file: folder,
      message: `the folder holds ${files.length} hook files, over the limit of ${MAX_HOOK_FILES}`,
    })
    return report
  }
  if (files.length === 0)
    report.warnings.push({ file: folder, message: 'the folder holds no hook files (*.md)' })
  for (const [index, file] of files.entries()) {
    options.onFile?.(file, index, files.length)
    const result = await loadHookFile(file)
    report.files.push(result)
    report.problems.push(...result.problems)
    report.warnings.push(...result.warnings)
    if (result.hook) report.hooks.push(result.hook)
  }
  return report
}

/**
 * Finds hooks that share an id (name, or tenant/name) across sources, as problems naming
 * both places.
 */
export function duplicateHookProblems(hooks: readonly HookDefinition[]): SourceProblem[] {
  const seen = new Map<string, HookDefinition>()
  const problems: SourceProblem[] = []
  for (const hook of hooks) {
    const tenant = hook.scope?.tenant
    const id = tenant ? `${tenant}/${hook.name}` : hook.name
    const first = seen.get(id)
    if (first) {
      problems.push({
        file: sourceFile(hook),
        message: `hook "${id}" is defined twice (also in ${sourceFile(first)}); hook names must be unique`,
      })
    } else seen.set(id, hook)
  }
  return problems
}

function sourceFile(hook: HookDefinition): string {
  const source = hook.source ?? 'warden.yaml'
  const colon = source.indexOf(':')
  return colon > 0 && !/^[A-Za-z]:[\\/]/.test(source) ? source.slice(colon + 1) : source
}
