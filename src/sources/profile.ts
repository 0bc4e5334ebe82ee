// loom `agent.json` profiles as a hook source: each bucket of `hooks` (onStart, onToolCall,
// onToolEnd, onModelCall, onModelEnd, onComplete, onError) maps to a Warden event, and each
// action in it (log, webhook, save_json, approve, command) becomes one hook. Command actions
// are refused unless the operator opts in with WARDEN_ALLOW_COMMAND_HOOKS=1; they speak loom
// (its context on stdin, any non-zero exit blocks, tool.post and model.pre only observe) and
// may never rewrite what a tool is about to do, as loom rules for profiles.

import { readFile } from 'node:fs/promises'
import { basename, dirname, resolve } from 'node:path'
import { editDistance, type HookDefinition } from '../core/index.js'
import { emptyReport, isRecord, readHooksSection, type SourceReport } from './hook-files-report.js'
import { PROFILE_ACTION_TYPE, saveJsonPathProblem, webhookUrlProblem } from './profile-actions.js'

/** Profile buckets and the canonical events they map to. */
export const PROFILE_BUCKETS: Readonly<Record<string, string>> = {
  onStart: 'session.start',
  onToolCall: 'tool.pre',
  onToolEnd: 'tool.post',
  onModelCall: 'model.pre',
  onModelEnd: 'model.post',
  onComplete: 'session.end',
  onError: 'error',
}

/** The environment variable that lets profiles run command actions. */
export const ALLOW_COMMAND_HOOKS_ENV = 'WARDEN_ALLOW_COMMAND_HOOKS'

const ACTION_KEYS: Record<string, readonly string[]> = {
  log: ['level'],
  webhook: ['url'],
  save_json: ['path'],
  approve: ['tools'],
  command: ['command'],
}
const COMMON_KEYS = ['action', 'type', 'timeoutMs']
const LOG_LEVELS = new Set(['debug', 'info', 'warn', 'error'])

/** Options of {@link parseProfile}. */
export interface ProfileOptions {
  /** The environment read for WARDEN_ALLOW_COMMAND_HOOKS (default: process.env). */
  env?: NodeJS.ProcessEnv
  /** URL prefixes webhooks may post to; a webhook outside them is a problem. */
  webhookAllow?: readonly string[]
}

/** Reads an agent.json profile. Never throws: problems are in the report. */
export async function loadProfile(path: string, options: ProfileOptions = {}): Promise<SourceReport> {
  const file = resolve(path)
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    const report = emptyReport()
    report.problems.push({
      file,
      message: `cannot read the profile: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    })
    return report
  }
  return parseProfile(text, file, options)
}

/** Parses the text of an agent.json profile (`file` locates its folder and names problems). */
export function parseProfile(text: string, file: string, options: ProfileOptions = {}): SourceReport {
  const report = emptyReport()
  const problem = (message: string) => report.problems.push({ file, message })
  const warn = (message: string) => report.warnings.push({ file, message })
  const read = readHooksSection(text, file, report, {
    what: 'the profile',
    example: '{"name": "my-agent", "hooks": {"onToolCall": [...]}}',
    hooksShape: `whose keys are ${Object.keys(PROFILE_BUCKETS).join(', ')}`,
  })
  if (!read) return report
  const { data } = read
  const profile = profileName(data.name, file)
  const baseDir = dirname(resolve(file))
  const env = options.env ?? process.env
  for (const [bucket, actions] of Object.entries(read.hooks)) {
    const event = PROFILE_BUCKETS[bucket]
    if (!event) {
      const close = Object.keys(PROFILE_BUCKETS).filter(
        (b) => editDistance(b.toLowerCase(), bucket.toLowerCase()) <= 3,
      )
      warn(
        `hooks.${bucket} is not a profile bucket${close.length ? `; did you mean "${close[0]}"?` : ''} (use ${Object.keys(PROFILE_BUCKETS).join(', ')}); its actions were skipped`,
      )
      continue
    }
    if (!Array.isArray(actions)) {
      problem(`hooks.${bucket} must be a list of actions such as {"action": "log"}`)
      continue
    }
    actions.forEach((action, index) => {
      const at = `hooks.${bucket}[${index}]`
      const hook = toHook(
        action,
        at,
        { profile, bucket, event, index, baseDir, file, env, options },
        problem,
        warn,
      )
      if (hook) report.hooks.push(hook)
    })
  }
  return report
}

interface Place {
  profile: string
  bucket: string
  event: string
  index: number
  baseDir: string
  file: string
  env: NodeJS.ProcessEnv
  options: ProfileOptions
}

function toHook(
  raw: unknown,
  at: string,
  place: Place,
  problem: (message: string) => void,
  warn: (message: string) => void,
): HookDefinition | undefined {
  if (!isRecord(raw)) {
    problem(`${at} must be an object such as {"action": "log", "level": "info"}`)
    return undefined
  }
  const kind = raw.action ?? raw.type
  if (typeof kind !== 'string' || !(kind in ACTION_KEYS)) {
    problem(
      `${at}.action must be one of ${Object.keys(ACTION_KEYS).join(', ')} (got ${JSON.stringify(kind)})`,
    )
    return undefined
  }
  const known = new Set([...COMMON_KEYS, ...(ACTION_KEYS[kind] ?? [])])
  const unknown = Object.keys(raw).filter((k) => !known.has(k))
  if (unknown.length > 0)
    warn(`${at}: unknown key${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} ignored`)
  const definition: HookDefinition = {
    name: `${place.profile}:${place.bucket}:${String(place.index + 1).padStart(2, '0')}-${kind}`,
    event: place.event,
    source: `profile:${place.file}`,
    handler: { type: PROFILE_ACTION_TYPE, action: kind, profile: place.profile },
  }
  if (raw.timeoutMs !== undefined) {
    if (typeof raw.timeoutMs !== 'number' || !Number.isInteger(raw.timeoutMs) || raw.timeoutMs <= 0) {
      problem(`${at}.timeoutMs must be a positive whole number of milliseconds`)
      return undefined
    }
    definition.timeoutMs = raw.timeoutMs
  }
  const observer = () => {
    // Observe-only actions never hold the agent up: their failures are recorded, not enforced.
    definition.onError = 'allow'
    definition.onTimeout = 'allow'
  }
  switch (kind) {
    case 'log': {
      const level = raw.level ?? 'info'
      if (typeof level !== 'string' || !LOG_LEVELS.has(level)) {
        problem(`${at}.level must be one of ${[...LOG_LEVELS].join(', ')}`)
        return undefined
      }
      definition.handler.level = level
      observer()
      return definition
    }
    case 'webhook': {
      if (typeof raw.url !== 'string') {
        problem(`${at}.url is required: an https URL (or http to 127.0.0.1 / localhost)`)
        return undefined
      }
      const issue = webhookUrlProblem(raw.url, place.options.webhookAllow ?? [])
      if (issue) {
        problem(`${at}: ${issue}`)
        return undefined
      }
      definition.handler.url = raw.url
      observer()
      return definition
    }
    case 'save_json': {
      if (typeof raw.path !== 'string') {
        problem(`${at}.path is required: a file inside the profile's folder, e.g. "logs/events.jsonl"`)
        return undefined
      }
      const issue = saveJsonPathProblem(raw.path, place.baseDir)
      if (issue) {
        problem(`${at}: ${issue}`)
        return undefined
      }
      definition.handler.path = raw.path
      definition.handler.baseDir = place.baseDir
      observer()
      return definition
    }
    case 'approve': {
      if (raw.tools !== undefined) {
        if (!Array.isArray(raw.tools) || !raw.tools.every((t) => typeof t === 'string' && t !== '')) {
          problem(`${at}.tools must be a list of tool name globs such as ["deploy_*", "Bash"]`)
          return undefined
        }
        definition.handler.tools = raw.tools
      }
      return definition
    }
    default:
      return commandHook(raw, at, place, definition, problem)
  }
}

function commandHook(
  raw: Record<string, unknown>,
  at: string,
  place: Place,
  definition: HookDefinition,
  problem: (message: string) => void,
): HookDefinition | undefined {
  if (place.env[ALLOW_COMMAND_HOOKS_ENV] !== '1') {
    problem(
      `${at}: command actions are refused unless the operator sets ${ALLOW_COMMAND_HOOKS_ENV}=1 (a profile must not run programs on its own say-so)`,
    )
    return undefined
  }
  if (typeof raw.command !== 'string' || raw.command.trim() === '') {
    problem(`${at}.command must be a non-empty string`)
    return undefined
  }
  definition.handler = {
    type: 'command',
    command: raw.command,
    shell: true,
    baseDir: place.baseDir,
    cwd: place.baseDir,
    dialect: 'loom',
    rewrite: false,
  }
  return definition
}

/** The profile's name, reduced to the characters hook names allow. */
function profileName(name: unknown, file: string): string {
  const raw = typeof name === 'string' && name.trim() !== '' ? name : basename(file).replace(/\.json$/i, '')
  const cleaned = raw.replace(/[^A-Za-z0-9._@-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '')
  return cleaned.slice(0, 64) || 'profile'
}
