// Reads Claude Code's `permissions` from a settings.json file, once, when a shell detector
// hook is loaded: the `Bash(…)` entries of `permissions.allow`, `permissions.ask` and
// `permissions.deny` become the detector's command rules. The file is bounded in size and
// shape; errors name the file and what is wrong with it, never its content.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { resolve } from 'node:path'
import { WardenError } from '../../core/index.js'
import { bashRuleText } from './shell-allow.js'

/** The largest settings file read. */
export const MAX_SETTINGS_BYTES = 1024 * 1024
/** The most rules taken from one list. */
export const MAX_RULES = 10_000
const MAX_RULE_CHARS = 1000

/** The Bash rules of a Claude Code settings file, by list. */
export interface ClaudeRules {
  allow: string[]
  ask: string[]
  deny: string[]
}

function fail(file: string, problem: string): never {
  throw new WardenError('invalid-hook', `shell detector options.claudeSettings "${file}": ${problem}`)
}

function readBounded(file: string): string {
  let fd: number
  try {
    fd = openSync(resolve(file), 'r')
  } catch (error) {
    return fail(file, `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) fail(file, 'is not a regular file')
    if (stat.size > MAX_SETTINGS_BYTES) fail(file, `is larger than ${MAX_SETTINGS_BYTES} bytes`)
    const buffer = Buffer.alloc(MAX_SETTINGS_BYTES + 1)
    let length = 0
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null)
      if (read === 0) break
      length += read
    }
    if (length > MAX_SETTINGS_BYTES) fail(file, `is larger than ${MAX_SETTINGS_BYTES} bytes`)
    return buffer.subarray(0, length).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

function rulesOf(file: string, permissions: Record<string, unknown>, list: keyof ClaudeRules): string[] {
  const value = permissions[list]
  if (value === undefined) return []
  if (!Array.isArray(value))
    fail(file, `permissions.${list} must be a list of rules such as "Bash(git status)"`)
  if (value.length > MAX_RULES) fail(file, `permissions.${list} has more than ${MAX_RULES} rules`)
  const out: string[] = []
  for (const [i, rule] of value.entries()) {
    if (typeof rule !== 'string') fail(file, `permissions.${list}[${i}] must be a string`)
    if (rule.length > MAX_RULE_CHARS)
      fail(file, `permissions.${list}[${i}] is longer than ${MAX_RULE_CHARS} characters`)
    const text = bashRuleText(rule)
    // Rules for other tools (Read(…), WebFetch(…), mcp__…) do not concern shell commands.
    if (text !== undefined && (rule.trim() === 'Bash' || rule.trim().startsWith('Bash(')))
      out.push(rule.trim())
  }
  return out
}

/**
 * The Bash rules of a Claude Code settings file (`permissions.allow`, `ask`, `deny`).
 * @throws WardenError `invalid-hook` naming the file and the problem (unreadable, too large,
 * not JSON, a list of the wrong shape).
 */
export function readClaudeRules(file: string): ClaudeRules {
  if (file.includes('\0')) fail(file.replaceAll('\0', ''), 'must not contain NUL')
  const text = readBounded(file)
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    // The parser's message quotes the file; it may hold secrets (env), so it is not repeated.
    fail(file, 'is not valid JSON')
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) fail(file, 'must hold a JSON object')
  const permissions = (data as Record<string, unknown>).permissions
  if (permissions === undefined) return { allow: [], ask: [], deny: [] }
  if (permissions === null || typeof permissions !== 'object' || Array.isArray(permissions))
    fail(file, 'permissions must be an object with allow, ask and deny lists')
  const lists = permissions as Record<string, unknown>
  return {
    allow: rulesOf(file, lists, 'allow'),
    ask: rulesOf(file, lists, 'ask'),
    deny: rulesOf(file, lists, 'deny'),
  }
}
