// Decisions as tagged unions: what one hook answers (a verdict) and what the engine answers
// for a whole event (a decision), with the factories hook authors use and the normaliser
// that turns whatever a handler returned into a verdict or a clear error.

import type { EventName } from './catalog.js'
import { describe, type JsonObject } from './events.js'

/** The policy a hook enforces, recorded with every decision it takes part in. */
export interface PolicyRef {
  id: string
  version?: string
}

interface VerdictBase {
  reason?: string
  additionalContext?: string[]
  reasonCode?: string[]
  /**
   * True when the hook said allow in Claude Code's own words (`permissionDecision: "allow"`,
   * or the older `decision: "approve"`): it grants what Claude Code would otherwise ask its
   * user. A plain allow means only "no objection".
   */
  explicitAllow?: boolean
  /** Values the hook matched that must not be recorded (masked by `audit.redact`). */
  redact?: string[]
}

/** What one hook answers. `abstain` is "no opinion" (Claude Code `defer`). */
export type Verdict =
  | ({ type: 'allow' } & VerdictBase)
  | ({ type: 'deny'; reason: string } & VerdictBase)
  | ({ type: 'modify'; payload: JsonObject } & VerdictBase)
  | ({ type: 'ask'; reason: string } & VerdictBase)
  | ({ type: 'abstain' } & VerdictBase)

/** The final decision kinds an event can get. */
export type DecisionKind = 'allow' | 'deny' | 'modify' | 'ask'

/** Why a hook did not run for an event. */
export type SkipReason =
  | 'matcher'
  | 'if'
  | 'scope'
  | 'disabled'
  | 'breaker-open'
  | 'chain-stopped'
  | 'no-tool'

/**
 * What is known about one hook run besides its verdict: whether its matcher and `if`
 * held, and what its handler reported (command: exit code and stdout size; http: the
 * status; prompt: the judge's model and tokens). Recorded in the audit trail.
 */
export interface HookMeta {
  /** The matcher's result, for a hook with a matcher. */
  matcherMatched?: boolean
  /** The `if` expression's result, for a hook with one. */
  ifResult?: boolean
  /** Bytes the command printed on stdout. */
  stdoutBytes?: number
  /** The command's exit code. */
  exitCode?: number
  /** The HTTP status the webhook answered (the last attempt's). */
  httpStatus?: number
  /** The LLM judge's model. */
  model?: string
  /** Tokens the judge call used (0 when the answer came from the cache). */
  tokens?: number
  /** True when the judge's answer came from its decision cache. */
  cached?: boolean
}

/** Why a hook's own answer was replaced by its failure policy. */
export type HookErrorKind = 'error' | 'timeout' | 'invalid-answer' | 'breaker-open' | 'turn-cap'

/** How one hook took part in a decision. */
export interface HookTrace {
  /** The hook's engine id: its name, or `tenant/name` for a tenant's hook. */
  id: string
  hook: string
  handler: string
  version: number
  /** The verdict (after onError/onTimeout), or `skipped`. */
  outcome: Verdict['type'] | 'skipped'
  reason?: string
  durationMs: number
  /** What went wrong, when the hook failed, timed out or answered garbage. */
  error?: { kind: HookErrorKind; message: string }
  skipped?: SkipReason
  policy?: PolicyRef
  /** Lines the hook logged (Starlark `log`, command stderr on success). */
  logs?: string[]
  /** Matcher and `if` results and what the handler reported, when known. */
  meta?: HookMeta
  /** The hook's allow or modify came with Claude Code's `permissionDecision: "allow"`. */
  explicitAllow?: true
  /** Values the hook said it matched; masked wherever the decision is recorded, never stored. */
  redact?: string[]
  /**
   * The hook runs in shadow mode: `outcome` (and `reason`, `error`) is what it would have
   * decided; it was not applied.
   */
  shadow?: true
  /** A refusal of Warden's own (depth cap, payload cap, audit), not a hook's: see `reason`. */
  warden?: true
  /** The system whose format the hook was written in (its spans are named its way). */
  home?: 'goclaw' | 'loom' | 'harness'
}

/** The engine's answer for one event. */
export interface Decision {
  /** Unique id of this dispatch, the key of its audit record. */
  id: string
  event: EventName
  decision: DecisionKind
  /** The deciding reason, readable by a person. */
  reason: string
  /** The deciding hooks or policy ids. */
  reasonCode: string[]
  /** The payload after every modify: present when `decision` is `modify`. */
  payload?: JsonObject
  additionalContext: string[]
  policies: PolicyRef[]
  trace: HookTrace[]
  durationMs: number
  /** False when the caller was answered at once and the hooks ran in the background. */
  blocking: boolean
  /** How a held `ask` was resolved. */
  approval?: {
    outcome: 'approved' | 'rejected' | 'edited' | 'timeout' | 'unavailable'
    by?: string
    reason?: string
  }
}

/** Allow the action. */
export function allow(reason?: string, extra: VerdictBase = {}): Verdict {
  return reason === undefined ? { type: 'allow', ...extra } : { type: 'allow', reason, ...extra }
}

/** Deny the action, saying why. */
export function deny(reason: string, extra: VerdictBase = {}): Verdict {
  return { type: 'deny', reason, ...extra }
}

/** Replace the payload (later hooks see the new one). */
export function modify(payload: JsonObject, reason?: string, extra: VerdictBase = {}): Verdict {
  return reason === undefined
    ? { type: 'modify', payload, ...extra }
    : { type: 'modify', payload, reason, ...extra }
}

/** Hold the action for a human. */
export function ask(reason: string, extra: VerdictBase = {}): Verdict {
  return { type: 'ask', reason, ...extra }
}

/** No opinion. */
export function abstain(): Verdict {
  return { type: 'abstain' }
}

const VERDICT_TYPES = new Set(['allow', 'deny', 'modify', 'ask', 'abstain', 'defer', 'block', 'approve'])

/** The outcome of normalising a handler's answer. */
export type Normalized = { ok: true; verdict: Verdict } | { ok: false; error: string }

/**
 * Turns a handler's answer into a verdict. Accepts a verdict (`{type}`), the common
 * `{decision, reason, payload | updatedInput, additionalContext}` form, and `undefined`
 * (no opinion). Anything else is an error naming what was wrong.
 */
export function normalizeVerdict(answer: unknown, payload: JsonObject): Normalized {
  if (answer === undefined || answer === null) return { ok: true, verdict: { type: 'abstain' } }
  if (typeof answer !== 'object' || Array.isArray(answer)) {
    return { ok: false, error: `the hook answered ${describe(answer)}, not a decision object` }
  }
  const raw = answer as Record<string, unknown>
  const kind = raw.type ?? raw.decision
  if (typeof kind !== 'string' || !VERDICT_TYPES.has(kind)) {
    return {
      ok: false,
      error: `the hook answered decision ${JSON.stringify(kind)}; expected one of allow, deny, modify, ask`,
    }
  }
  const base: VerdictBase = {}
  if (raw.reason !== undefined) {
    if (typeof raw.reason !== 'string') return { ok: false, error: 'reason must be a string' }
    base.reason = raw.reason
  }
  if (raw.additionalContext !== undefined) {
    const ctx = raw.additionalContext
    if (typeof ctx === 'string') base.additionalContext = [ctx]
    else if (Array.isArray(ctx) && ctx.every((c) => typeof c === 'string')) base.additionalContext = ctx
    else return { ok: false, error: 'additionalContext must be a string or a list of strings' }
  }
  if (raw.reasonCode !== undefined) {
    if (!Array.isArray(raw.reasonCode) || !raw.reasonCode.every((c) => typeof c === 'string')) {
      return { ok: false, error: 'reasonCode must be a list of strings' }
    }
    base.reasonCode = raw.reasonCode
  }
  if (raw.explicitAllow === true && (kind === 'allow' || kind === 'modify')) base.explicitAllow = true
  if (raw.redact !== undefined) {
    if (!Array.isArray(raw.redact) || !raw.redact.every((v) => typeof v === 'string')) {
      return { ok: false, error: 'redact must be a list of strings (the values the hook matched)' }
    }
    base.redact = raw.redact
  }
  switch (kind) {
    case 'allow':
    case 'approve':
      return { ok: true, verdict: { type: 'allow', ...base } }
    case 'abstain':
    case 'defer':
      return { ok: true, verdict: { type: 'abstain', ...base } }
    case 'deny':
    case 'block':
      return { ok: true, verdict: { type: 'deny', ...base, reason: base.reason ?? 'denied by hook' } }
    case 'ask':
      return {
        ok: true,
        verdict: { type: 'ask', ...base, reason: base.reason ?? 'the hook asks for approval' },
      }
    default:
      return modifiedVerdict(raw, payload, base)
  }
}

function modifiedVerdict(raw: Record<string, unknown>, payload: JsonObject, base: VerdictBase): Normalized {
  if (isObject(raw.payload)) return { ok: true, verdict: { type: 'modify', payload: raw.payload, ...base } }
  if (isObject(raw.updatedInput))
    return {
      ok: true,
      verdict: { type: 'modify', ...base, payload: withToolInput(payload, raw.updatedInput) },
    }
  if (raw.updatedToolOutput !== undefined) {
    return {
      ok: true,
      verdict: {
        type: 'modify',
        ...base,
        payload: withToolOutput(payload, raw.updatedToolOutput as JsonObject),
      },
    }
  }
  return {
    ok: false,
    error: 'a modify decision needs a payload object (or updatedInput / updatedToolOutput)',
  }
}

/**
 * The payload with `tool.input` replaced (a tool event or an MCP `tools/call`); on an A2A
 * request, whose input is its params, `a2a.payload.params`.
 */
export function withToolInput(payload: JsonObject, input: JsonObject): JsonObject {
  const a2a = a2aEnvelope(payload, 'params')
  if (a2a)
    return replaceKey(
      payload,
      'a2a',
      replaceKey(a2a.outer, 'payload', replaceKey(a2a.inner, 'params', input)),
    )
  const tool = isObject(payload.tool) ? payload.tool : { name: '' }
  return replaceKey(payload, 'tool', Object.assign({}, tool, { input }))
}

/** The payload with `tool.output` replaced; on an A2A answer, `a2a.payload.result`. */
export function withToolOutput(payload: JsonObject, output: JsonObject[keyof JsonObject]): JsonObject {
  const a2a = a2aEnvelope(payload, 'result')
  if (a2a)
    return replaceKey(
      payload,
      'a2a',
      replaceKey(a2a.outer, 'payload', replaceKey(a2a.inner, 'result', output)),
    )
  const tool = isObject(payload.tool) ? payload.tool : { name: '' }
  return replaceKey(payload, 'tool', Object.assign({}, tool, { output }))
}

/** A copy of `object` with one key replaced (Object.assign: object spread is slow in V8). */
function replaceKey(object: JsonObject, key: string, value: JsonObject[keyof JsonObject]): JsonObject {
  const copy: JsonObject = Object.assign({}, object)
  copy[key] = value
  return copy
}

/** An A2A event's `a2a` and its JSON-RPC `a2a.payload` holding `field`, for a payload without `tool`. */
function a2aEnvelope(payload: JsonObject, field: 'params' | 'result') {
  if (payload.tool !== undefined || !isObject(payload.a2a)) return undefined
  const inner = payload.a2a.payload
  return isObject(inner) && field in inner ? { outer: payload.a2a, inner } : undefined
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * A modify the caller cannot apply, turned into the deny the caller will answer, so the
 * record and the counters say what the caller was told (reasonCode `modify-refused`).
 * @returns the decision as it stands when the check accepts the payload.
 */
export function refuseUnappliable(
  decision: Decision,
  check: (payload: JsonObject) => string | undefined,
): Decision {
  if (decision.decision !== 'modify') return decision
  let problem: string | undefined
  try {
    problem = check(decision.payload ?? {})
  } catch (error) {
    problem = `the modify could not be checked: ${error instanceof Error ? error.message : String(error)}`
  }
  if (problem === undefined) return decision
  const { payload: _dropped, ...rest } = decision
  return {
    ...rest,
    decision: 'deny',
    reason: `the modify cannot be applied: ${problem}`,
    reasonCode: [...decision.reasonCode, 'modify-refused'],
  }
}

/**
 * The reason of the deny a blocking decision becomes when its record could not be written
 * (the audit trail stores the same text for it).
 */
export function unrecordedReason(cause: string): string {
  return `the decision could not be recorded (${cause}), so the action is denied`
}
