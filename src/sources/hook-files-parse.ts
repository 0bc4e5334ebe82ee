// One hook file, `NAME.md`: YAML front matter between `---` lines (event, priority, when,
// script, and Warden's matcher, if, timeoutMs, onError, onTimeout, enabled, mode, scope, or a
// static `handler: {type: deny | allow | ask, reason}` instead of a script), then a
// Markdown body that is documentation. The file name is the hook name. Parsing keeps the
// line where `script` and `when` start, so Starlark errors point into the .md file.

import { basename } from 'node:path'
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml'
import { type HandlerConfig, type HookDefinition, homeBlocking } from '../core/index.js'
import { STATIC_HANDLER_TYPES } from '../handlers/index.js'
import type { SourceProblem } from './hook-files-report.js'

/** The handler type of hook files. */
export const SCRIPT_HANDLER_TYPE = 'script'

/** Largest hook file read, in bytes. */
export const MAX_HOOK_FILE_BYTES = 256 * 1024

/** Front-matter keys a hook file may use. */
export const HOOK_FILE_KEYS = [
  'event',
  'description',
  'priority',
  'when',
  'script',
  'matcher',
  'if',
  'timeoutMs',
  'onError',
  'onTimeout',
  'enabled',
  'mode',
  'scope',
  'handler',
] as const

/** One parsed hook file. */
export interface ParsedHookFile {
  /** The hook definition, when the front matter was usable. */
  hook?: HookDefinition
  /** The line of each front-matter key, for positions in later checks. */
  keyLines: Record<string, number>
  problems: SourceProblem[]
  warnings: SourceProblem[]
}

/** The hook name a file gives: its base name without `.md`. */
export function hookNameOf(file: string): string {
  return basename(file).replace(/\.md$/i, '')
}

const NAME_RULE = /^[A-Za-z0-9][A-Za-z0-9._:@/-]*$/

/**
 * Parses a hook file's text. Structural checks only (front matter, YAML, required and
 * unknown keys, value types); the event name and the Starlark code are checked when the
 * hook is prepared.
 */
export function parseHookFile(text: string, file: string): ParsedHookFile {
  const result: ParsedHookFile = { keyLines: {}, problems: [], warnings: [] }
  const problem = (message: string, line?: number, col?: number) =>
    result.problems.push(position({ file, message }, line, col))
  const name = hookNameOf(file)
  if (!NAME_RULE.test(name) || name.length > 128) {
    problem(
      `the file name "${basename(file)}" is not a valid hook name: use letters, digits and . _ : @ - (starting with a letter or digit)`,
    )
  }
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text
  const lines = source.split(/\r?\n/)
  if (lines[0]?.trim() !== '---') {
    problem('a hook file starts with YAML front matter between two "---" lines', 1, 1)
    return result
  }
  const end = lines.findIndex((line, i) => i > 0 && (line.trim() === '---' || line.trim() === '...'))
  if (end < 0) {
    problem('the front matter is not closed: add a "---" line after it', 1, 1)
    return result
  }
  const yamlText = lines.slice(1, end).join('\n')
  const counter = new LineCounter()
  const doc = parseDocument(yamlText, { lineCounter: counter, prettyErrors: false })
  // Front matter starts on the file's second line.
  const at = (offset: number) => {
    const pos = counter.linePos(offset)
    return { line: pos.line + 1, col: pos.col }
  }
  if (doc.errors.length > 0) {
    for (const error of doc.errors.slice(0, 5)) {
      const pos = at(error.pos[0])
      problem(`not valid YAML: ${error.message.split('\n')[0]}`, pos.line, pos.col)
    }
    return result
  }
  if (!isMap(doc.contents)) {
    problem('the front matter must be a YAML mapping such as "event: tool.pre"', 2, 1)
    return result
  }
  const data = doc.toJS({ maxAliasCount: 50 }) as Record<string, unknown>
  const yamlLines = yamlText.split('\n')
  const keyLine = new Map<string, { line: number; col: number; valueLine: number; indent: number }>()
  for (const pair of doc.contents.items) {
    if (!isScalar(pair.key)) continue
    const key = String(pair.key.value)
    const keyPos = at(pair.key.range?.[0] ?? 0)
    const valueNode = pair.value as { range?: [number, number, number] } | null
    let valueLine = keyPos.line
    // Columns of the value's text in the file, less one: added to Starlark columns.
    let indent = 0
    if (valueNode?.range) {
      const start = at(valueNode.range[0])
      valueLine = start.line
      const first = yamlText[valueNode.range[0]]
      if (first === '|' || first === '>') {
        // A block scalar's text starts on the line after its indicator, indented.
        valueLine += 1
        const text = yamlLines.find((l, i) => i >= valueLine - 2 && l.trim() !== '') ?? ''
        indent = text.length - text.trimStart().length
      } else indent = start.col - 1 + (first === '"' || first === "'" ? 1 : 0)
    }
    keyLine.set(key, { ...keyPos, valueLine, indent })
    result.keyLines[key] = keyPos.line
  }
  for (const key of Object.keys(data)) {
    if ((HOOK_FILE_KEYS as readonly string[]).includes(key)) continue
    const pos = keyLine.get(key)
    result.warnings.push(
      position(
        { file, message: `unknown key "${key}" ignored (known keys: ${HOOK_FILE_KEYS.join(', ')})` },
        pos?.line,
        pos?.col,
      ),
    )
  }
  const keyProblem = (key: string, message: string) => {
    const pos = keyLine.get(key)
    problem(`${key} ${message}`, pos?.line ?? 2, pos?.col ?? 1)
  }
  if (typeof data.event !== 'string' || data.event.trim() === '') {
    if (data.event === undefined)
      problem('event is required: a name such as "tool.pre" or "PreToolUse"', 2, 1)
    else keyProblem('event', 'must be an event name such as "tool.pre"')
  }
  if (data.handler !== undefined) checkStaticHandler(data, keyProblem)
  else if (typeof data.script !== 'string' || data.script.trim() === '') {
    if (data.script === undefined)
      problem('script is required: Starlark code that defines handle(event, payload)', 2, 1)
    else keyProblem('script', 'must be Starlark code (a YAML block such as "script: |")')
  }
  if (data.when !== undefined && (typeof data.when !== 'string' || data.when.trim() === ''))
    keyProblem('when', 'must be a Starlark expression string such as \'payload["name"] == "exec"\'')
  if (data.priority !== undefined && !Number.isInteger(data.priority))
    keyProblem('priority', 'must be a whole number (lower runs first)')
  if (result.problems.length > 0) return result
  const hook: HookDefinition = {
    name,
    event: data.event as string,
    source: `hook-file:${file}`,
    home: 'harness',
    frontMatter: declaredKeys(data),
    handler:
      data.handler !== undefined
        ? { ...(data.handler as HandlerConfig) }
        : {
            type: SCRIPT_HANDLER_TYPE,
            source: data.script as string,
            file,
            line: keyLine.get('script')?.valueLine ?? 1,
            column: keyLine.get('script')?.indent ?? 0,
          },
  }
  const blocks = homeBlocking('harness', hook.event)
  if (blocks !== undefined) hook.blocks = blocks
  if (typeof data.when === 'string' && data.handler === undefined) {
    hook.handler.when = data.when
    hook.handler.whenLine = keyLine.get('when')?.valueLine ?? 1
    hook.handler.whenColumn = keyLine.get('when')?.indent ?? 0
  }
  for (const key of [
    'description',
    'priority',
    'matcher',
    'if',
    'timeoutMs',
    'onError',
    'onTimeout',
    'enabled',
    'mode',
    'scope',
  ]) {
    if (data[key] !== undefined) (hook as unknown as Record<string, unknown>)[key] = data[key]
  }
  result.hook = hook
  return result
}

/** The front matter as written, without the script (no hook's code reaches another's). */
function declaredKeys(data: Record<string, unknown>): Record<string, unknown> {
  const { script: _, ...declared } = data
  return JSON.parse(JSON.stringify(declared)) as Record<string, unknown>
}

/** A hook file's `handler`: a static type only, and then neither `script` nor `when`. */
function checkStaticHandler(
  data: Record<string, unknown>,
  keyProblem: (key: string, message: string) => void,
): void {
  const handler = data.handler
  const types = STATIC_HANDLER_TYPES.join(', ')
  if (typeof handler !== 'object' || handler === null || Array.isArray(handler)) {
    keyProblem('handler', 'must be a mapping such as "{ type: deny, reason: no shell in prod }"')
    return
  }
  const type = (handler as { type?: unknown }).type
  if (typeof type !== 'string' || !(STATIC_HANDLER_TYPES as readonly string[]).includes(type)) {
    keyProblem(
      'handler',
      `type must be one of ${types} in a hook file (got ${JSON.stringify(type) ?? 'nothing'}); write a script for anything else`,
    )
  }
  if (data.script !== undefined) keyProblem('script', 'cannot be used with handler: keep one of them')
  if (data.when !== undefined)
    keyProblem('when', 'is a Starlark expression for scripts; with a static handler, use if (CEL)')
}

function position(problem: SourceProblem, line?: number, col?: number): SourceProblem {
  if (line !== undefined) problem.line = line
  if (col !== undefined) problem.col = col
  return problem
}
