// `warden check [--config warden.yaml] [--format warden|claude] [FILE | -]`: evaluates one
// event — canonical {event, payload, context} or Claude Code hook input — against the
// configured hooks, prints the decision as JSON and exits 0 (allow/modify), 2 (deny, the
// reason on stderr) or 1 (error). Usable as a Claude Code command hook as it is.

import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import {
  type ApprovalRequest,
  type Decision,
  eventInfo,
  fromClaudeInput,
  type HookDefinition,
  isClaudeInput,
  type JsonObject,
} from '../core/index.js'
import {
  buildEngine,
  formatProblem,
  loadConfig,
  loadHookSources,
  type WardenConfig,
} from '../sources/index.js'
import { parseArgs } from './args.js'
import { type CliIo, readInput } from './io.js'

const HELP = `usage: warden check [--config warden.yaml] [--format warden|claude] [--hooks DIR]
                    [--claude-settings FILE] [--claude-plugin DIR] [--profile FILE]
                    [--goclaw FILE] [FILE | -]

Reads one event from FILE (or stdin) and runs the hooks of the config on it.
The event is {"event", "payload", "context"} or a Claude Code hook input (hook_event_name).
Prints the decision as JSON: Warden's shape, or Claude Code hook output when the input was
Claude Code hook input (override with --format). Exit code: 0 allow or modify, 2 deny
(reason on stderr), 1 error. Events that cannot block (SessionStart, SessionEnd, ...) are
still run to the end, so the context their hooks add is printed. With Claude Code input, a
PreToolUse hook that asks answers permissionDecision "ask": Claude Code asks its user.

Hooks also come from (each flag may repeat):
  --hooks DIR               a folder of Starlark hook files (*.md with YAML front matter)
  --claude-settings FILE    the "hooks" of a Claude Code settings.json (or a plugin's
                            hooks/hooks.json)
  --claude-plugin DIR       a Claude Code plugin folder: its hooks/hooks.json
  --profile FILE            the hook actions of a loom agent.json profile
  --goclaw FILE             GoClaw hook definitions (JSON or YAML; higher priority first)
A hook file, settings file or profile with a problem is an error (exit 1).

examples:
  warden check --config examples/warden.yaml examples/events/exec-rm.json   # exit 2: denied
  echo '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}' \\
    | warden check --config examples/warden.yaml --format claude
`

/** Runs `warden check`. */
export async function run(args: string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parseCheckArgs>
  try {
    parsed = parseCheckArgs(args)
  } catch (error) {
    io.stderr(`warden check: ${(error as Error).message}\n\n${HELP}`)
    return 1
  }
  if (parsed.values.help) {
    io.stdout(HELP)
    return 0
  }
  const format = parsed.values.format
  if (format !== undefined && format !== 'warden' && format !== 'claude') {
    io.stderr(`warden check: --format must be "warden" or "claude" (got "${format}")\n`)
    return 1
  }
  let config: WardenConfig | undefined
  try {
    const configPath =
      parsed.values.config ??
      (existsSync(resolve(io.cwd, 'warden.yaml')) ? resolve(io.cwd, 'warden.yaml') : undefined)
    if (configPath) config = await loadConfig(resolve(io.cwd, configPath))
  } catch (error) {
    io.stderr(`warden check: ${(error as Error).message}\n`)
    return 1
  }
  let extraHooks: HookDefinition[] = []
  let tenantTokenBudgets: Record<string, number> | undefined
  const { hooks: hookDirs, profile: profiles, goclaw } = parsed.values
  const claudeSettings = [
    ...(parsed.values['claude-settings'] ?? []),
    ...(parsed.values['claude-plugin'] ?? []).map((dir) => join(dir, 'hooks', 'hooks.json')),
  ]
  if (hookDirs?.length || claudeSettings.length || profiles?.length || goclaw?.length) {
    const where = (paths: string[] | undefined) => (paths ?? []).map((p) => resolve(io.cwd, p))
    const report = await loadHookSources({
      hookDirs: where(hookDirs),
      claudeSettings: where(claudeSettings),
      profiles: where(profiles),
      goclaw: where(goclaw),
      env: io.env,
      ...(config ? { config } : {}),
    })
    for (const warning of report.warnings) io.stderr(`warden check: warning: ${formatProblem(warning)}\n`)
    if (report.problems.length > 0) {
      for (const problem of report.problems) io.stderr(`warden check: ${formatProblem(problem)}\n`)
      return 1
    }
    extraHooks = report.hooks
    tenantTokenBudgets = report.tokenBudgets
  }
  const file = parsed.positionals[0]
  let text: string
  try {
    text = await readInput(file === undefined || file === '-' ? file : resolve(io.cwd, file), io)
  } catch (error) {
    io.stderr(
      `warden check: cannot read the event ${file ?? 'from stdin'}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`,
    )
    return 1
  }
  let input: unknown
  try {
    input = JSON.parse(text)
  } catch (error) {
    io.stderr(
      `warden check: the event ${file ? `in ${file} ` : ''}is not valid JSON: ${(error as Error).message}\n`,
    )
    return 1
  }
  const claude = isClaudeInput(input)
  const event = claude ? fromClaudeInput(input as JsonObject) : toCanonical(input)
  if ('error' in event) {
    io.stderr(`warden check: ${event.error}\n`)
    return 1
  }
  let engine: ReturnType<typeof buildEngine>
  const asked: ApprovalRequest[] = []
  const askClaude = claude && event.event === 'tool.pre'
  try {
    engine = buildEngine(config, {
      extraHooks,
      env: io.env,
      ...(tenantTokenBudgets ? { tenantTokenBudgets } : {}),
      // Claude Code asks its own user: the asks are passed back to it, not decided here.
      ...(askClaude
        ? {
            approver: (request: ApprovalRequest) => {
              asked.push(request)
              return { outcome: 'approve' as const }
            },
          }
        : {}),
    })
  } catch (error) {
    io.stderr(`warden check: ${(error as Error).message}\n`)
    return 1
  }
  const decision = await engine.dispatch({ ...event, wait: true })
  await engine.close()
  if (decision.reasonCode.includes('invalid-event')) {
    io.stderr(`warden check: ${decision.reason}\n`)
    return 1
  }
  const output =
    (format ?? (claude ? 'claude' : 'warden')) === 'claude' ? toClaudeOutput(decision, asked) : decision
  io.stdout(`${JSON.stringify(output, null, 2)}\n`)
  if (decision.decision === 'deny') {
    io.stderr(`${decision.reason}\n`)
    return 2
  }
  return 0
}

function parseCheckArgs(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      config: { type: 'string', short: 'c' },
      format: { type: 'string' },
      hooks: { type: 'string', multiple: true },
      'claude-settings': { type: 'string', multiple: true },
      'claude-plugin': { type: 'string', multiple: true },
      profile: { type: 'string', multiple: true },
      goclaw: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  })
}

function toCanonical(
  input: unknown,
): { event: string; payload: unknown; context?: JsonObject } | { error: string } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return {
      error:
        'the event must be a JSON object: {"event": "tool.pre", "payload": {...}, "context": {...}} or Claude Code hook input',
    }
  }
  const record = input as Record<string, unknown>
  if (typeof record.event !== 'string') {
    return {
      error:
        'the event needs "event" (a name such as "tool.pre") or, for Claude Code input, "hook_event_name"',
    }
  }
  if (typeof record.payload !== 'object' || record.payload === null)
    return { error: 'the event needs "payload" (an object)' }
  return {
    event: record.event,
    payload: record.payload,
    ...(record.context ? { context: record.context as JsonObject } : {}),
  }
}

/**
 * A decision as Claude Code hook output. `asked` holds the approval requests a PreToolUse
 * chain raised: then the answer is `permissionDecision: "ask"`, for Claude Code to ask its user.
 */
export function toClaudeOutput(decision: Decision, asked: readonly ApprovalRequest[] = []): JsonObject {
  const specific: JsonObject = { hookEventName: eventInfo(decision.event).claudeName ?? decision.event }
  if (decision.event === 'tool.pre') {
    const ask = asked.length > 0 && decision.decision !== 'deny'
    specific.permissionDecision = ask ? 'ask' : decision.decision === 'modify' ? 'allow' : decision.decision
    specific.permissionDecisionReason = ask
      ? asked.flatMap((r) => r.asks.map((a) => a.reason)).join('; ')
      : decision.reason
    const tool = decision.payload?.tool
    if (decision.decision === 'modify' && tool && typeof tool === 'object' && !Array.isArray(tool)) {
      specific.updatedInput = tool.input ?? {}
    }
  }
  if (decision.event === 'tool.post' && decision.decision === 'modify') {
    const tool = decision.payload?.tool
    if (tool && typeof tool === 'object' && !Array.isArray(tool) && tool.output !== undefined) {
      specific.updatedToolOutput = tool.output
    }
  }
  if (decision.additionalContext.length > 0)
    specific.additionalContext = decision.additionalContext.join('\n')
  const output: JsonObject = { hookSpecificOutput: specific }
  if (decision.decision === 'deny' && decision.event !== 'tool.pre') {
    output.decision = 'block'
    output.reason = decision.reason
  }
  return output
}
