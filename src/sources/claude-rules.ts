// Claude Code permission rules (`Bash(git commit *)`, `Edit(src/**/*.ts)`,
// `WebFetch(domain:example.com)`, `mcp__github__*`) as Warden `if` expressions (CEL), so a
// settings hook gated by `"if"` runs only on the calls Claude Code would run it on.

import { homedir } from 'node:os'
import { posix } from 'node:path'

/** Tools whose rule specifier is a path pattern, and the input field holding the path. */
const PATH_FIELDS: Record<string, string> = {
  Read: 'file_path',
  Edit: 'file_path',
  Write: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
  Glob: 'path',
  Grep: 'path',
}

/** Tools whose specifier is matched (as a glob) against one input field. */
const GLOB_FIELDS: Record<string, string> = {
  Bash: 'command',
  Agent: 'subagent_type',
  Task: 'subagent_type',
  Skill: 'skill',
  WebSearch: 'query',
}

/** Where path patterns resolve: the project folder and the home folder. */
export interface RuleFolders {
  projectDir: string
  home?: string
}

/**
 * Translates one Claude Code permission rule into a CEL expression over `tool_name` and
 * `tool_input`.
 * @returns the expression, or an error saying what Warden cannot translate.
 */
export function permissionRuleToCel(rule: string, folders: RuleFolders): { cel: string } | { error: string } {
  const match = /^([A-Za-z0-9_*-]+)(?:\((.*)\))?$/s.exec(rule.trim())
  if (!match) return { error: `"${rule}" is not a permission rule such as "Bash(git commit *)" or "Edit"` }
  const tool = match[1] as string
  const specifier = match[2]
  const name = tool.includes('*')
    ? `tool_name.matches(${lit(globRegex(tool, '.*'))})`
    : `tool_name == ${lit(tool)}`
  if (specifier === undefined || specifier === '' || specifier === '*') return { cel: name }
  const pathField = PATH_FIELDS[tool]
  if (pathField)
    return { cel: `${name} && ${field(pathField)}.matches(${lit(pathRegex(specifier, folders))})` }
  if (tool === 'WebFetch') {
    const domain = /^domain:(.+)$/.exec(specifier)?.[1]
    if (!domain) return { error: `"${rule}": WebFetch rules take "domain:NAME"` }
    const host = domain.startsWith('*.') ? `([^/:]*\\.)?${escapeRegex(domain.slice(2))}` : escapeRegex(domain)
    return {
      cel: `${name} && ${field('url')}.matches(${lit(`^[a-zA-Z][a-zA-Z0-9+.-]*://${host}([:/?#]|$)`)})`,
    }
  }
  const globField = GLOB_FIELDS[tool]
  if (!globField) {
    return {
      error: `"${rule}": Warden does not know which input of ${tool} the specifier "${specifier}" applies to (write the rule as "${tool}" alone, or use a Warden hook with a CEL "if")`,
    }
  }
  const prefix = specifier.endsWith(':*') ? specifier.slice(0, -2) : undefined
  const regex = prefix !== undefined ? `^${escapeRegex(prefix)}(\\s.*)?$` : globRegex(specifier, '.*')
  return { cel: `${name} && ${field(globField)}.matches(${lit(regex)})` }
}

/** `has(tool_input.f) && type(tool_input.f) == string` guarded access, as one string expression. */
function field(name: string): string {
  return `has(tool_input.${name}) && type(tool_input.${name}) == string && tool_input.${name}`
}

/**
 * A gitignore-style path pattern as an anchored regex: `//abs` is an absolute path, `~/x`
 * under the home folder, `/x` and `./x` under the project folder, a bare name matches at
 * any depth; `**` spans folders, `*` stays within one.
 */
function pathRegex(pattern: string, folders: RuleFolders): string {
  let base: string | undefined
  let rest = pattern
  if (pattern.startsWith('//')) {
    base = '/'
    rest = pattern.slice(2)
  } else if (pattern.startsWith('~/')) {
    base = folders.home ?? homedir()
    rest = pattern.slice(2)
  } else if (pattern.startsWith('/') || pattern.startsWith('./')) {
    base = folders.projectDir
    rest = pattern.replace(/^\.?\//, '')
  } else if (pattern.includes('/')) {
    base = folders.projectDir
  }
  const body = pathGlob(rest)
  if (base === undefined) return `(^|/)${body}$`
  const root = posix.join(base, '/')
  // A relative tool path (as agents sometimes send) is read against the project folder.
  const relative = base === folders.projectDir ? `|^(\\./)?${body}$` : ''
  return `^${escapeRegex(root)}${body}$${relative}`
}

function pathGlob(pattern: string): string {
  let out = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string
    if (c === '*' && pattern[i + 1] === '*') {
      const slash = pattern[i + 2] === '/'
      out += slash ? '(.*/)?' : '.*'
      i += slash ? 2 : 1
    } else if (c === '*') out += '[^/]*'
    else if (c === '?') out += '[^/]'
    else out += escapeRegex(c)
  }
  return out
}

function globRegex(pattern: string, star: string): string {
  return `^${pattern.split('*').map(escapeRegex).join(star)}$`
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** A CEL string literal (JSON escapes are valid CEL escapes). */
function lit(text: string): string {
  return JSON.stringify(text)
}
