// The `detector` handler type: runs one built-in detector over the strings of an event's
// payload and answers deny, ask, or modify with the matches replaced by placeholders
// (`action: redact`). Reasons name what was found and where, never the matched secret;
// matched secrets are listed in the verdict's `redact` so the audit trail masks them too.
// Input is bounded: past `maxChars` (or a payload too deep to read) the hook does not scan
// and answers deny (or ask), saying why. A large payload of a tenant's hook is scanned in a
// worker thread (see isolation.ts), with the same verdict.

import { z } from 'zod'
import {
  formatZodError,
  type HandlerFactory,
  type HookCall,
  type HookSpec,
  type JsonObject,
  type Verdict,
  WardenError,
} from '../../core/index.js'
import { egressDetector } from './egress.js'
import { injectionDetector } from './injection.js'
import {
  type DetectorIsolation,
  DetectorWorkers,
  defaultDetectorIsolation,
  detectorIsolates,
} from './isolation.js'
import { pathsDetector } from './paths.js'
import {
  formatPath,
  type PayloadString,
  payloadKeys,
  payloadStrings,
  redactText,
  replaceStrings,
} from './payload.js'
import { piiDetector } from './pii.js'
import { secretsDetector } from './secrets.js'
import { shellDetector } from './shell.js'
import {
  DEFAULT_MAX_SCAN_CHARS,
  type Detector,
  type Finding,
  SCAN_LIMIT_KIND,
  type ScanContext,
} from './types.js'

/** Every built-in detector, by name. */
export const DETECTORS: Readonly<Record<string, Detector<never>>> = Object.fromEntries(
  [secretsDetector, piiDetector, egressDetector, shellDetector, pathsDetector, injectionDetector].map((d) => [
    d.name,
    d as unknown as Detector<never>,
  ]),
)

/** The names of the built-in detectors. */
export const DETECTOR_NAMES = Object.keys(DETECTORS)

/** What a detector hook does when it finds something. */
export type DetectorAction = 'deny' | 'redact' | 'ask'

const configSchema = z
  .object({
    type: z.literal('detector'),
    detector: z.string({ error: `is required: one of ${DETECTOR_NAMES.join(', ')}` }),
    action: z.enum(['deny', 'redact', 'ask'], { error: 'must be "deny", "redact" or "ask"' }).optional(),
    options: z
      .record(z.string(), z.unknown(), { error: 'must be a mapping of the detector options' })
      .optional(),
    fields: z
      .array(z.string().min(1).max(256), { error: 'must be a list of payload paths such as tool.input.url' })
      .max(100)
      .optional(),
    placeholder: z
      .string({ error: 'must be a string such as "[REDACTED:{kind}]"' })
      .min(1)
      .max(200)
      .refine((p) => !/[A-Za-z0-9]{20,}/.test(p.replace('{kind}', '')), 'must be short text, not a token')
      .optional(),
    maxChars: z.number().int().positive().max(50_000_000).optional(),
    reason: z.string().min(1).max(2000).optional(),
  })
  .strict()

/** `handler: { type: detector, detector, action?, options?, fields?, placeholder?, maxChars?, reason? }`. */
export type DetectorConfig = z.infer<typeof configSchema>

interface Hit {
  field: string
  finding: Finding
  value: string
}

function describeHits(detector: string, hits: readonly Hit[], verb: string): string {
  const parts: string[] = []
  for (const hit of hits) {
    const what = hit.finding.detail && !hit.finding.sensitive ? hit.finding.detail : hit.finding.kind
    const part = `${what} (${hit.field})`
    if (!parts.includes(part)) parts.push(part)
    if (parts.length >= 5) break
  }
  const more = hits.length > parts.length ? ` and ${hits.length - parts.length} more` : ''
  return `${detector} detector ${verb} ${parts.join(', ')}${more}`
}

/** Values worth masking in the audit trail: the secrets the hook found (4+ characters). */
function sensitiveValues(hits: readonly Hit[]): string[] {
  const values = new Set<string>()
  for (const hit of hits)
    if (hit.finding.sensitive) {
      const value = hit.value.slice(hit.finding.start, hit.finding.end)
      if (value.length >= 4) values.add(value)
    }
  return [...values]
}

/** The folder the event's relative paths mean: the tool's own `cwd` input, else the event's. */
function eventCwd(event: { payload: JsonObject; context?: { cwd?: unknown } }): string | undefined {
  const tool = event.payload.tool
  const input = tool && typeof tool === 'object' && !Array.isArray(tool) ? tool.input : undefined
  const own = input && typeof input === 'object' && !Array.isArray(input) ? input.cwd : undefined
  if (typeof own === 'string' && own.startsWith('/')) return own
  const cwd = event.context?.cwd
  return typeof cwd === 'string' && cwd !== '' ? cwd : undefined
}

/** Runs a scan; an exception becomes a `scan-limit` finding naming it (a scan never throws here). */
function safeScan(
  scan: (text: string, key?: string, context?: ScanContext) => Finding[],
  name: string,
  text: string,
  key: string | undefined,
  context: ScanContext,
): Finding[] {
  try {
    return scan(text, key, context)
  } catch (error) {
    const cause = error instanceof Error ? error.message.slice(0, 200) : 'unknown error'
    return [
      { kind: SCAN_LIMIT_KIND, start: 0, end: text.length, detail: `${name} detector failed (${cause})` },
    ]
  }
}

/** The parts of an event a detector hook reads. */
export interface DetectorEvent {
  payload: JsonObject
  context?: { cwd?: unknown }
}

/** The strings of a payload a detector hook scans, as {@link payloadStrings} reads them. */
type Walked = { strings: PayloadString[]; complete: boolean }

/** One prepared detector hook: a scan of an event, to its verdict. */
export type DetectorRun = (event: DetectorEvent, walked?: Walked) => Verdict

/** A prepared detector hook and how much text it would read in an event. */
interface PreparedDetector {
  run: DetectorRun
  /** The strings the hook would scan in `event`, and their characters (keys included). */
  measure(event: DetectorEvent): { walked: Walked; chars: number }
}

/**
 * Prepares one detector hook from its handler config (plain data, so a worker thread
 * prepares the very same hook).
 * @throws WardenError `invalid-hook` naming the field and the fix.
 */
export function prepareDetector(config: unknown, hook: Pick<HookSpec, 'name'>): PreparedDetector {
  const label = `hook "${hook.name}": handler`
  const parsed = configSchema.safeParse(config)
  if (!parsed.success) throw new WardenError('invalid-hook', formatZodError(parsed.error, label))
  const settings = parsed.data
  const detector = Object.hasOwn(DETECTORS, settings.detector) ? DETECTORS[settings.detector] : undefined
  if (!detector)
    throw new WardenError(
      'invalid-hook',
      `${label}.detector "${settings.detector}" is not known; use one of ${DETECTOR_NAMES.join(', ')}`,
    )
  const action: DetectorAction = settings.action ?? 'deny'
  if (action === 'redact' && !detector.redacts)
    throw new WardenError(
      'invalid-hook',
      `${label}.action "redact" does not fit the ${detector.name} detector (it flags whole commands or paths); use deny or ask`,
    )
  const options = detector.options.safeParse(settings.options ?? {})
  if (!options.success)
    throw new WardenError('invalid-hook', formatZodError(options.error, `${label}.options`))
  const scan = detector.prepare(options.data as never)
  const maxChars = settings.maxChars ?? DEFAULT_MAX_SCAN_CHARS
  const placeholder = settings.placeholder ?? '[REDACTED:{kind}]'
  const refuse = (reason: string): Verdict =>
    action === 'ask'
      ? { type: 'ask', reason }
      : { type: 'deny', reason, reasonCode: [`detector.${detector.name}`, 'too-large'] }

  const walk = (event: DetectorEvent): Walked =>
    payloadStrings(event.payload, detector.target, settings.fields)
  const measure = (event: DetectorEvent) => {
    const walked = walk(event)
    let chars = 0
    if (!walked.complete) return { walked, chars }
    for (const s of walked.strings) chars += s.value.length
    if (detector.target === 'all' && !settings.fields)
      for (const k of payloadKeys(event.payload)) chars += k.value.length
    return { walked, chars }
  }

  const run: DetectorRun = (event, walked) => {
    const { strings, complete } = walked ?? walk(event)
    let total = 0
    for (const s of strings) total += s.value.length
    if (!complete || total > maxChars)
      return refuse(
        `${detector.name} detector cannot scan this payload: ${complete ? `${total} characters, more than maxChars ${maxChars}` : 'too deeply nested or too many strings'}`,
      )
    const context = { cwd: eventCwd(event), maxChars }
    const hits: Hit[] = []
    const byField = new Map<string, { value: string; findings: Finding[] }>()
    for (const s of strings) {
      const findings = safeScan(scan, detector.name, s.value, s.key, context)
      // A bound reached (or a scan that failed) means the text was not fully read: refuse it.
      const limit = findings.find((f) => f.kind === SCAN_LIMIT_KIND)
      if (limit)
        return action === 'ask'
          ? { type: 'ask', reason: `${limit.detail} (${formatPath(s.path)})` }
          : {
              type: 'deny',
              reason: `${limit.detail} (${formatPath(s.path)})`,
              reasonCode: [`detector.${detector.name}`, SCAN_LIMIT_KIND],
            }
      if (findings.length === 0) continue
      const field = formatPath(s.path)
      byField.set(field, { value: s.value, findings })
      for (const finding of findings) hits.push({ field, finding, value: s.value })
    }
    // Object keys can carry what a detector looks for too; they cannot be redacted in place.
    let inKeys = false
    if (detector.target === 'all' && !settings.fields)
      for (const k of payloadKeys(event.payload)) {
        const findings = safeScan(scan, detector.name, k.value, undefined, context)
        if (findings.length === 0) continue
        inKeys = true
        for (const finding of findings)
          hits.push({
            field: `a key in ${formatPath(k.path.slice(0, -1)) || 'the payload'}`,
            finding,
            value: k.value,
          })
      }
    if (hits.length === 0) return { type: 'allow' }
    const kinds = [...new Set(hits.map((h) => h.finding.kind))]
    const reasonCode = [`detector.${detector.name}`, ...kinds]
    const redact = sensitiveValues(hits)
    const extra = redact.length > 0 ? { redact } : {}
    // A field path can pass through a key that is itself a secret: mask it in the reason.
    const describe = (verb: string) =>
      redact.reduce(
        (text, secret) => text.split(secret).join('[REDACTED]'),
        describeHits(detector.name, hits, verb),
      )
    if (action === 'redact' && !inKeys) {
      const replacements = new Map<string, string>()
      for (const [field, { value, findings }] of byField)
        replacements.set(field, redactText(value, findings, placeholder))
      return {
        type: 'modify',
        payload: replaceStrings(event.payload, replacements),
        reason: settings.reason ?? describe('redacted'),
        reasonCode,
        ...extra,
      }
    }
    const found = settings.reason ?? describe('found')
    if (action === 'ask') return { type: 'ask', reason: found, reasonCode, ...extra }
    const reason = action === 'redact' ? `${found} (in an object key, which cannot be redacted)` : found
    return { type: 'deny', reason, reasonCode, ...extra }
  }
  return { run, measure }
}

/** Options of the `detector` handler type. */
export interface DetectorHandlerOptions {
  /** Where large scans run (see {@link DetectorIsolation}); defaults from {@link defaultDetectorIsolation}. */
  isolation?: Partial<DetectorIsolation>
}

/**
 * Creates the `detector` handler type: built-in detectors for secrets, PII, egress, shell,
 * paths, injection. A tenant hook's scan of more than `isolation.inlineChars` characters
 * runs in a worker thread and answers the same verdict; past the hook's timeout, or past
 * the worker queue, the hook fails (denied by its `onError`) with the cause.
 */
export function createDetectorHandler(options: DetectorHandlerOptions = {}): HandlerFactory {
  const isolation: DetectorIsolation = { ...defaultDetectorIsolation(), ...options.isolation }
  const workers = new DetectorWorkers(isolation)
  return {
    type: 'detector',
    prepare(config, hook) {
      const { run, measure } = prepareDetector(config, hook)
      const report = (call: HookCall, verdict: Verdict): Verdict => {
        if (call.detail && verdict.type !== 'allow')
          call.detail({ detector: (config as DetectorConfig).detector, reason: verdict.reason })
        return verdict
      }
      if (!detectorIsolates(isolation.isolate, hook)) return (call) => report(call, run(call.event))
      const key = `${hook.id}\n${JSON.stringify(config)}`
      return (call) => {
        const { walked, chars } = measure(call.event)
        if (chars <= isolation.inlineChars) return report(call, run(call.event, walked))
        const event = call.event
        const job = {
          key,
          hookName: hook.name,
          config,
          event: { payload: event.payload, context: { cwd: event.context?.cwd } },
        }
        return workers
          .run(job, hook.timeoutMs, (listener) => call.onAbort?.(listener))
          .then((verdict) => report(call, verdict))
      }
    },
    async close() {
      await workers.close()
    },
  }
}

/** The `detector` handler type with default settings (tenant hooks' large scans in workers). */
export const detectorHandler: HandlerFactory = createDetectorHandler()
