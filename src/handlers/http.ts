// The `http` handler: POSTs the event (Claude Code style hook input with the canonical
// event under `warden`) to a webhook through the SSRF-checked outbound client and reads
// the answer in the Claude Code, GoClaw or loom dialect. Non-JSON 2xx allows; 4xx denies
// at once; 5xx and connection failures are retried once after a second, then fail per
// onError. Secret headers are sealed when the hook is prepared and opened only to send.

import { z } from 'zod'
import {
  errorMessage,
  formatZodError,
  type HandlerFactory,
  type HookCall,
  type JsonObject,
  parseHookOutput,
  toClaudeInput,
  WardenError,
} from '../core/index.js'
import {
  type OutboundClient,
  OutboundError,
  type OutboundResponse,
  RESERVED_HEADERS,
  redactUrl,
} from '../net/index.js'
import { isSealed, type SecretBox } from '../secrets/index.js'

/** Delay before the one retry of a 5xx answer or a connection failure. */
export const HTTP_RETRY_DELAY_MS = 1000

const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const headerMap = z.record(
  z.string(),
  z.string({ error: 'must be a string' }).max(8192, 'must be at most 8192 characters'),
  { error: 'must be a mapping of header names to strings' },
)

const configSchema = z
  .object({
    type: z.literal('http'),
    url: z
      .string({ error: 'is required: the webhook URL, e.g. "https://hooks.example.com/warden"' })
      .refine(
        (u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol),
        'must be an absolute http or https URL',
      ),
    headers: headerMap.optional(),
    secretHeaders: headerMap.optional(),
  })
  .strict()

export type HttpConfig = z.infer<typeof configSchema>

/** What is wrong with a configured header, if anything (never quoting its value). */
function headerProblem(field: string, name: string, value: string): string | undefined {
  if (!headerName.test(name)) return `handler.${field}: "${name}" is not a valid HTTP header name`
  if (RESERVED_HEADERS.has(name.toLowerCase()))
    return `handler.${field}: "${name}" is set by Warden itself; remove it`
  if (/[\r\n\0]/.test(value)) return `handler.${field}.${name} contains a line break or NUL`
  return undefined
}

/** What the http handler needs from the runtime. */
export interface HttpHandlerOptions {
  client: OutboundClient
  /** The secret box, or a function creating it on first use (only hooks with secretHeaders need one). */
  secrets?: SecretBox | (() => SecretBox)
  /** Delay before the single retry; default 1 s. */
  retryDelayMs?: number
}

const NO_SECRETS: readonly string[] = []

/** Replaces every occurrence of the given secrets in a text. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0) return text
  let out = text
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]')
  return out
}

/** Creates the `http` handler factory around an outbound client. */
export function createHttpHandler(options: HttpHandlerOptions): HandlerFactory {
  let box: SecretBox | undefined
  const secretBox = (): SecretBox => {
    if (box) return box
    if (!options.secrets) throw new Error('secret headers need a secret box, and none is configured')
    box = typeof options.secrets === 'function' ? options.secrets() : options.secrets
    return box
  }
  const retryDelay = options.retryDelayMs ?? HTTP_RETRY_DELAY_MS
  return {
    type: 'http',
    prepare(config, hook) {
      const parsed = configSchema.safeParse(config)
      if (!parsed.success) {
        throw new WardenError('invalid-hook', formatZodError(parsed.error, `hook "${hook.name}": handler`))
      }
      const c = parsed.data
      for (const [field, map] of [
        ['headers', c.headers],
        ['secretHeaders', c.secretHeaders],
      ] as const) {
        for (const [name, value] of Object.entries(map ?? {})) {
          const problem = headerProblem(field, name, value)
          if (problem) throw new WardenError('invalid-hook', `hook "${hook.name}": ${problem}`)
        }
      }
      const plainNames = new Set(Object.keys(c.headers ?? {}).map((h) => h.toLowerCase()))
      const sealed: Record<string, string> = {}
      for (const [name, value] of Object.entries(c.secretHeaders ?? {})) {
        if (plainNames.has(name.toLowerCase())) {
          throw new WardenError(
            'invalid-hook',
            `hook "${hook.name}": header "${name}" is in both headers and secretHeaders; keep it in secretHeaders only`,
          )
        }
        try {
          sealed[name] = isSealed(value) ? value : secretBox().seal(value)
        } catch (error) {
          throw new WardenError(
            'invalid-hook',
            `hook "${hook.name}": handler.secretHeaders: ${errorMessage(error)}`,
          )
        }
      }
      // From here on only the sealed form is held by the hook's config.
      if (c.secretHeaders) config.secretHeaders = sealed
      const url = c.url
      const where = redactUrl(url)
      const headers: Record<string, string> = {
        ...c.headers,
        'content-type': 'application/json',
        accept: 'application/json',
      }
      const secretNames = Object.keys(sealed)
      return async (call) => {
        // Secret headers are opened for this request only; everything said about it is scrubbed.
        let sent = headers
        let opened = NO_SECRETS
        if (secretNames.length > 0) {
          sent = { ...headers }
          const plain: string[] = []
          try {
            for (const name of secretNames) {
              const value = secretBox().open(sealed[name] as string)
              plain.push(value)
              sent[name] = value
            }
          } catch (error) {
            throw new Error(redactSecrets(errorMessage(error), plain))
          }
          opened = plain
        }
        try {
          const body = JSON.stringify(toClaudeInput(call.event))
          const response = await send(options.client, url, sent, body, call, retryDelay, where, opened)
          return interpretResponse(response, call, where, opened)
        } catch (error) {
          throw new Error(redactSecrets(errorMessage(error), opened))
        }
      }
    },
  }
}

function post(
  client: OutboundClient,
  url: string,
  headers: Record<string, string>,
  body: string,
  call: HookCall,
): Promise<OutboundResponse> {
  return client.request({
    url,
    method: 'POST',
    headers,
    body,
    // Told of the hook's timeout or the engine closing without making an AbortSignal.
    ...(call.onAbort
      ? { onAbort: (listener: (reason: unknown) => void) => onAbort(call, listener) }
      : { signal: call.signal }),
    // The engine's own timer (the hook's timeoutMs) decides timeouts; this is a backstop.
    timeoutMs: call.hook.timeoutMs + 1000,
  })
}

function onAbort(call: HookCall, listener: (reason: unknown) => void): () => void {
  return call.onAbort?.(listener) ?? noop
}

function noop(): void {}

/** Posts once; on a 5xx or a connection failure waits and posts once more. */
async function send(
  client: OutboundClient,
  url: string,
  headers: Record<string, string>,
  body: string,
  call: HookCall,
  retryDelay: number,
  where: string,
  secrets: readonly string[],
): Promise<OutboundResponse> {
  let first: OutboundResponse | OutboundError
  try {
    first = await post(client, url, headers, body, call)
  } catch (error) {
    call.detail?.({ attempts: 1 })
    if (!(error instanceof OutboundError) || error.code !== 'connect') throw error
    first = error
  }
  if (!(first instanceof OutboundError)) {
    call.detail?.({ status: first.status, attempts: 1 })
    call.meta?.({ httpStatus: first.status })
    if (first.status < 500) return first
  }
  const cause = first instanceof OutboundError ? first.message : `${where} answered ${first.status}`
  call.log(redactSecrets(`${cause}; retrying once in ${retryDelay} ms`, secrets))
  await delay(retryDelay, call.signal)
  let second: OutboundResponse
  try {
    second = await post(client, url, headers, body, call)
  } catch (error) {
    call.detail?.({ status: undefined, attempts: 2 })
    throw new Error(`webhook failed twice: ${errorMessage(error)}`)
  }
  call.detail?.({ status: second.status, attempts: 2 })
  call.meta?.({ httpStatus: second.status })
  if (second.status >= 500) throw new Error(`webhook failed twice: ${where} answered ${second.status}`)
  return second
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

/**
 * Reads a webhook's answer as a verdict (or throws what was wrong with it); the given
 * secrets are scrubbed from every text taken from the answer.
 */
export function interpretResponse(
  response: OutboundResponse,
  call: Pick<HookCall, 'event'>,
  where: string,
  secrets: readonly string[] = NO_SECRETS,
): unknown {
  const text = response.text().trim()
  if (response.status >= 400) {
    const detail = reasonFromBody(text)
    return {
      type: 'deny',
      reason: redactSecrets(
        `webhook ${where} answered ${response.status}${detail ? `: ${detail}` : ''}`,
        secrets,
      ),
    }
  }
  if (response.status >= 300) throw new Error(`webhook ${where} answered ${response.status}`)
  if (!text.startsWith('{') && !text.startsWith('[')) return { type: 'allow' }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return { type: 'allow' }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`webhook ${where} answered JSON that is not an object`)
  }
  const verdict = parseHookOutput(parsed as JsonObject, call.event)
  if ('error' in verdict)
    throw new Error(redactSecrets(`webhook ${where} answered an invalid decision: ${verdict.error}`, secrets))
  const v = verdict.verdict
  if (secrets.length === 0) return v
  if (v.reason !== undefined) v.reason = redactSecrets(v.reason, secrets)
  if (v.additionalContext) v.additionalContext = v.additionalContext.map((t) => redactSecrets(t, secrets))
  if (v.reasonCode) v.reasonCode = v.reasonCode.map((t) => redactSecrets(t, secrets))
  if (v.type === 'modify') v.payload = scrubJson(v.payload, secrets) as JsonObject
  return v
}

/** A JSON value with the secrets scrubbed from every string in it (keys included). */
function scrubJson(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return redactSecrets(value, secrets)
  if (Array.isArray(value)) return value.map((item) => scrubJson(item, secrets))
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value))
    out[redactSecrets(key, secrets)] = scrubJson(inner, secrets)
  return out
}

function reasonFromBody(text: string): string {
  if (!text) return ''
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>
    for (const key of ['reason', 'message', 'error']) {
      if (typeof parsed[key] === 'string') return (parsed[key] as string).slice(0, 500)
    }
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 200)
}
