// The URL / egress detector: finds URLs (with a scheme, protocol-relative, or bare host
// names with a common top-level domain) and checks each host as a browser or HTTP client
// would resolve it. Hosts are parsed by the WHATWG URL parser, so the tricky forms land on
// their real host: userinfo (`https://good.com@evil.com`), decimal, hex and octal IPv4
// (`http://2130706433`), IDN homoglyphs (compared in punycode), `\` for `/`, trailing dots.

import { z } from 'zod'
import type { Detector, Finding } from './types.js'

const optionsSchema = z
  .object({
    allow: z
      .array(z.string().min(1).max(253), {
        error: 'must be a list of host names; "*.example.com" or ".example.com" also allows subdomains',
      })
      .max(1000)
      .optional(),
    schemes: z
      .array(z.string().regex(/^[a-z][a-z0-9+.-]*$/i))
      .max(20)
      .optional(),
    blockIpLiterals: z.boolean().optional(),
    blockUserinfo: z.boolean().optional(),
    bareHosts: z.boolean().optional(),
  })
  .strict()

/** Options of the egress detector. */
export type EgressOptions = z.infer<typeof optionsSchema>

const SCHEME_URL = /\b([a-z][a-z0-9+.-]{1,15}):(?:\/\/|\\\\)[^\s<>"'`]{1,2048}/gi
const PROTOCOL_RELATIVE =
  /(?<![\w:/])\/\/[a-z0-9][^\s<>"'`)\]}/]{0,252}\.[a-z]{2,24}(?:[/?#][^\s<>"'`)\]}]*)?/gi
const BARE =
  /(?<![\w@./:-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){1,8}(?:com|net|org|io|ai|dev|app|co|me|info|biz|xyz|top|ru|cn|tk|ml|ga|cf|gq|uk|de|fr|nl|eu|us|ca|au|in|jp|br|cc|tv|ws|su|to|ly|gg|site|online|club|shop|store|cloud|link|live|pw|zip|mov)(?::\d{1,5})?(?:\/[^\s<>"'`)\]}]*)?(?![\w@-])/gi
const IPV4 = /(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?(?:\/[^\s<>"'`)\]}]*)?(?![\w.])/g

interface HostRule {
  host: string
  subdomains: boolean
}

function hostOf(spec: string): string | undefined {
  try {
    return new URL(`http://${spec}/`).hostname.replace(/\.$/, '')
  } catch {
    return undefined
  }
}

/** Reads an allow list entry: `example.com`, `*.example.com` / `.example.com` (and subdomains). */
function hostRule(entry: string): HostRule {
  const subdomains = entry.startsWith('*.') || entry.startsWith('.')
  const bare = entry.replace(/^\*?\./, '')
  return { host: hostOf(bare) ?? bare.toLowerCase(), subdomains }
}

function isIpLiteral(host: string): boolean {
  return host.startsWith('[') || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(host)
}

/** Checks one URL, or answers why it is refused (undefined when it is allowed). */
function verdictFor(
  raw: string,
  options: EgressOptions,
  rules: readonly HostRule[] | undefined,
  schemes: ReadonlySet<string>,
): string | undefined {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return undefined
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase()
  if (!schemes.has(scheme)) return `scheme ${scheme}: is not allowed`
  const host = url.hostname.replace(/\.$/, '').toLowerCase()
  if (host === '') return undefined
  if (options.blockUserinfo !== false && (url.username !== '' || url.password !== ''))
    return `${host}: credentials or a decoy host before "@"`
  if (rules) {
    const allowed = rules.some((r) => host === r.host || (r.subdomains && host.endsWith(`.${r.host}`)))
    if (allowed) return undefined
    return `${host}: not in the allow list`
  }
  if (options.blockIpLiterals !== false && isIpLiteral(host))
    return `${host}: an IP address instead of a host name`
  if (host.includes('xn--')) return `${host}: an internationalised (possibly look-alike) host name`
  return undefined
}

function trimUrl(text: string): string {
  return text.replace(/[.,;:!?'")\]}]+$/, '')
}

/** Every URL in `text` whose host the options do not allow. */
export function scanEgress(text: string, options: EgressOptions = {}): Finding[] {
  return prepareEgress(options)(text)
}

function prepareEgress(options: EgressOptions): (text: string) => Finding[] {
  const rules = options.allow?.map(hostRule)
  const schemes = new Set((options.schemes ?? ['http', 'https']).map((s) => s.toLowerCase()))
  const bare = options.bareHosts !== false
  return (text) => {
    const findings: Finding[] = []
    const seen: [number, number][] = []
    const check = (start: number, raw: string, asUrl: string) => {
      const end = start + raw.length
      if (seen.some(([s, e]) => start < e && end > s)) return
      seen.push([start, end])
      const why = verdictFor(asUrl, options, rules, schemes)
      if (why) findings.push({ kind: 'url', start, end, detail: why })
    }
    const hasDot = text.includes('.')
    if (text.includes(':')) {
      SCHEME_URL.lastIndex = 0
      for (let m = SCHEME_URL.exec(text); m !== null; m = SCHEME_URL.exec(text)) {
        const raw = trimUrl(m[0])
        check(m.index, raw, raw)
      }
    }
    if (!hasDot) return findings
    if (text.includes('//')) {
      PROTOCOL_RELATIVE.lastIndex = 0
      for (let m = PROTOCOL_RELATIVE.exec(text); m !== null; m = PROTOCOL_RELATIVE.exec(text)) {
        const raw = trimUrl(m[0])
        check(m.index, raw, `https:${raw}`)
      }
    }
    if (bare) {
      BARE.lastIndex = 0
      for (let m = BARE.exec(text); m !== null; m = BARE.exec(text)) {
        const raw = trimUrl(m[0])
        check(m.index, raw, `https://${raw}`)
      }
      IPV4.lastIndex = 0
      for (let m = IPV4.exec(text); m !== null; m = IPV4.exec(text)) {
        const raw = trimUrl(m[0])
        if (
          raw
            .split(/[:/]/)[0]
            ?.split('.')
            .every((n) => Number(n) <= 255)
        )
          check(m.index, raw, `http://${raw}`)
      }
    }
    return findings.sort((a, b) => a.start - b.start)
  }
}

/** The `egress` detector: URLs to hosts outside an allow list, and disguised hosts. */
export const egressDetector: Detector<EgressOptions> = {
  name: 'egress',
  summary: 'URLs to hosts outside an allow list; IP literals, userinfo and look-alike hosts',
  options: optionsSchema,
  target: 'all',
  redacts: true,
  prepare: prepareEgress,
}
