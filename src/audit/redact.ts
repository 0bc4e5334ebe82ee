// `audit.redact`: secrets taken out of a decision before it is recorded anywhere (the
// audit rows, the `/ws` decision push, the security log). What is masked: matches of the
// built-in patterns (AWS access key ids, private key blocks, bearer tokens, GitHub, Slack
// and OpenAI-style keys), of the operator's own patterns (RE2, linear time, checked at
// load), and the exact values a hook said it matched (`redact` in its answer). The
// decision the caller gets is never changed: a redacted copy is recorded. A record with no
// string that could match is passed on as it is, without a copy.

import { RE2JS } from 're2js'
import { z } from 'zod'
import type { DecisionRecord, HookTrace, JsonObject, Recorder } from '../core/index.js'

/** What a masked secret becomes: `[redacted:<rule>]`. */
export function redactedMark(rule: string): string {
  return `[redacted:${rule}]`
}

/** A built-in pattern: its name (shown in the mark) and RE2 expression. */
export interface RedactRule {
  name: string
  pattern: string
}

/** The built-in patterns, on unless `audit.redact.defaults: false`. */
export const DEFAULT_REDACT_RULES: readonly RedactRule[] = [
  { name: 'aws-access-key-id', pattern: '\\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\\b' },
  {
    name: 'private-key',
    pattern:
      '-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\\s\\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[\\s\\S]*)',
  },
  { name: 'bearer-token', pattern: '(?i)\\bbearer\\s+[A-Za-z0-9._~+/=-]{8,}' },
  { name: 'github-token', pattern: '\\b(?:gh[opusr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\\b' },
  { name: 'slack-token', pattern: '\\bxox[abposre]-[A-Za-z0-9-]{10,}' },
  { name: 'openai-key', pattern: '\\bsk-(?:proj-|svcacct-|admin-|ant-)?[A-Za-z0-9_-]{20,}' },
]

/**
 * Literal pieces one of the built-in patterns needs: a string without any of them cannot
 * match, so it is not searched (a cheap native scan instead of the RE2 engine).
 */
const DEFAULT_PREFILTER =
  /AKIA|ASIA|ABIA|ACCA|-----BEGIN |[Bb][Ee][Aa][Rr][Ee][Rr]|gh[opusr]_|github_pat_|xox|sk-/

/** Per built-in pattern, literal pieces it needs: a rule whose piece is absent is not run. */
const RULE_PREFILTER: Readonly<Record<string, RegExp>> = {
  'aws-access-key-id': /AKIA|ASIA|ABIA|ACCA/,
  'private-key': /-----BEGIN /,
  'bearer-token': /[Bb][Ee][Aa][Rr][Ee][Rr]/,
  'github-token': /gh[opusr]_|github_pat_/,
  'slack-token': /xox/,
  'openai-key': /sk-/,
}

/** The shortest text a built-in pattern can match: shorter strings are not searched. */
const DEFAULT_MIN_LENGTH = 14

/** Most patterns `audit.redact.patterns` may list. */
export const MAX_REDACT_PATTERNS = 64

/** Checks one pattern; returns the problem or undefined. */
export function redactPatternProblem(pattern: string): string | undefined {
  if (pattern === '') return 'must not be empty'
  try {
    RE2JS.compile(pattern)
  } catch (error) {
    return `is not a valid RE2 regular expression: ${(error as Error).message} (backreferences and lookaround are not supported)`
  }
  return undefined
}

/** `audit.redact`: `false` (off), a list of patterns, or `{ patterns, defaults, matched }`. */
export const redactSettingSchema = z.union(
  [
    z.literal(false),
    z.array(z.string()).max(MAX_REDACT_PATTERNS),
    z
      .object({
        patterns: z.array(z.string()).max(MAX_REDACT_PATTERNS).optional(),
        defaults: z.boolean({ error: 'must be true or false' }).optional(),
        matched: z.boolean({ error: 'must be true or false' }).optional(),
      })
      .strict(),
  ],
  { error: 'must be false, a list of patterns, or { patterns, defaults, matched }' },
)

/** How a decision is redacted; undefined when nothing is (`audit.redact: false`). */
export interface Redactor {
  /** A copy of the record with secrets masked, or the record itself when nothing matched. */
  redact(record: DecisionRecord): DecisionRecord
}

interface CompiledRule {
  name: string
  regex: RE2JS
  /** Literal pieces the rule needs (the rule is not run on a text without them). */
  hint?: RegExp
}

/**
 * Builds the redactor of an `audit.redact` setting (undefined = defaults on).
 * @throws Error naming the pattern when one is not a valid RE2 expression.
 */
export function createRedactor(setting: unknown): Redactor | undefined {
  if (setting === false) return undefined
  const parsed = redactSettingSchema.safeParse(setting ?? {})
  if (!parsed.success) throw new Error(`audit.redact ${parsed.error.issues[0]?.message ?? 'is malformed'}`)
  const value =
    parsed.data === false ? {} : Array.isArray(parsed.data) ? { patterns: parsed.data } : parsed.data
  const own: CompiledRule[] = (value.patterns ?? []).map((pattern, index) => {
    const problem = redactPatternProblem(pattern)
    if (problem) throw new Error(`audit.redact.patterns[${index}] ${problem}`)
    return { name: 'pattern', regex: RE2JS.compile(pattern) }
  })
  const defaults =
    value.defaults === false
      ? []
      : DEFAULT_REDACT_RULES.map((rule) => ({
          name: rule.name,
          regex: RE2JS.compile(rule.pattern),
          hint: RULE_PREFILTER[rule.name],
        }))
  // A cheap native scan for a rule's literal pieces before the RE2 engine reads a long text.
  const mayMatch = (rule: CompiledRule, text: string) =>
    rule.hint?.test(text) !== false && rule.regex.test(text)
  const matched = value.matched !== false
  if (own.length === 0 && defaults.length === 0 && !matched) return undefined
  // One pass of the operator's patterns per string: they are joined into one expression.
  const ownCombined =
    own.length === 0 ? undefined : RE2JS.compile(own.map((r) => `(?:${r.regex.pattern()})`).join('|'))
  const defaultsMatch = (text: string): boolean =>
    defaults.length > 0 &&
    text.length >= DEFAULT_MIN_LENGTH &&
    DEFAULT_PREFILTER.test(text) &&
    defaults.some((r) => mayMatch(r, text))
  const patternsMatch = (text: string): boolean => ownCombined?.test(text) === true || defaultsMatch(text)
  const scrubPatterns = (text: string): string => {
    let out = text
    if (ownCombined?.test(out)) out = ownCombined.matcher(out).replaceAll(() => redactedMark('pattern'))
    if (defaultsMatch(out)) {
      for (const rule of defaults) {
        if (mayMatch(rule, out)) out = rule.regex.matcher(out).replaceAll(() => redactedMark(rule.name))
      }
    }
    return out
  }
  return {
    redact(record) {
      const values = matched ? matchedValues(record.decision.trace) : NO_VALUES
      if (values.length === 0) return redactRecord(record, patternsMatch, scrubPatterns)
      const mark = redactedMark('matched')
      const maskValues = valueMasker(values, mark)
      return redactRecord(
        record,
        (text) => values.some((secret) => text.includes(secret)) || patternsMatch(text),
        (text) => scrubPatterns(maskValues(text)),
      )
    },
  }
}

const NO_VALUES: string[] = []

/** Past this many matched values, they are masked in one pass instead of one pass each. */
const ONE_PASS_VALUES = 16

/**
 * Replaces each of `values` (longest first) by `mark`. Many values (a detector that found
 * hundreds of secrets in a large text) are masked in one pass of one expression, so that
 * the time stays near one read of the text rather than one read per value.
 */
function valueMasker(values: readonly string[], mark: string): (text: string) => string {
  if (values.length <= ONE_PASS_VALUES)
    return (text) => {
      let out = text
      for (const secret of values) if (out.includes(secret)) out = out.split(secret).join(mark)
      return out
    }
  const any = new RegExp(values.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g')
  return (text) => text.replace(any, () => mark)
}

/** The values hooks said they matched (at least 4 characters, so a mark never eats a word). */
function matchedValues(trace: readonly HookTrace[]): string[] {
  if (!trace.some((t) => t.redact)) return NO_VALUES
  const out: string[] = []
  for (const t of trace) for (const v of t.redact ?? []) if (v.length >= 4) out.push(v)
  // Longest first, so a value that contains another is masked whole.
  return out.sort((a, b) => b.length - a.length)
}

/** True when some string inside `value` passes `test`. */
function anyString(value: unknown, test: (text: string) => boolean): boolean {
  if (typeof value === 'string') return test(value)
  if (Array.isArray(value)) return value.some((v) => anyString(v, test))
  if (typeof value !== 'object' || value === null) return false
  for (const key in value) if (anyString((value as Record<string, unknown>)[key], test)) return true
  return false
}

/** A copy of `value` with every string passed through `scrub`. */
function mapStrings<T>(value: T, scrub: (text: string) => string): T {
  if (typeof value === 'string') return scrub(value) as T
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, scrub)) as T
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) out[key] = mapStrings(inner, scrub)
  return out as T
}

function redactRecord(
  record: DecisionRecord,
  couldMatch: (text: string) => boolean,
  scrub: (text: string) => string,
): DecisionRecord {
  const { decision, event } = record
  const hit = (value: unknown) => anyString(value, couldMatch)
  const traceHit = decision.trace.some(
    (t) =>
      (t.reason !== undefined && couldMatch(t.reason)) ||
      (t.error !== undefined && couldMatch(t.error.message)) ||
      hit(t.logs),
  )
  if (
    !traceHit &&
    !hit(event.payload) &&
    !hit(event.context) &&
    !couldMatch(decision.reason) &&
    !hit(decision.payload) &&
    !hit(decision.additionalContext) &&
    !hit(decision.approval?.reason)
  ) {
    return record
  }
  const redactedDecision = {
    ...decision,
    reason: scrub(decision.reason),
    additionalContext: decision.additionalContext.map(scrub),
    trace: decision.trace.map((t) => {
      const copy: HookTrace = { ...t }
      delete copy.redact
      if (t.reason !== undefined) copy.reason = scrub(t.reason)
      if (t.error) copy.error = { ...t.error, message: scrub(t.error.message) }
      if (t.logs) copy.logs = t.logs.map(scrub)
      return copy
    }),
  }
  if (decision.payload) redactedDecision.payload = mapStrings(decision.payload, scrub) as JsonObject
  if (decision.approval?.reason) {
    redactedDecision.approval = { ...decision.approval, reason: scrub(decision.approval.reason) }
  }
  return {
    decision: redactedDecision,
    event: { ...event, payload: mapStrings(event.payload, scrub), context: mapStrings(event.context, scrub) },
  }
}

/** A recorder that hands `inner` the redacted copy of every decision. */
export function redactingRecorder(redactor: Redactor | undefined, inner: Recorder): Recorder {
  if (!redactor) return inner
  return {
    record: (record) => inner.record(redactor.redact(record)),
    ...(inner.breakerTripped ? { breakerTripped: inner.breakerTripped.bind(inner) } : {}),
  }
}
