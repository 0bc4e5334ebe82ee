// The `guardian` handler: sends the event as an AOS request to a remote Guardian through
// the outbound client and maps its answer back. And `guardians`: several remote Guardians
// consulted in parallel and composed the AOS way — any deny is a deny, modifies merge in
// declared order, allow needs all. Unreachable, slow or garbled answers throw, so the
// hook's onError / onTimeout applies. The AOS wire format comes in as a codec.

import type {
  CheckedEvent,
  EventName,
  HandlerConfig,
  HandlerFactory,
  HookCall,
  HookExecutor,
  HookSpec,
  Json,
  JsonObject,
  Verdict,
} from '../core/index.js'
import { WardenError } from '../core/index.js'
import type { OutboundClient } from '../net/index.js'

/** How events and answers cross the wire (AOS JSON-RPC, supplied by the protocols layer). */
export interface GuardianCodec {
  /** Whether the event has an AOS method. */
  supports(event: EventName): boolean
  /** The request for an event. @throws Error when the payload lacks what the method needs. */
  encode(event: CheckedEvent, id: string): JsonObject
  /** The verdict in an answer. @throws Error when the answer is an error or garbled. */
  decode(answer: unknown, sent: JsonObject): Verdict
}

/** What the guardian handlers need. */
export interface GuardianHandlerOptions {
  client: OutboundClient
  codec: GuardianCodec
  /** Prepares a hook with `protocol: acs` (a remote ACS Guardian; supplied by the protocols layer). */
  acs?: (config: HandlerConfig, hook: HookSpec) => HookExecutor
}

/** One remote Guardian. */
export interface RemoteGuardian {
  name: string
  url: string
  headers?: Record<string, string>
  /** What a failure of this Guardian counts as. Default deny. */
  onError?: 'deny' | 'allow'
}

const MAX_ANSWER_BYTES = 1024 * 1024

function checkRemote(raw: unknown, label: string): RemoteGuardian {
  if (typeof raw !== 'object' || raw === null)
    throw new WardenError('invalid-hook', `${label} must be an object with a url`)
  const entry = raw as Record<string, unknown>
  if (typeof entry.url !== 'string' || !/^https?:\/\/[^\s]+$/i.test(entry.url)) {
    throw new WardenError(
      'invalid-hook',
      `${label}.url must be an http(s) URL such as http://127.0.0.1:7070/aos`,
    )
  }
  const headers = entry.headers
  if (
    headers !== undefined &&
    (typeof headers !== 'object' ||
      headers === null ||
      Object.values(headers).some((v) => typeof v !== 'string'))
  ) {
    throw new WardenError('invalid-hook', `${label}.headers must map header names to strings`)
  }
  if (entry.onError !== undefined && entry.onError !== 'deny' && entry.onError !== 'allow') {
    throw new WardenError('invalid-hook', `${label}.onError must be "deny" or "allow"`)
  }
  const remote: RemoteGuardian = {
    name: typeof entry.name === 'string' && entry.name.length > 0 ? entry.name : entry.url,
    url: entry.url,
  }
  if (headers) remote.headers = headers as Record<string, string>
  if (entry.onError) remote.onError = entry.onError as 'deny' | 'allow'
  return remote
}

/** Asks one remote Guardian about an event. @throws Error saying why it could not. */
async function consult(
  options: GuardianHandlerOptions,
  remote: RemoteGuardian,
  call: HookCall,
  sequence: number,
): Promise<Verdict> {
  const sent = options.codec.encode(call.event, `${call.hook.name}-${sequence}`)
  const headers: Record<string, string> = { ...remote.headers, 'content-type': 'application/json' }
  const tenant = call.event.context.tenantId
  if (typeof tenant === 'string') headers['x-warden-tenant'] = tenant
  const response = await options.client.request({
    url: remote.url,
    method: 'POST',
    headers,
    body: JSON.stringify(sent),
    // The engine's own timer (onTimeout) fires first; the signal then aborts the request.
    timeoutMs: call.hook.timeoutMs + 1000,
    signal: call.signal,
    maxResponseBytes: MAX_ANSWER_BYTES,
  })
  if (response.status !== 200) {
    throw new Error(`the Guardian at ${remote.name} answered HTTP ${response.status}`)
  }
  let answer: unknown
  try {
    answer = response.json()
  } catch {
    throw new Error(`the Guardian at ${remote.name} answered something that is not JSON`)
  }
  const joch = fromJoch(answer, sent)
  const verdict = options.codec.decode(joch.answer, sent)
  if (joch.policy) {
    call.log(`guardian ${remote.name} applied policy ${joch.policy}`)
    if (verdict.type !== 'abstain') verdict.reasonCode = [...(verdict.reasonCode ?? []), joch.policy]
  }
  return verdict
}

/**
 * Reads the fields Joch (an AOS implementation) adds: `reason` becomes the message when the
 * message is missing or generic, top-level `policyId`/`policyVersion` are kept (as
 * `policyId@policyVersion`), and a partial `modifiedRequest` (params fields only, such as
 * `{"inputs": [...]}`) is completed from the request sent. Other answers pass unchanged.
 */
export function fromJoch(answer: unknown, sent: JsonObject): { answer: unknown; policy?: string } {
  if (!isPlain(answer) || !isPlain(answer.result)) return { answer }
  const result: JsonObject = { ...answer.result }
  const policyId = firstString(result.policyId, answer.policyId)
  const policyVersion = firstString(result.policyVersion, answer.policyVersion)
  const reason = firstString(result.reason)
  const message = firstString(result.message)
  if (reason && (!message || message === reason)) result.message = reason
  else if (reason && message) result.message = `${message}: ${reason}`
  const modified = result.modifiedRequest
  if (isPlain(modified) && modified.method === undefined && modified.params === undefined) {
    result.modifiedRequest = {
      jsonrpc: '2.0',
      id: sent.id ?? null,
      method: sent.method ?? null,
      params: patchParams(sent.params, modified),
    }
  }
  const policy = policyId ? (policyVersion ? `${policyId}@${policyVersion}` : policyId) : undefined
  return { answer: { ...answer, result }, ...(policy ? { policy } : {}) }
}

/** Applies a partial params patch: each field replaces the one of that name, top level or one level down. */
function patchParams(params: Json | undefined, patch: JsonObject): JsonObject {
  const out: JsonObject = isPlain(params) ? { ...params } : {}
  for (const [key, value] of Object.entries(patch)) {
    if (Object.hasOwn(out, key)) {
      out[key] = value
      continue
    }
    const holder = Object.keys(out).find((k) => {
      const inner = out[k]
      return isPlain(inner) && Object.hasOwn(inner, key)
    })
    if (holder) out[holder] = { ...(out[holder] as JsonObject), [key]: value }
    else out[key] = value
  }
  return out
}

function firstString(...values: (Json | undefined)[]): string | undefined {
  return values.find((v): v is string => typeof v === 'string' && v.length > 0)
}

function validateFor(codec: GuardianCodec) {
  return (hook: { event: EventName }) =>
    codec.supports(hook.event)
      ? undefined
      : `a guardian hook needs an event that AOS has a method for (tool.pre, user.message, mcp.outbound, a2a.send, ...), not ${hook.event}`
}

/** `handler: { type: guardian, url, headers? }`: one remote AOS Guardian. */
export function guardianHandler(options: GuardianHandlerOptions): HandlerFactory {
  let sequence = 0
  return {
    type: 'guardian',
    validateHook: validateFor(options.codec),
    prepare(config: HandlerConfig, hook) {
      if (config.protocol === 'acs') {
        if (!options.acs)
          throw new WardenError('invalid-hook', `hook "${hook.name}": ACS Guardians are not available here`)
        return options.acs(config, hook)
      }
      if (config.protocol !== undefined && config.protocol !== 'aos')
        throw new WardenError(
          'invalid-hook',
          `hook "${hook.name}": handler.protocol must be "aos" (the default) or "acs"`,
        )
      const remote = checkRemote(
        { ...config, name: config.name ?? hook.name },
        `hook "${hook.name}": handler`,
      )
      return (call) => {
        const pending = consult(options, remote, call, ++sequence)
        if (!call.detail) return pending
        return pending.then(
          (verdict) => {
            call.detail?.({ guardians: [answerOf(remote, verdict)] })
            return verdict
          },
          (error: unknown) => {
            call.detail?.({ guardians: [answerOf(remote, error as Error)] })
            throw error
          },
        )
      }
    },
  }
}

/**
 * `handler: { type: guardians, guardians: [{name, url, headers?, onError?}] }`: remote
 * Guardians consulted in parallel and composed the AOS way.
 */
export function guardiansHandler(options: GuardianHandlerOptions): HandlerFactory {
  let sequence = 0
  return {
    type: 'guardians',
    validateHook: validateFor(options.codec),
    prepare(config, hook) {
      const list = config.guardians
      if (!Array.isArray(list) || list.length === 0) {
        throw new WardenError(
          'invalid-hook',
          `hook "${hook.name}": handler.guardians must be a non-empty list`,
        )
      }
      const remotes = list.map((entry, i) =>
        checkRemote(entry, `hook "${hook.name}": handler.guardians[${i}]`),
      )
      return async (call) => {
        const id = ++sequence
        const settled = await Promise.allSettled(remotes.map((remote) => consult(options, remote, call, id)))
        return composeVerdicts(
          remotes,
          settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error))),
          call,
        )
      }
    },
  }
}

/** One Guardian's answer as a dry run reports it. */
function answerOf(remote: RemoteGuardian, answer: Verdict | Error): Record<string, unknown> {
  if (answer instanceof Error) return { name: remote.name, answer: 'error', error: answer.message }
  return answer.reason === undefined
    ? { name: remote.name, answer: answer.type }
    : { name: remote.name, answer: answer.type, reason: answer.reason }
}

/** Composes parallel answers: any deny is a deny, modifies merge in order, allow needs all. */
function composeVerdicts(remotes: RemoteGuardian[], answers: (Verdict | Error)[], call: HookCall): Verdict {
  call.detail?.({ guardians: answers.map((answer, i) => answerOf(remotes[i] as RemoteGuardian, answer)) })
  const denials: string[] = []
  const codes: string[] = []
  const failures: string[] = []
  const modified: JsonObject[] = []
  answers.forEach((answer, i) => {
    const remote = remotes[i] as RemoteGuardian
    if (answer instanceof Error) {
      call.log(`guardian ${remote.name} failed: ${answer.message}`)
      if (remote.onError !== 'allow')
        failures.push(`guardian ${remote.name} could not answer: ${answer.message}`)
      return
    }
    call.log(`guardian ${remote.name}: ${answer.type}${answer.reason ? ` (${answer.reason})` : ''}`)
    if (answer.type === 'deny') {
      denials.push(`guardian ${remote.name} denied: ${answer.reason}`)
      codes.push(...(answer.reasonCode ?? [remote.name]))
    } else if (answer.type === 'modify') modified.push(answer.payload)
  })
  if (denials.length > 0) return { type: 'deny', reason: denials.join('; '), reasonCode: codes }
  if (failures.length > 0) throw new Error(failures.join('; '))
  if (modified.length > 0)
    return { type: 'modify', payload: mergeModifications(call.event.payload, modified) }
  return { type: 'allow', reason: `all ${remotes.length} guardians allowed` }
}

/**
 * Merges payloads that each modified the same original, in order: each one's changes
 * (against the original) are applied over the result of the ones before.
 */
export function mergeModifications(original: JsonObject, modified: JsonObject[]): JsonObject {
  let result: JsonObject = original
  for (const next of modified) result = applyChanges(result, original, next) as JsonObject
  return result
}

function isPlain(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function applyChanges(target: Json, base: Json, next: Json): Json {
  if (!isPlain(target) || !isPlain(base) || !isPlain(next)) return sameJson(base, next) ? target : next
  const out: JsonObject = { ...target }
  for (const key of Object.keys(base)) {
    if (!Object.hasOwn(next, key)) delete out[key]
  }
  for (const [key, value] of Object.entries(next)) {
    if (!Object.hasOwn(base, key)) out[key] = value
    else if (!sameJson(base[key], value)) out[key] = applyChanges(out[key] ?? null, base[key] as Json, value)
  }
  return out
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b)
}
