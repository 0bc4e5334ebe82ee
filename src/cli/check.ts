// `warden check [--config warden.yaml] [--format warden|claude] [FILE | -]`: evaluates one
// event — canonical {event, payload, context} or Claude Code hook input — against the
// configured hooks, prints the decision as JSON and exits 0 (allow/modify), 2 (deny, the
// reason on stderr) or, when it cannot decide, 2 on an event that can block and 1 on one
// that cannot, with empty stdout. Usable as a Claude Code command hook as it is.

import { resolve } from 'node:path'
import {
  type ApprovalRequest,
  type EventName,
  fromClaudeInput,
  isBlockingEvent,
  isClaudeInput,
  type JsonObject,
  lookupEventName,
} from '../core/index.js'
import { buildEngine } from '../sources/index.js'
import { parseArgs } from './args.js'
import { toClaudeOutput } from './check-output.js'
import { type LoadedSources, loadCliSources, SOURCE_OPTIONS } from './hook-sources.js'
import { type CliIo, readInput } from './io.js'

export { toClaudeOutput } from './check-output.js'

const HELP = `usage: warden check [--config warden.yaml] [--format warden|claude] [--hooks DIR]
                    [--claude-settings FILE] [--claude-plugin DIR] [--profile FILE]
                    [--goclaw FILE] [FILE | -]

Reads one event from FILE (or stdin) and runs the hooks of the config on it.
The event is {"event", "payload", "context"} or a Claude Code hook input (hook_event_name).
Prints the decision as JSON: Warden's shape, or Claude Code hook output when the input was
Claude Code hook input (override with --format). Exit code: 0 allow or modify, 2 deny
(reason on stderr). When the hooks cannot be checked (a bad config, event or flag), nothing
is printed on stdout, the cause goes to stderr and the exit code is 2 (refused) on events
that can block or that cannot be read, 1 on events that cannot block and on Stop.
Events that cannot block (SessionStart, SessionEnd, ...) are still run to the end, so the
context their hooks add is printed. With Claude Code PreToolUse input, the answer grants
nothing by itself: permissionDecision "allow" only when a hook said "allow" in Claude
Code's words, "ask" when a hook asked, and otherwise no permission decision, so Claude Code
applies its own permission mode.

Hooks also come from (each flag may repeat):
  --hooks DIR               a folder of Starlark hook files (*.md with YAML front matter)
  --claude-settings FILE    the "hooks" of a Claude Code settings.json (or a plugin's
                            hooks/hooks.json)
  --claude-plugin DIR       a Claude Code plugin folder: its hooks/hooks.json
  --profile FILE            the hook actions of a loom agent.json profile
  --goclaw FILE             GoClaw hook definitions (JSON or YAML; higher priority first)
A hook file, settings file or profile with a problem is such an error.

examples:
  warden check --config examples/warden.yaml examples/events/exec-rm.json   # exit 2: denied
  echo '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}' \\
    | warden check --config examples/warden.yaml --format claude
`

/** Why `warden check` could not decide, and the event it was asked about, when known. */
interface Failure {
  failure: string
  event: EventName | undefined
}

/** Runs `warden check`. */
export async function run(args: string[], io: CliIo): Promise<number> {
  const outcome = await check(args, io)
  if (typeof outcome === 'number') return outcome
  const code = failureCode(outcome.event)
  io.stderr(`warden check: ${outcome.failure}\n${code === 2 ? REFUSED : ''}`)
  return code
}

const REFUSED = 'warden check: refused: the hooks could not be checked\n'

/**
 * The exit code of a failed check: 2 (Claude Code blocks and shows the cause) when the
 * event can block or could not be read at all; 1 (a non-blocking error) when it cannot
 * block, and on Stop, where 2 would keep the agent going forever.
 */
function failureCode(event: EventName | undefined): 1 | 2 {
  if (event === undefined) return 2
  if (event === 'agent.stop') return 1
  return isBlockingEvent(event) ? 2 : 1
}

async function check(args: string[], io: CliIo): Promise<number | Failure> {
  let parsed: ReturnType<typeof parseCheckArgs>
  try {
    parsed = parseCheckArgs(args)
  } catch (error) {
    return usageFailure((error as Error).message, io)
  }
  if (parsed.values.help) {
    io.stdout(HELP)
    return 0
  }
  const format = parsed.values.format
  if (format !== undefined && format !== 'warden' && format !== 'claude') {
    return usageFailure(`--format must be "warden" or "claude" (got "${format}")`, io)
  }
  const file = parsed.positionals[0]
  const read = await readEvent(file, io)
  if ('failure' in read) return read
  const named = eventNamed(read.input)
  const fail = (failure: string): Failure => ({ failure, event: named })
  const claude = isClaudeInput(read.input)
  const event = claude ? fromClaudeInput(read.input as JsonObject) : toCanonical(read.input)
  if ('error' in event) return fail(event.error)

  let sources: LoadedSources
  try {
    sources = await loadCliSources(parsed.values, io, 'warden check')
  } catch (error) {
    return fail((error as Error).message)
  }
  const { config, extraHooks, tenantTokenBudgets } = sources
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
    return fail((error as Error).message)
  }
  const decision = await engine.dispatch({ ...event, wait: true })
  await engine.close()
  if (decision.reasonCode.includes('invalid-event')) return fail(decision.reason)
  const output =
    (format ?? (claude ? 'claude' : 'warden')) === 'claude' ? toClaudeOutput(decision, asked) : decision
  io.stdout(`${JSON.stringify(output, null, 2)}\n`)
  if (decision.decision === 'deny') {
    io.stderr(`${decision.reason}\n`)
    return 2
  }
  return 0
}

/**
 * A bad command line: the event on stdin (unless it is a terminal) still says whether the
 * failure must block.
 */
async function usageFailure(failure: string, io: CliIo): Promise<Failure> {
  if (io.stdinIsTTY === true) return { failure, event: undefined }
  const read = await readEvent(undefined, io)
  return { failure, event: 'failure' in read ? undefined : eventNamed(read.input) }
}

/** Reads and parses the event from FILE or stdin. */
async function readEvent(file: string | undefined, io: CliIo): Promise<{ input: unknown } | Failure> {
  let text: string
  try {
    text = await readInput(file === undefined || file === '-' ? file : resolve(io.cwd, file), io)
  } catch (error) {
    const cause = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    return { failure: `cannot read the event ${file ?? 'from stdin'}: ${cause}`, event: undefined }
  }
  try {
    return { input: JSON.parse(text) }
  } catch (error) {
    return {
      failure: `the event ${file ? `in ${file} ` : ''}is not valid JSON: ${(error as Error).message}`,
      event: undefined,
    }
  }
}

/** The canonical name of the event an input is about, as far as it can be read. */
function eventNamed(input: unknown): EventName | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined
  const record = input as Record<string, unknown>
  const embedded = record.warden as Record<string, unknown> | undefined
  const name = isClaudeInput(input)
    ? typeof embedded === 'object' && embedded !== null && typeof embedded.event === 'string'
      ? embedded.event
      : record.hook_event_name
    : record.event
  return typeof name === 'string' ? lookupEventName(name) : undefined
}

function parseCheckArgs(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...SOURCE_OPTIONS,
      format: { type: 'string' },
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
