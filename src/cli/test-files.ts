// Policy test files for `warden test`: YAML with a list of cases, each an event (canonical
// `event` + `payload` + `context`, or Claude Code hook `input`) and what must come out of
// the hooks (`expect`: decision, a reason pattern, the modified payload, added context).
// Every problem names the file and the line of the case or field it is about.

import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { isMap, isSeq, LineCounter, type Node, parseDocument } from 'yaml'
import { z } from 'zod'
import type { JsonObject } from '../core/index.js'

/** The name a policy test file ends with. */
export const TEST_FILE_PATTERN = /\.test\.ya?ml$/

/** Largest test file read, in bytes. */
const MAX_FILE_BYTES = 4 * 1024 * 1024

/** What a case expects. */
export interface Expectation {
  decision?: 'allow' | 'deny' | 'modify' | 'ask'
  /** A regular expression the decision's reason must match. */
  reason?: string
  /** The payload after every modify, exactly. */
  payload?: JsonObject
  /** Texts each of which some added-context line must contain. */
  context?: string[]
}

/** One test case. */
export interface TestCase {
  name: string
  file: string
  line: number
  /** Canonical event, or Claude Code hook input (`input`). */
  event?: string
  payload?: JsonObject
  context?: JsonObject
  input?: JsonObject
  expect: Expectation
}

/** A test file: its cases, or the problems that kept it from being read. */
export interface TestFile {
  path: string
  cases: TestCase[]
  problems: string[]
}

const json = z.record(z.string(), z.unknown(), { error: 'must be a mapping' })

const caseSchema = z
  .object({
    name: z.string({ error: 'is required: a short name for the case' }).min(1, 'must not be empty'),
    event: z.string({ error: 'must be an event name such as tool.pre' }).optional(),
    payload: json.optional(),
    context: json.optional(),
    input: json.optional(),
    expect: z
      .object(
        {
          decision: z
            .enum(['allow', 'deny', 'modify', 'ask'], { error: 'must be allow, deny, modify or ask' })
            .optional(),
          reason: z.string({ error: 'must be a regular expression (a string)' }).optional(),
          payload: json.optional(),
          context: z
            .union([z.string(), z.array(z.string())], { error: 'must be a text or a list of texts' })
            .transform((v) => (typeof v === 'string' ? [v] : v))
            .optional(),
        },
        { error: 'is required: what must come out, e.g. { decision: deny, reason: "rm" }' },
      )
      .strict()
      .refine(
        (e) => Object.keys(e).length > 0,
        'must name at least one of decision, reason, payload, context',
      ),
  })
  .strict()
  .refine((c) => (c.input === undefined) !== (c.event === undefined), {
    message: 'needs either event (with payload) or input (Claude Code hook input), not both',
    path: ['event'],
  })
  .refine((c) => c.input !== undefined || c.payload !== undefined, {
    message: 'is required with event: the event payload, e.g. { tool: { name: exec, input: {...} } }',
    path: ['payload'],
  })

/** Every policy test file under the given files and folders (folders: `*.test.yaml`, recursively). */
export async function findTestFiles(targets: readonly string[]): Promise<string[]> {
  const out: string[] = []
  for (const target of targets) {
    const info = await stat(target)
    if (!info.isDirectory()) {
      out.push(target)
      continue
    }
    const walk = async (dir: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true })
      for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        if (entry.name.startsWith('.') || entry.name === 'node_modules') continue
        const path = join(dir, entry.name)
        if (entry.isDirectory()) await walk(path)
        else if (TEST_FILE_PATTERN.test(entry.name)) out.push(path)
      }
    }
    await walk(target)
  }
  return out
}

/** The 1-based line where a node starts. */
function lineOf(node: Node | null | undefined, lines: LineCounter): number {
  const start = node?.range?.[0]
  return start === undefined ? 1 : lines.linePos(start).line
}

/** Reads and checks one test file; problems are `FILE:LINE: message`. */
export async function readTestFile(path: string, shown: string): Promise<TestFile> {
  const file: TestFile = { path: shown, cases: [], problems: [] }
  let text: string
  try {
    const info = await stat(path)
    if (info.size > MAX_FILE_BYTES) {
      file.problems.push(`${shown}: the file is over ${MAX_FILE_BYTES} bytes`)
      return file
    }
    text = await readFile(path, 'utf8')
  } catch (error) {
    file.problems.push(`${shown}: cannot read it: ${(error as NodeJS.ErrnoException).code ?? error}`)
    return file
  }
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false })
  if (doc.errors.length > 0) {
    for (const error of doc.errors.slice(0, 5)) {
      const line = error.linePos?.[0]?.line ?? 1
      file.problems.push(`${shown}:${line}: not valid YAML: ${error.message.split('\n')[0]}`)
    }
    return file
  }
  const root = doc.contents
  const casesNode = isMap(root) ? root.get('cases', true) : undefined
  if (!isMap(root) || !isSeq(casesNode)) {
    file.problems.push(
      `${shown}:${lineOf(root as Node, lines)}: a test file is a mapping with cases: [ ... ]`,
    )
    return file
  }
  const known = new Set(['cases'])
  for (const pair of root.items) {
    const key = (pair.key as { value?: unknown })?.value
    if (typeof key === 'string' && !known.has(key))
      file.problems.push(
        `${shown}:${lineOf(pair.key as Node, lines)}: unknown key "${key}" (a test file has cases:)`,
      )
  }
  const data = doc.toJS() as { cases: unknown[] }
  casesNode.items.forEach((node, index) => {
    const line = lineOf(node as Node, lines)
    const parsed = caseSchema.safeParse(data.cases[index])
    if (!parsed.success) {
      const unknown = parsed.error.issues.filter((i) => i.code === 'unrecognized_keys')
      for (const issue of (unknown.length ? unknown : parsed.error.issues).slice(0, 3)) {
        const at = isMap(node) ? doc.getIn(['cases', index, ...issue.path], true) : undefined
        const where = lineOf((at as Node | undefined) ?? (node as Node), lines)
        const field = issue.path.length > 0 ? issue.path.join('.') : '(case)'
        const message =
          issue.code === 'unrecognized_keys'
            ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}: remove or check the spelling`
            : `${field} ${issue.message}`
        file.problems.push(`${shown}:${where}: case ${index + 1}: ${message}`)
      }
      return
    }
    const c = parsed.data
    if (c.expect.reason !== undefined) {
      try {
        new RegExp(c.expect.reason)
      } catch (error) {
        const at = doc.getIn(['cases', index, 'expect', 'reason'], true) as Node | undefined
        file.problems.push(
          `${shown}:${lineOf(at ?? (node as Node), lines)}: case ${index + 1}: expect.reason is not a valid regular expression: ${(error as Error).message}`,
        )
        return
      }
    }
    const testCase: TestCase = { name: c.name, file: shown, line, expect: c.expect as Expectation }
    if (c.event !== undefined) testCase.event = c.event
    if (c.payload) testCase.payload = c.payload as JsonObject
    if (c.context) testCase.context = c.context as JsonObject
    if (c.input) testCase.input = c.input as JsonObject
    file.cases.push(testCase)
  })
  if (casesNode.items.length === 0)
    file.problems.push(`${shown}:${lineOf(casesNode, lines)}: cases: is empty`)
  return file
}
