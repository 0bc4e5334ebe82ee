// Claude Code settings files (and plugin `hooks/hooks.json` files) as a hook source: the
// `hooks` section becomes Warden command hooks. Events go by their Claude Code names,
// matchers keep Claude Code's meaning (exact name, `A|B`, a regex, `*` or empty for all),
// `if` permission rules gate the hook, `timeout` is in seconds, and commands run through
// /bin/sh in the project folder with CLAUDE_PROJECT_DIR (and CLAUDE_PLUGIN_ROOT) set, as
// Claude Code runs them. Plain stdout of the events whose stdout Claude Code adds to the
// model's context becomes added context.

import { readFile } from 'node:fs/promises'
import { basename, dirname, resolve } from 'node:path'
import { HOOK_DEFAULTS, type HookDefinition, lookupEventName, suggestEventNames } from '../core/index.js'
import { claudeHttpHandler, HTTP_ENTRY_FIELDS } from './claude-http.js'
import { permissionRuleToCel } from './claude-rules.js'
import { emptyReport, isRecord, readHooksSection, type SourceReport } from './hook-files-report.js'

/** Claude Code's own default command timeout, in seconds. */
export const CLAUDE_DEFAULT_TIMEOUT_SECONDS = 60

/** Options of {@link parseClaudeSettings}. */
export interface ClaudeSettingsOptions {
  /** Prefix of the hook names (default "claude"); set one per file when loading several. */
  prefix?: string
  /**
   * The project folder (CLAUDE_PROJECT_DIR). Default: the parent of `.claude/` for a
   * settings file, the working directory for a plugin's `hooks/hooks.json`.
   */
  projectDir?: string
  /** Where `allowedEnvVars` of http hooks are read (default the process environment). */
  env?: NodeJS.ProcessEnv
}

/** Fields of a hook entry Warden reads (type-specific ones are checked per type). */
const KNOWN_ENTRY_FIELDS = new Set([
  'type',
  'command',
  'timeout',
  'if',
  'statusMessage',
  'async',
  'once',
  'url',
  'headers',
  'allowedEnvVars',
])

/** What a matcher selects on for non-tool events, as Claude Code documents it. */
const MATCHED_FIELDS: Record<string, string> = {
  'session.start': 'payload.session.source',
  'session.end': 'payload.session.reason',
  'subagent.start': 'payload.subagent.name',
}

/** Events whose plain (non-JSON) stdout Claude Code adds to the model's context. */
const STDOUT_CONTEXT_EVENTS = new Set(['session.start', 'user.message'])

const TOOL_EVENTS = new Set(['tool.pre', 'tool.post'])

/**
 * Reads a Claude Code settings file and turns its `hooks` into Warden hook definitions.
 * Never throws: an unreadable file or bad JSON is a problem in the report.
 */
export async function loadClaudeSettings(
  path: string,
  options: ClaudeSettingsOptions = {},
): Promise<SourceReport> {
  const file = resolve(path)
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    const report = emptyReport()
    report.problems.push({
      file,
      message: `cannot read the Claude Code settings file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    })
    return report
  }
  return parseClaudeSettings(text, file, options)
}

/** The project folder a settings file belongs to: the parent of `.claude/`, else its folder. */
export function claudeProjectDir(file: string): string {
  const folder = dirname(resolve(file))
  return basename(folder) === '.claude' ? dirname(folder) : folder
}

/** The plugin folder of a plugin's `hooks/hooks.json`, or undefined for a settings file. */
export function claudePluginRoot(file: string): string | undefined {
  const path = resolve(file)
  return basename(path) === 'hooks.json' && basename(dirname(path)) === 'hooks'
    ? dirname(dirname(path))
    : undefined
}

/**
 * Parses the text of a Claude Code settings file (`file` is used for positions and to find
 * the project folder).
 */
export function parseClaudeSettings(
  text: string,
  file: string,
  options: ClaudeSettingsOptions = {},
): SourceReport {
  const report = emptyReport()
  const problem = (message: string) => report.problems.push({ file, message })
  const warn = (message: string) => report.warnings.push({ file, message })
  const read = readHooksSection(text, file, report, {
    what: 'the settings file',
    example: '{"hooks": {"PreToolUse": [...]}}',
    hooksShape: 'mapping Claude Code event names to lists of matcher groups',
  })
  if (!read) return report
  const { data } = read
  if (data.disableAllHooks === true) {
    warn('"disableAllHooks" is true: the hooks of this file are off')
    return report
  }
  const pluginRoot = claudePluginRoot(file)
  const projectDir = options.projectDir ?? (pluginRoot ? process.cwd() : claudeProjectDir(file))
  const prefix = options.prefix ?? 'claude'
  for (const [eventName, groups] of Object.entries(read.hooks)) {
    const where = `hooks.${eventName}`
    const event = lookupEventName(eventName)
    if (!event) {
      const close = suggestEventNames(eventName).filter((n) => /^[A-Z]/.test(n))
      warn(
        close.length > 0
          ? `${where}: "${eventName}" is not a Claude Code event Warden knows; did you mean ${close.map((c) => `"${c}"`).join(' or ')}? Its hooks were skipped`
          : `${where}: Claude Code event "${eventName}" has no Warden equivalent; its hooks were skipped`,
      )
      continue
    }
    if (!Array.isArray(groups)) {
      problem(`${where} must be a list of {"matcher": ..., "hooks": [...]} groups`)
      continue
    }
    groups.forEach((group, g) => {
      const at = `${where}[${g}]`
      if (!isRecord(group) || !Array.isArray(group.hooks)) {
        problem(`${at} must be an object with a "hooks" list`)
        return
      }
      let matcher: string | undefined
      if (group.matcher !== undefined && group.matcher !== null) {
        if (typeof group.matcher !== 'string') {
          problem(`${at}.matcher must be a string: a tool name, "A|B", a regex, or "*" for all`)
          return
        }
        matcher = group.matcher === '*' || group.matcher === '' ? undefined : group.matcher
      }
      let condition: string | undefined
      if (matcher !== undefined && !TOOL_EVENTS.has(event)) {
        const field = MATCHED_FIELDS[event]
        if (field) condition = `has(${field}) && ${field}.matches(${JSON.stringify(`^(?:${matcher})$`)})`
        else
          warn(
            `${at}.matcher "${matcher}" has no meaning on ${eventName} in Warden; these hooks run on every ${eventName}`,
          )
        matcher = undefined
      }
      for (const key of Object.keys(group)) {
        if (key !== 'matcher' && key !== 'hooks')
          warn(`${at}: field "${key}" is not one Warden knows; it was ignored`)
      }
      group.hooks.forEach((entry, h) => {
        const definition = toDefinition(entry, `${at}.hooks[${h}]`, problem, warn, {
          name: `${prefix}:${eventName}:${pad(g + 1)}.${pad(h + 1)}`,
          event: eventName,
          canonical: event,
          matcher,
          condition,
          projectDir,
          pluginRoot,
          file,
          env: options.env ?? process.env,
        })
        if (definition) report.hooks.push(definition)
      })
    })
  }
  return report
}

interface Placement {
  name: string
  event: string
  canonical: string
  matcher: string | undefined
  /** CEL for a matcher on a non-tool event (SessionStart's source, ...). */
  condition: string | undefined
  projectDir: string
  pluginRoot: string | undefined
  file: string
  env: NodeJS.ProcessEnv
}

function toDefinition(
  entry: unknown,
  at: string,
  problem: (message: string) => void,
  warn: (message: string) => void,
  place: Placement,
): HookDefinition | undefined {
  if (!isRecord(entry)) {
    problem(`${at} must be an object such as {"type": "command", "command": "..."}`)
    return undefined
  }
  if (entry.type !== 'command' && entry.type !== 'http') {
    problem(
      `${at}: hook type ${JSON.stringify(entry.type)} is not supported from Claude Code settings; only "command" and "http" hooks load (declare other kinds in warden.yaml)`,
    )
    return undefined
  }
  let handler: HookDefinition['handler']
  if (entry.type === 'http') {
    const http = claudeHttpHandler(entry, place.env)
    if ('error' in http) {
      problem(`${at}.${http.error}`)
      return undefined
    }
    handler = http.handler
  } else {
    if (typeof entry.command !== 'string' || entry.command.trim() === '') {
      problem(`${at}.command must be a non-empty string`)
      return undefined
    }
    let command = withProjectDir(entry.command, place.projectDir)
    if (STDOUT_CONTEXT_EVENTS.has(place.canonical)) command = stdoutAsContext(command)
    handler = { type: 'command', command: `${exports(place)}${command}`, shell: true, cwd: place.projectDir }
  }
  let seconds = CLAUDE_DEFAULT_TIMEOUT_SECONDS
  if (entry.timeout !== undefined) {
    const max = HOOK_DEFAULTS.maxTimeoutMs / 1000
    if (typeof entry.timeout !== 'number' || !(entry.timeout > 0) || entry.timeout > max) {
      problem(`${at}.timeout must be a number of seconds between 0 and ${max}`)
      return undefined
    }
    seconds = entry.timeout
  }
  const hook = `hook "${place.name}" (${at})`
  const known = (key: string) =>
    KNOWN_ENTRY_FIELDS.has(key) &&
    (entry.type === 'http' ? key !== 'command' : !(HTTP_ENTRY_FIELDS as readonly string[]).includes(key))
  for (const key of Object.keys(entry)) {
    if (!known(key)) warn(`${hook}: field "${key}" is not one Warden knows; it was ignored`)
  }
  for (const key of ['statusMessage'] as const) {
    if (entry[key] !== undefined && typeof entry[key] !== 'string') {
      problem(`${at}.${key} must be a string`)
      return undefined
    }
  }
  for (const key of ['async', 'once'] as const) {
    if (entry[key] !== undefined && typeof entry[key] !== 'boolean') {
      problem(`${at}.${key} must be true or false`)
      return undefined
    }
  }
  const definition: HookDefinition = {
    name: place.name,
    event: place.event,
    timeoutMs: Math.max(1, Math.round(seconds * 1000)),
    source: `claude-settings:${place.file}`,
    handler,
  }
  if (place.matcher !== undefined) definition.matcher = place.matcher
  if (place.condition !== undefined) definition.if = place.condition
  if (entry.if !== undefined) {
    if (typeof entry.if !== 'string' || entry.if.trim() === '') {
      problem(`${at}.if must be a permission rule such as "Bash(git commit *)"`)
      return undefined
    }
    if (!TOOL_EVENTS.has(place.canonical)) {
      warn(`${hook}: "if" only applies to tool events; it was ignored on ${place.event}`)
    } else {
      const rule = permissionRuleToCel(entry.if, { projectDir: place.projectDir })
      if ('error' in rule) {
        problem(`${at}.if: ${rule.error}`)
        return undefined
      }
      definition.if = rule.cel
    }
  }
  if (entry.async === true) {
    // Claude Code never lets an async hook hold up or block the call: its failures allow.
    definition.onError = 'allow'
    definition.onTimeout = 'allow'
    warn(
      `${hook}: "async" hooks run in the background in Claude Code and cannot block; Warden waits for it, and a block it answers still counts (its failures and timeouts allow)`,
    )
  }
  if (entry.once === true)
    warn(`${hook}: "once" applies to skill hooks only; Warden runs this hook every time`)
  return definition
}

/** Shell lines setting the variables Claude Code gives its hook processes. */
function exports(place: Placement): string {
  const vars = [`CLAUDE_PROJECT_DIR=${quote(place.projectDir)}`]
  if (place.pluginRoot) vars.push(`CLAUDE_PLUGIN_ROOT=${quote(place.pluginRoot)}`)
  return `export ${vars.join(' ')}\n`
}

/**
 * Wraps a shell command so plain stdout becomes `{"additionalContext": ...}` (JSON stdout
 * passes as it is) and the exit code is kept, as Claude Code reads SessionStart and
 * UserPromptSubmit output.
 */
function stdoutAsContext(command: string): string {
  const script =
    'let s="";process.stdin.on("data",(d)=>{s+=d}).on("end",()=>{const t=s.trim();' +
    'process.stdout.write(t===""||t.startsWith("{")?t:JSON.stringify({additionalContext:t}))})'
  return `__warden_out=$(\n${command}\n)\n__warden_rc=$?\nprintf '%s' "$__warden_out" | ${quote(process.execPath)} -e ${quote(script)}\nexit $__warden_rc`
}

function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`
}

/**
 * Replaces a quoted `"$CLAUDE_PROJECT_DIR"` with the quoted project folder (the variable is
 * also exported, so every other spelling expands in the shell).
 */
export function withProjectDir(command: string, projectDir: string): string {
  const quoted = `'${projectDir.replaceAll("'", `'\\''`)}'`
  return command.replaceAll(/"\$\{?CLAUDE_PROJECT_DIR\}?"/g, quoted)
}

function pad(n: number): string {
  return String(n).padStart(2, '0')
}
