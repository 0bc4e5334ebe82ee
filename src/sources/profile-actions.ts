// The declarative actions of agent.json profiles as one handler type, `profile-action`:
// `log` (a summary line, never the inputs), `webhook` (observe only, through the SSRF-
// checked outbound client, URL allowlist), `save_json` (append JSONL inside the profile's
// folder, or for a hook made through the management API inside the tenant's folder of the
// data folder, never through a symbolic link) and `approve` (an ask verdict for matching tools, so the engine holds the action
// for its approver and denies it when there is none or it times out).

import { isAbsolute, relative, resolve } from 'node:path'
import {
  abstain,
  ask,
  errorMessage,
  type HandlerFactory,
  type HookCall,
  type HookSpec,
  type JsonObject,
  toolOf,
  WardenError,
} from '../core/index.js'
import { loomWireContext } from '../handlers/index.js'
import { createOutboundClient, type OutboundClient, type OutboundClientOptions } from '../net/index.js'
import { appendConfined, isApiSource, relativePathProblem, tenantDataDir } from './data-dir.js'

/** The handler type of profile actions. */
export const PROFILE_ACTION_TYPE = 'profile-action'

/** Largest JSONL line `save_json` appends, in bytes. */
export const SAVE_JSON_MAX_LINE_BYTES = 1024 * 1024

/** Settings of the profile action handler. */
export interface ProfileActionOptions {
  /** Where `log` lines go (default: stderr). */
  log?: (line: string) => void
  /** URL prefixes webhooks may post to (an origin such as "https://hooks.example.com" or a longer prefix). */
  webhookAllow?: readonly string[]
  /**
   * The outbound client for https webhooks (the one every handler shares, with the
   * `network:` settings); default: one with no `network.allow`. http webhooks to loopback,
   * which profiles allow by design, go through a client of their own that allows only
   * loopback addresses.
   */
  client?: OutboundClient
  /** Settings of that loopback client (resolver, timeouts). */
  loopbackClient?: Omit<OutboundClientOptions, 'allow'>
  /**
   * The data folder (`management.dataDir`) where `save_json` hooks made through the
   * management API write, each tenant in a folder of its own; without it such hooks are refused.
   */
  dataDir?: string
}

const LOOPBACK_ALLOW = ['127.0.0.0/8', '::1/128']

/**
 * Checks a webhook URL: https anywhere, http only to a loopback address, and within the
 * allowlist. Returns the problem, or undefined when the URL may be used.
 */
export function webhookUrlProblem(text: string, allow: readonly string[]): string | undefined {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return `webhook url "${text}" is not a valid URL`
  }
  if (url.username || url.password) return 'webhook url must not carry user:password'
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return `webhook url "${url.origin}" uses http to a non-loopback host; use https (http is only accepted to 127.0.0.1, ::1 or localhost)`
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return 'webhook url must be https (or http to loopback)'
  if (!allow.some((entry) => urlAllowed(url, entry))) {
    return `webhook url "${url.origin}${url.pathname}" is not in the webhook allowlist; add it to webhooks.allow in warden.yaml or to WARDEN_WEBHOOK_ALLOW (comma-separated)`
  }
  return undefined
}

function urlAllowed(url: URL, entry: string): boolean {
  let allowed: URL
  try {
    allowed = new URL(entry)
  } catch {
    return false
  }
  return allowed.origin === url.origin && url.pathname.startsWith(allowed.pathname)
}

/** Whether a URL host is a loopback literal or localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

/**
 * Checks a `save_json` path: relative and inside the profile folder. Returns the problem, or
 * undefined when it is fine.
 */
export function saveJsonPathProblem(path: string, baseDir: string): string | undefined {
  if (path.trim() === '') return 'save_json path must not be empty'
  if (isAbsolute(path)) return `save_json path "${path}" must be relative to the profile's folder`
  const inside = relative(baseDir, resolve(baseDir, path))
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
    return `save_json path "${path}" leaves the profile's folder; keep it inside`
  }
  return undefined
}

/** Turns `deploy_*`-style globs into one matcher (`*` any run, `?` one character). */
export function globMatcher(globs: readonly string[]): (name: string) => boolean {
  const patterns = globs.map(
    (glob) =>
      new RegExp(
        `^${glob
          .split('')
          .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
          .join('')}$`,
        's',
      ),
  )
  return (name) => patterns.some((p) => p.test(name))
}

/** A one-line summary of an event: names and ids only, never inputs. */
export function summaryLine(profile: string, level: string, call: HookCall): string {
  const parts = [`[${profile}]`, level, call.event.event]
  const tool = toolOf(call.event.payload)
  if (tool) parts.push(`tool=${tool.name}`)
  const context = call.event.context
  if (context.agent?.id ?? context.agent?.name)
    parts.push(`agent=${context.agent?.id ?? context.agent?.name}`)
  if (context.session?.id) parts.push(`session=${context.session.id}`)
  if (context.turnId) parts.push(`turn=${context.turnId}`)
  return parts.join(' ')
}

/**
 * What `webhook` posts and `save_json` appends, in loom's shape (`v`, `ts`, `profile`,
 * `event`, and loom's hook `context`), with Warden's `payload` and `eventContext` beside it.
 */
function loomRecord(profile: string, call: HookCall): JsonObject {
  return {
    v: 1,
    ts: Date.now(),
    profile,
    event: call.event.event,
    context: loomWireContext(call.event),
    payload: call.event.payload,
    eventContext: call.event.context as JsonObject,
  }
}

async function appendJsonLine(baseDir: string, path: string, record: JsonObject): Promise<void> {
  const line = `${JSON.stringify(record)}\n`
  if (Buffer.byteLength(line) > SAVE_JSON_MAX_LINE_BYTES) {
    throw new Error(`the record is over ${SAVE_JSON_MAX_LINE_BYTES} bytes; not saved`)
  }
  await appendConfined(baseDir, path, line)
}

/**
 * The folder a `save_json` hook writes in: its profile's folder for a profile loaded from
 * disk, the tenant's folder inside the data folder for a hook from the management API.
 */
function saveJsonBase(config: Record<string, unknown>, hook: HookSpec, dataDir: string | undefined): string {
  if (!isApiSource(hook.source)) return text(config, 'baseDir', hook.name)
  if (config.baseDir !== undefined) {
    throw new WardenError(
      'invalid-hook',
      `hook "${hook.name}": handler.baseDir cannot be set through the management API; save_json writes inside the data folder (management.dataDir)`,
    )
  }
  if (!dataDir) {
    throw new WardenError(
      'invalid-hook',
      `hook "${hook.name}": save_json hooks made through the management API need a data folder; set management.dataDir in warden.yaml`,
    )
  }
  return tenantDataDir(dataDir, hook.scope.tenant)
}

function text(config: Record<string, unknown>, key: string, hookName: string): string {
  const value = config[key]
  if (typeof value !== 'string' || value === '')
    throw new WardenError('invalid-hook', `hook "${hookName}": handler.${key} must be a non-empty string`)
  return value
}

/** Creates the `profile-action` handler type. */
export function createProfileActionHandler(options: ProfileActionOptions = {}): HandlerFactory {
  const writeLog = options.log ?? ((line: string) => process.stderr.write(`warden: ${line}\n`))
  const allow = options.webhookAllow ?? []
  let remote: OutboundClient | undefined
  let loopback: OutboundClient | undefined
  const clientFor = (url: URL): OutboundClient => {
    if (isLoopbackHost(url.hostname)) {
      loopback ??= createOutboundClient({
        ...options.loopbackClient,
        allow: [...LOOPBACK_ALLOW, 'localhost'],
      })
      return loopback
    }
    remote ??= options.client ?? createOutboundClient()
    return remote
  }
  return {
    type: PROFILE_ACTION_TYPE,
    prepare(config, hook) {
      const profile = typeof config.profile === 'string' ? config.profile : 'profile'
      switch (config.action) {
        case 'log': {
          const level = typeof config.level === 'string' ? config.level : 'info'
          return (call) => {
            const line = summaryLine(profile, level, call)
            writeLog(line)
            call.log(line)
            return abstain()
          }
        }
        case 'webhook': {
          const url = text(config, 'url', hook.name)
          const problem = webhookUrlProblem(url, allow)
          if (problem) throw new WardenError('invalid-hook', `hook "${hook.name}": ${problem}`)
          const client = clientFor(new URL(url))
          return async (call) => {
            const body = JSON.stringify(loomRecord(profile, call))
            try {
              const response = await client.request({
                url,
                method: 'POST',
                headers: { 'content-type': 'application/json' },
                body,
                signal: call.signal,
                timeoutMs: hook.timeoutMs,
                maxResponseBytes: 64 * 1024,
              })
              call.log(`webhook answered ${response.status}`)
            } catch (error) {
              call.log(`webhook failed (observe only, the action goes on): ${errorMessage(error)}`)
            }
            return abstain()
          }
        }
        case 'save_json': {
          const path = text(config, 'path', hook.name)
          const baseDir = saveJsonBase(config, hook, options.dataDir)
          const problem = isApiSource(hook.source)
            ? relativePathProblem('handler.path', path)
            : saveJsonPathProblem(path, baseDir)
          if (problem) throw new WardenError('invalid-hook', `hook "${hook.name}": ${problem}`)
          return async (call) => {
            const record: JsonObject = { time: new Date().toISOString(), ...loomRecord(profile, call) }
            try {
              await appendJsonLine(baseDir, path, record)
            } catch (error) {
              call.log(`save_json failed (observe only, the action goes on): ${errorMessage(error)}`)
            }
            return abstain()
          }
        }
        case 'approve': {
          const tools = Array.isArray(config.tools) ? config.tools.filter((t) => typeof t === 'string') : []
          const matches = tools.length > 0 ? globMatcher(tools) : undefined
          return (call) => {
            const tool = toolOf(call.event.payload)
            if (matches && (!tool || !matches(tool.name))) return abstain()
            const what = tool ? `tool "${tool.name}"` : call.event.event
            return ask(`profile ${profile} requires approval for ${what}`)
          }
        }
        default:
          throw new WardenError(
            'invalid-hook',
            `hook "${hook.name}": handler.action must be log, webhook, save_json or approve (got ${JSON.stringify(config.action)})`,
          )
      }
    },
    async close() {
      await Promise.all([remote === options.client ? undefined : remote?.close(), loopback?.close()])
      remote = undefined
      loopback = undefined
    },
  }
}
