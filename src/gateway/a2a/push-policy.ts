// Push-notification URLs under the SSRF policy. A caller that sets a push-notification
// config makes the upstream agent post to that URL later; the gateway checks it before
// the config leaves: http(s) only, no credentials in the URL, and neither the address nor
// any address the host resolves to may be special-purpose (loopback, private, link-local,
// the cloud metadata service...) unless `network.allow` lists it. The check runs as the
// last hook of `a2a.send`, `a2a.stream` and `a2a.pushConfig.set` (see pushPolicyHooks), so
// a refusal is a decision like a hook's deny: audited, counted and answered with its id.

import type { HookCall, HookDefinition, JsonObject } from '../../core/index.js'
import {
  type AllowList,
  blockedCategory,
  checkUrl,
  compileAllowList,
  formatIp,
  inRange,
  parseIp,
  type Resolver,
  redactUrl,
  systemResolver,
  unmapIpv4,
} from '../../net/index.js'
import { isObject } from './payload.js'

/** Checks push-notification URLs. */
export class PushUrlPolicy {
  private readonly allow: AllowList

  constructor(
    allow: readonly string[] = [],
    private readonly resolver: Resolver = systemResolver,
  ) {
    this.allow = compileAllowList(allow)
  }

  /**
   * Checks every push-notification URL a request carries.
   * @returns why one is refused, or undefined when all may be forwarded.
   */
  async refusal(params: JsonObject): Promise<string | undefined> {
    const unreadable = unreadablePushUrl(params)
    if (unreadable) return `push-notification URL refused: ${unreadable}`
    for (const url of pushUrls(params)) {
      const problem = await this.check(url)
      if (problem) return `push-notification URL refused: ${problem}`
    }
    return undefined
  }

  private async check(text: string): Promise<string | undefined> {
    let url: URL
    try {
      url = checkUrl(text)
    } catch (error) {
      return (error as Error).message
    }
    const host = url.hostname
      .replace(/^\[|\]$/g, '')
      .toLowerCase()
      .replace(/\.$/, '')
    if (this.hostAllowed(host)) return undefined
    const literal = parseIp(host)
    if (literal) return this.addressProblem(redactUrl(url.href), literal)
    if (host === 'localhost' || host.endsWith('.localhost')) {
      return `${redactUrl(url.href)} names a loopback host; to allow it, add "${host}" to network.allow in warden.yaml`
    }
    let answers: { address: string }[]
    try {
      answers = await this.resolver(host)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      return `could not resolve ${host}: ${code ?? (error as Error).message}`
    }
    if (answers.length === 0) return `${host} did not resolve to any address`
    for (const answer of answers) {
      const address = parseIp(answer.address)
      if (!address) return `${host} resolved to "${answer.address}", which is not an IP address`
      const problem = this.addressProblem(`${redactUrl(url.href)} (${host} resolves to it)`, address)
      if (problem) return problem
    }
    return undefined
  }

  private hostAllowed(host: string): boolean {
    return this.allow.hosts.has(host) || this.allow.suffixes.some((suffix) => host.endsWith(suffix))
  }

  private addressProblem(
    where: string,
    address: NonNullable<ReturnType<typeof parseIp>>,
  ): string | undefined {
    const plain = unmapIpv4(address)
    if (this.allow.ranges.some((range) => inRange(address, range) || inRange(plain, range))) return undefined
    const category = blockedCategory(address)
    if (!category) return undefined
    return `${where} is a ${category} address (${formatIp(plain)}); to allow it, add it to network.allow in warden.yaml`
  }
}

/** The objects of a request's params that may hold a push-notification `url`. */
function pushHolders(params: JsonObject): unknown[] {
  const holders: unknown[] = [params, params.pushNotificationConfig]
  const configuration = params.configuration
  if (isObject(configuration)) {
    holders.push(configuration.taskPushNotificationConfig, configuration.pushNotificationConfig)
    const task = configuration.taskPushNotificationConfig
    if (isObject(task)) holders.push(task.pushNotificationConfig)
  }
  return holders
}

/** Every push-notification URL in a request's params (config methods and send's configuration). */
export function pushUrls(params: JsonObject): string[] {
  const urls: string[] = []
  for (const holder of pushHolders(params)) {
    if (isObject(holder) && typeof holder.url === 'string') urls.push(holder.url)
  }
  return urls
}

/** Why a push-notification URL cannot be read as a string, or undefined when every one can. */
export function unreadablePushUrl(params: JsonObject): string | undefined {
  for (const holder of pushHolders(params)) {
    if (isObject(holder) && holder.url !== undefined && typeof holder.url !== 'string') {
      return `a push-notification url must be a string (got ${Array.isArray(holder.url) ? 'an array' : typeof holder.url})`
    }
  }
  return undefined
}

/** The events whose requests may carry push-notification URLs. */
export const PUSH_URL_EVENTS = ['a2a.send', 'a2a.stream', 'a2a.pushConfig.set'] as const

/** The name the built-in policy hooks start with (`a2a-push-url-policy:a2a.send`, ...). */
export const PUSH_POLICY_HOOK = 'a2a-push-url-policy'

/** The reason code of a push-notification URL the policy refused. */
export const PUSH_POLICY_REASON_CODE = 'push-url-refused'

/**
 * The policy as hooks that run after every other hook of their event (on the params as
 * earlier hooks modified them) and deny with the cause. A failure or a slow resolver
 * denies too (`onError` / `onTimeout`).
 */
export function pushPolicyHooks(policy: PushUrlPolicy): HookDefinition[] {
  // Synchronous (no opinion) for the requests that carry no push-notification URL.
  const fn = (call: HookCall) => {
    const a2a = call.event.payload.a2a
    const envelope = isObject(a2a) ? a2a.payload : undefined
    const params = isObject(envelope) ? envelope.params : undefined
    if (!isObject(params) || (pushUrls(params).length === 0 && !unreadablePushUrl(params))) return undefined
    return policy
      .refusal(params)
      .then((refusal) =>
        refusal ? { type: 'deny', reason: refusal, reasonCode: [PUSH_POLICY_REASON_CODE] } : undefined,
      )
  }
  return PUSH_URL_EVENTS.map((event) => ({
    name: `${PUSH_POLICY_HOOK}:${event}`,
    event,
    priority: Number.MAX_SAFE_INTEGER,
    timeoutMs: 10_000,
    onError: 'deny',
    onTimeout: 'deny',
    source: 'a2a gateway (network.allow)',
    handler: { type: 'fn', fn },
  }))
}
