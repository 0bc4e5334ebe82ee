// Claude Code settings files as a hook source: the `hooks` section of a settings.json
// becomes Warden command hooks. Events go by their Claude Code names, matchers keep Claude
// Code's meaning (exact name, `A|B`, a regex, `*` or empty for all), `timeout` is in
// seconds, and commands run through /bin/sh in the project folder as Claude Code runs them.

import { readFile } from 'node:fs/promises'
import { basename, dirname, resolve } from 'node:path'
import { HOOK_DEFAULTS, type HookDefinition, lookupEventName, suggestEventNames } from '../core/index.js'
import { emptyReport, isRecord, readHooksSection, type SourceReport } from './hook-files-report.js'

/** Claude Code's own default command timeout, in seconds. */
export const CLAUDE_DEFAULT_TIMEOUT_SECONDS = 60

/** Options of {@link parseClaudeSettings}. */
export interface ClaudeSettingsOptions {
  /** Prefix of the hook names (default "claude"); set one per file when loading several. */
  prefix?: string
}

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
  const projectDir = claudeProjectDir(file)
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
      if (matcher !== undefined && !TOOL_EVENTS.has(event)) {
        warn(
          `${at}.matcher "${matcher}" only applies to tool events in Warden; these hooks run on every ${eventName}`,
        )
        matcher = undefined
      }
      group.hooks.forEach((entry, h) => {
        const definition = toDefinition(entry, `${at}.hooks[${h}]`, problem, {
          name: `${prefix}:${eventName}:${pad(g + 1)}.${pad(h + 1)}`,
          event: eventName,
          matcher,
          projectDir,
          file,
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
  matcher: string | undefined
  projectDir: string
  file: string
}

function toDefinition(
  entry: unknown,
  at: string,
  problem: (message: string) => void,
  place: Placement,
): HookDefinition | undefined {
  if (!isRecord(entry)) {
    problem(`${at} must be an object such as {"type": "command", "command": "..."}`)
    return undefined
  }
  if (entry.type !== 'command') {
    problem(
      `${at}: hook type ${JSON.stringify(entry.type)} is not supported from Claude Code settings; only "command" hooks load (declare other kinds in warden.yaml)`,
    )
    return undefined
  }
  if (typeof entry.command !== 'string' || entry.command.trim() === '') {
    problem(`${at}.command must be a non-empty string`)
    return undefined
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
  const definition: HookDefinition = {
    name: place.name,
    event: place.event,
    timeoutMs: Math.max(1, Math.round(seconds * 1000)),
    source: `claude-settings:${place.file}`,
    handler: {
      type: 'command',
      command: withProjectDir(entry.command, place.projectDir),
      shell: true,
      cwd: place.projectDir,
    },
  }
  if (place.matcher !== undefined) definition.matcher = place.matcher
  return definition
}

/** Replaces `$CLAUDE_PROJECT_DIR` / `${CLAUDE_PROJECT_DIR}` with the quoted project folder. */
export function withProjectDir(command: string, projectDir: string): string {
  const quoted = `'${projectDir.replaceAll("'", `'\\''`)}'`
  return command
    .replaceAll(/"\$\{?CLAUDE_PROJECT_DIR\}?"/g, quoted)
    .replaceAll(/\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR\b/g, quoted)
}

function pad(n: number): string {
  return String(n).padStart(2, '0')
}
