// The SSRF policy: which URLs and resolved addresses the outbound client may connect to.
// Special-purpose addresses are refused unless `network.allow` lists them (a CIDR, an
// address, a host name or a `*.suffix`); every refusal says which setting would allow it.

import { withArticle } from '../core/index.js'
import {
  blockedCategory,
  formatIp,
  type IpAddress,
  type IpRange,
  inRange,
  parseCidr,
  parseIp,
  unmapIpv4,
} from './address.js'
import { OutboundError } from './types.js'

/** The compiled `network.allow` list. */
export interface AllowList {
  ranges: IpRange[]
  hosts: Set<string>
  suffixes: string[]
}

const HOST_RULE = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,62})?)(\.[a-z0-9]([a-z0-9-]{0,62})?)*\.?$/

/**
 * Compiles `network.allow` entries: "10.0.0.0/8", "::1", "hooks.internal", "*.corp.example".
 * @throws OutboundError `invalid-request` naming the entry that is neither.
 */
export function compileAllowList(entries: readonly string[] = []): AllowList {
  const list: AllowList = { ranges: [], hosts: new Set(), suffixes: [] }
  for (const raw of entries) {
    const entry = String(raw).trim().toLowerCase()
    const cidr = parseCidr(entry)
    if (cidr) {
      list.ranges.push(cidr)
      continue
    }
    if (entry.includes('/') || entry.includes(':') || !HOST_RULE.test(entry)) {
      throw new OutboundError(
        'invalid-request',
        `network.allow entry "${raw}" is neither a CIDR range (e.g. "10.0.0.0/8", "fd00::/8"), an IP address nor a host name (e.g. "hooks.internal", "*.corp.example")`,
      )
    }
    const host = stripDot(entry)
    if (host.startsWith('*.')) list.suffixes.push(host.slice(1))
    else list.hosts.add(host)
  }
  return list
}

function stripDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host
}

/** Whether the allow list names this host (exactly or by a `*.suffix`). */
export function hostAllowed(list: AllowList, hostname: string): boolean {
  const host = stripDot(hostname.toLowerCase())
  return list.hosts.has(host) || list.suffixes.some((s) => host.endsWith(s))
}

/** Whether the allow list covers this address (IPv4-mapped IPv6 is judged as IPv4). */
export function addressAllowed(list: AllowList, address: IpAddress): boolean {
  const plain = unmapIpv4(address)
  return list.ranges.some((r) => inRange(address, r) || inRange(plain, r))
}

/** Options of {@link checkUrl}. */
export interface UrlRules {
  allowCredentials?: boolean
}

/**
 * Parses and checks a URL: http or https only, no user:password unless allowed.
 * @throws OutboundError `invalid-url` saying what to change.
 */
export function checkUrl(text: string, rules: UrlRules = {}): URL {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new OutboundError('invalid-url', `"${redactUrl(text)}" is not a valid absolute URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError(
      'invalid-url',
      `${url.protocol.slice(0, -1)}: URLs are refused; only http and https are allowed`,
    )
  }
  if ((url.username || url.password) && !rules.allowCredentials) {
    throw new OutboundError(
      'invalid-url',
      `${redactUrl(url.href)} carries a user name or password; put credentials in a (secret) header instead`,
    )
  }
  return url
}

/** A URL for messages: credentials, query and fragment removed. */
export function redactUrl(text: string): string {
  try {
    const url = new URL(text)
    return `${url.protocol}//${url.host}${url.pathname}`
  } catch {
    return text.length > 80 ? `${text.slice(0, 80)}...` : text
  }
}

/** The IP literal a URL's host is, if it is one (after WHATWG normalisation). */
export function literalAddress(url: URL): IpAddress | undefined {
  return parseIp(url.hostname)
}

function allowHint(address: IpAddress): string {
  const plain = unmapIpv4(address)
  return `add "${formatIp(plain)}" (or a CIDR range covering it) to network.allow in warden.yaml`
}

/**
 * Checks an address the client is about to connect to.
 * @throws OutboundError `blocked-address` naming the address, its category and the setting.
 */
export function checkAddress(list: AllowList, hostname: string, address: IpAddress): void {
  if (addressAllowed(list, address)) return
  const category = blockedCategory(address)
  if (!category) return
  const text = formatIp(address)
  const literal = parseIp(hostname)
  const via = literal ? '' : ` (${hostname} resolves to it)`
  throw new OutboundError(
    'blocked-address',
    `refused to connect to ${text}${via}: it is ${withArticle(category)} address; to allow it, ${allowHint(address)}`,
  )
}

/**
 * Checks a host name before it is resolved: `localhost` and `*.localhost` are refused
 * unless allowed (RFC 6761 says they are always loopback).
 * @throws OutboundError `blocked-address`.
 */
export function checkHostName(list: AllowList, hostname: string): void {
  const host = stripDot(hostname.toLowerCase())
  if ((host === 'localhost' || host.endsWith('.localhost')) && !hostAllowed(list, host)) {
    throw new OutboundError(
      'blocked-address',
      `refused to connect: ${hostname} is a loopback name; to allow it, add "${host}" to network.allow in warden.yaml`,
    )
  }
}

/**
 * Checks every address a host resolved to: one refused address refuses the host.
 * @returns the addresses to connect to (all of them checked).
 * @throws OutboundError `dns` when there is none, `blocked-address` when one is refused.
 */
export function checkResolved(
  list: AllowList,
  hostname: string,
  addresses: readonly { address: string }[],
): IpAddress[] {
  if (addresses.length === 0) throw new OutboundError('dns', `${hostname} did not resolve to any address`)
  const checked: IpAddress[] = []
  const byName = hostAllowed(list, hostname)
  for (const { address } of addresses) {
    const ip = parseIp(address)
    if (!ip)
      throw new OutboundError('dns', `${hostname} resolved to "${address}", which is not an IP address`)
    if (!byName) checkAddress(list, hostname, ip)
    checked.push(ip)
  }
  return checked
}
