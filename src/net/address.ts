// IP addresses as bytes: strict parsing of IPv4 and IPv6 text, CIDR ranges, and the
// special-purpose ranges Warden refuses to connect to (loopback, private, link-local,
// CGNAT, multicast, unspecified, benchmarking, documentation, and IPv6 forms that embed
// an IPv4 address: mapped, compatible, translated, NAT64, 6to4, Teredo).

import { withArticle } from '../core/index.js'

/** An IP address: 4 bytes (IPv4) or 16 bytes (IPv6). */
export interface IpAddress {
  family: 4 | 6
  bytes: Uint8Array
}

/** A CIDR range. */
export interface IpRange {
  family: 4 | 6
  bytes: Uint8Array
  prefix: number
}

/**
 * Parses an IP address in canonical text form: dotted-quad IPv4 (no octal, hex or short
 * forms: those are for URL parsing) or IPv6, with or without brackets or a zone id.
 * @returns the address, or undefined when the text is not an IP address.
 */
export function parseIp(text: string): IpAddress | undefined {
  let value = text
  if (value.startsWith('[') && value.endsWith(']')) value = value.slice(1, -1)
  const zone = value.indexOf('%')
  if (zone >= 0) value = value.slice(0, zone)
  if (value.includes(':')) {
    const bytes = parseIpv6(value)
    return bytes ? { family: 6, bytes } : undefined
  }
  const bytes = parseIpv4(value)
  return bytes ? { family: 4, bytes } : undefined
}

function parseIpv4(text: string): Uint8Array | undefined {
  const parts = text.split('.')
  if (parts.length !== 4) return undefined
  const bytes = new Uint8Array(4)
  for (let i = 0; i < 4; i++) {
    const part = parts[i] as string
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined
    const n = Number(part)
    if (n > 255) return undefined
    bytes[i] = n
  }
  return bytes
}

function parseIpv6(text: string): Uint8Array | undefined {
  const halves = text.split('::')
  if (halves.length > 2) return undefined
  const groups = (half: string): number[] | undefined => {
    if (half === '') return []
    const out: number[] = []
    const pieces = half.split(':')
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] as string
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseIpv4(piece)
        if (!v4) return undefined
        out.push(((v4[0] as number) << 8) | (v4[1] as number), ((v4[2] as number) << 8) | (v4[3] as number))
        continue
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return undefined
      out.push(Number.parseInt(piece, 16))
    }
    return out
  }
  const head = groups(halves[0] as string)
  const tail = halves.length === 2 ? groups(halves[1] as string) : []
  if (!head || !tail) return undefined
  const total = head.length + tail.length
  if (halves.length === 2 ? total > 7 : total !== 8) return undefined
  const all = [...head, ...new Array<number>(8 - total).fill(0), ...tail]
  const bytes = new Uint8Array(16)
  all.forEach((group, i) => {
    bytes[i * 2] = group >> 8
    bytes[i * 2 + 1] = group & 0xff
  })
  return bytes
}

/** Formats an address as canonical text (IPv6 compressed, lower case). */
export function formatIp(address: IpAddress): string {
  const b = address.bytes
  if (address.family === 4) return Array.from(b).join('.')
  const groups: number[] = []
  for (let i = 0; i < 16; i += 2) groups.push(((b[i] as number) << 8) | (b[i + 1] as number))
  let bestStart = -1
  let bestLength = 0
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++
      continue
    }
    let j = i
    while (j < 8 && groups[j] === 0) j++
    if (j - i > bestLength && j - i > 1) {
      bestStart = i
      bestLength = j - i
    }
    i = j
  }
  const hex = groups.map((g) => g.toString(16))
  if (bestStart < 0) return hex.join(':')
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`
}

/**
 * Parses "10.0.0.0/8", "fc00::/7" or a single address (a /32 or /128 range).
 * @returns the range, or undefined when the text is not one.
 */
export function parseCidr(text: string): IpRange | undefined {
  const slash = text.indexOf('/')
  const address = parseIp(slash >= 0 ? text.slice(0, slash) : text)
  if (!address) return undefined
  const max = address.family === 4 ? 32 : 128
  if (slash < 0) return { ...address, prefix: max }
  const prefixText = text.slice(slash + 1)
  if (!/^[0-9]{1,3}$/.test(prefixText)) return undefined
  const prefix = Number(prefixText)
  if (prefix > max) return undefined
  return { ...address, prefix }
}

/** Whether an address lies in a range of the same family. */
export function inRange(address: IpAddress, range: IpRange): boolean {
  if (address.family !== range.family) return false
  const full = Math.floor(range.prefix / 8)
  for (let i = 0; i < full; i++) if (address.bytes[i] !== range.bytes[i]) return false
  const rest = range.prefix % 8
  if (rest === 0) return true
  const mask = (0xff << (8 - rest)) & 0xff
  return ((address.bytes[full] as number) & mask) === ((range.bytes[full] as number) & mask)
}

/**
 * The IPv4 address an IPv6 address stands for when it is IPv4-mapped (::ffff:a.b.c.d);
 * other addresses are returned as they are.
 */
export function unmapIpv4(address: IpAddress): IpAddress {
  if (address.family === 6 && inRange(address, MAPPED)) return { family: 4, bytes: address.bytes.slice(12) }
  return address
}

const range = (text: string): IpRange => parseCidr(text) as IpRange

const MAPPED = range('::ffff:0:0/96')

const BLOCKED_V4: [IpRange, string][] = [
  [range('0.0.0.0/8'), 'unspecified ("this network")'],
  [range('10.0.0.0/8'), 'private (RFC 1918)'],
  [range('100.64.0.0/10'), 'carrier-grade NAT (CGNAT)'],
  [range('127.0.0.0/8'), 'loopback'],
  [range('169.254.0.0/16'), 'link-local (cloud metadata lives here)'],
  [range('172.16.0.0/12'), 'private (RFC 1918)'],
  [range('192.0.0.0/24'), 'IETF protocol assignment'],
  [range('192.0.2.0/24'), 'documentation (TEST-NET-1)'],
  [range('192.88.99.0/24'), '6to4 relay anycast'],
  [range('192.168.0.0/16'), 'private (RFC 1918)'],
  [range('198.18.0.0/15'), 'benchmarking'],
  [range('198.51.100.0/24'), 'documentation (TEST-NET-2)'],
  [range('203.0.113.0/24'), 'documentation (TEST-NET-3)'],
  [range('224.0.0.0/4'), 'multicast'],
  [range('240.0.0.0/4'), 'reserved or broadcast'],
]

/** IPv6 ranges that embed an IPv4 address at byte `at`: judged by that address. */
const EMBEDDING_V6: [IpRange, number, string][] = [
  [range('::ffff:0:0:0/96'), 12, 'IPv4-translated'],
  [range('64:ff9b::/96'), 12, 'NAT64'],
  [range('2002::/16'), 2, '6to4'],
]

const BLOCKED_V6: [IpRange, string][] = [
  [range('::/128'), 'unspecified'],
  [range('::1/128'), 'loopback'],
  [range('::/96'), 'IPv4-compatible (deprecated)'],
  [range('64:ff9b:1::/48'), 'local-use NAT64'],
  [range('100::/64'), 'discard-only'],
  [range('2001::/23'), 'IETF protocol assignment'],
  [range('2001::/32'), 'Teredo tunnel'],
  [range('2001:2::/48'), 'benchmarking'],
  [range('2001:db8::/32'), 'documentation'],
  [range('3fff::/20'), 'documentation'],
  [range('fc00::/7'), 'unique local (private)'],
  [range('fe80::/10'), 'link-local'],
  [range('fec0::/10'), 'site-local (deprecated)'],
  [range('ff00::/8'), 'multicast'],
]

/**
 * Why an address must not be connected to, or undefined when it is a public address.
 * IPv6 forms that carry an IPv4 address are judged by that address.
 */
export function blockedCategory(address: IpAddress): string | undefined {
  const plain = unmapIpv4(address)
  if (plain.family === 4) {
    const hit = BLOCKED_V4.find(([r]) => inRange(plain, r))
    if (!hit) return undefined
    return plain === address ? hit[1] : `IPv4-mapped ${hit[1]}`
  }
  for (const [r, at, label] of EMBEDDING_V6) {
    if (!inRange(plain, r)) continue
    const inner = blockedCategory({ family: 4, bytes: plain.bytes.slice(at, at + 4) })
    return inner ? `${label} form of ${withArticle(inner)} address` : undefined
  }
  // Longest prefix first, so ::1 is "loopback" rather than "IPv4-compatible".
  const hits = BLOCKED_V6.filter(([r]) => inRange(plain, r)).sort((a, b) => b[0].prefix - a[0].prefix)
  return hits[0]?.[1]
}
