// A small, independent runner of Claude Code hooks that follows Claude Code's documented
// hook contract, used as the yardstick for Warden: matcher groups (tool name for tool
// events, `source` for SessionStart), `if` permission rules (Bash and path globs), commands
// through /bin/sh in the project folder with CLAUDE_PROJECT_DIR / CLAUDE_PLUGIN_ROOT set,
// stdin JSON; exit 0 reads stdout (JSON, or plain text as context on SessionStart and
// UserPromptSubmit), exit 2 blocks with stderr, other codes are non-blocking errors;
// results combine deny > ask > allow. It shares no code with Warden.

import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'

/** What Claude Code would do with one event. */
export interface ReferenceOutcome {
  decision: 'allow' | 'deny' | 'ask'
  reasons: string[]
  context: string[]
}

interface HookEntry {
  type: string
  command: string
  if?: string
  timeout?: number
}

interface Group {
  matcher?: string
  hooks: HookEntry[]
}

const TOOL_EVENTS = new Set(['PreToolUse', 'PostToolUse'])
const BLOCKABLE = new Set(['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop', 'SubagentStop'])
const STDOUT_IS_CONTEXT = new Set(['SessionStart', 'UserPromptSubmit'])

/** Runs the hooks of a settings (or plugin hooks.json) file on one hook input. */
export async function runReference(
  settingsFile: string,
  input: Record<string, unknown>,
  env: { projectDir: string; pluginRoot?: string },
): Promise<ReferenceOutcome> {
  const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as { hooks: Record<string, Group[]> }
  const event = String(input.hook_event_name)
  const groups = settings.hooks[event] ?? []
  const selected = groups
    .filter((g) => groupMatches(g.matcher, event, input))
    .flatMap((g) => g.hooks)
    .filter((h) => h.type === 'command' && ruleMatches(h.if, input, env.projectDir))
  const results = await Promise.all(selected.map((hook) => runOne(hook, input, env)))
  const outcome: ReferenceOutcome = { decision: 'allow', reasons: [], context: [] }
  for (const r of results) {
    outcome.context.push(...r.context)
    if (!BLOCKABLE.has(event)) continue
    if (r.decision === 'deny') {
      outcome.decision = 'deny'
      outcome.reasons.push(r.reason)
    } else if (r.decision === 'ask' && outcome.decision !== 'deny') {
      outcome.decision = 'ask'
      outcome.reasons.push(r.reason)
    }
  }
  return outcome
}

function groupMatches(matcher: string | undefined, event: string, input: Record<string, unknown>): boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return true
  const target = TOOL_EVENTS.has(event)
    ? input.tool_name
    : event === 'SessionStart'
      ? input.source
      : undefined
  if (typeof target !== 'string') return true
  return new RegExp(`^(?:${matcher})$`).test(target)
}

/** `Tool` or `Tool(pattern)`: Bash globs on the command, file tools globs on file_path. */
function ruleMatches(rule: string | undefined, input: Record<string, unknown>, projectDir: string): boolean {
  if (rule === undefined) return true
  const m = /^(\w+)(?:\((.*)\))?$/.exec(rule)
  if (!m || m[1] !== input.tool_name) return false
  if (m[2] === undefined) return true
  const toolInput = (input.tool_input ?? {}) as Record<string, unknown>
  if (m[1] === 'Bash') return glob(m[2], '.*').test(String(toolInput.command ?? ''))
  const path = String(toolInput.file_path ?? '')
  const pattern = m[2]
  if (!pattern.includes('/')) return glob(pattern, '[^/]*').test(path.split('/').pop() ?? '')
  return glob(`${projectDir}/${pattern.replace(/^\.?\//, '')}`, '[^/]*').test(path)
}

function glob(pattern: string, star: string): RegExp {
  const escaped = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
  return new RegExp(`^${escaped.join(star)}$`)
}

interface HookResult {
  decision: 'allow' | 'deny' | 'ask'
  reason: string
  context: string[]
}

function runOne(
  hook: HookEntry,
  input: Record<string, unknown>,
  env: { projectDir: string; pluginRoot?: string },
): Promise<HookResult> {
  return new Promise((resolve, reject) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, CLAUDE_PROJECT_DIR: env.projectDir }
    if (env.pluginRoot) childEnv.CLAUDE_PLUGIN_ROOT = env.pluginRoot
    const child = spawn('/bin/sh', ['-c', hook.command], { cwd: env.projectDir, env: childEnv })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => {
      stdout += d
    })
    child.stderr.on('data', (d) => {
      stderr += d
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), (hook.timeout ?? 60) * 1000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve(interpret(code, stdout, stderr, String(input.hook_event_name)))
    })
    // A hook that exits without reading its input closes the pipe: as for Claude Code, not an error.
    child.stdin.on('error', () => undefined)
    child.stdin.end(JSON.stringify(input))
  })
}

function interpret(code: number | null, stdout: string, stderr: string, event: string): HookResult {
  if (code === 2) return { decision: 'deny', reason: stderr.trim(), context: [] }
  if (code !== 0) return { decision: 'allow', reason: '', context: [] }
  const text = stdout.trim()
  let json: Record<string, unknown> | undefined
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed === 'object' && parsed !== null) json = parsed as Record<string, unknown>
  } catch {
    json = undefined
  }
  if (!json) {
    return { decision: 'allow', reason: '', context: STDOUT_IS_CONTEXT.has(event) && text ? [text] : [] }
  }
  const specific = (json.hookSpecificOutput ?? {}) as Record<string, unknown>
  const context = typeof specific.additionalContext === 'string' ? [specific.additionalContext] : []
  if (json.continue === false)
    return { decision: 'deny', reason: String(json.stopReason ?? json.reason ?? ''), context }
  if (specific.permissionDecision === 'deny' || specific.permissionDecision === 'ask') {
    return {
      decision: specific.permissionDecision,
      reason: String(specific.permissionDecisionReason ?? ''),
      context,
    }
  }
  if (json.decision === 'block') return { decision: 'deny', reason: String(json.reason ?? ''), context }
  return { decision: 'allow', reason: '', context }
}
