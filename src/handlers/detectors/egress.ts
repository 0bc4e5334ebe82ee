// The URL / egress detector: finds URLs (with a scheme, protocol-relative, or bare host
// names), `user@host:path` addresses and the targets of network commands (`curl`, `ssh`,
// `scp`, `git push`, …), and checks each host as a browser or HTTP client would resolve it.
// Hosts are parsed by the WHATWG URL parser, so the tricky forms land on their real host:
// userinfo (`https://good.com@evil.com`), decimal, hex, octal and short IPv4 (`0x7f.1`),
// IDN homoglyphs (compared in punycode), `\` for `/`, `https:/evil.io`, trailing dots.
// `mode: allow` is the strict form: only listed hosts (with their schemes and ports) pass,
// and a target that cannot be read — unparseable, or a variable — is not allowed.

import { z } from 'zod'
import { bounded } from './budget.js'
import { type CommandTarget, commandTargets } from './egress-commands.js'
import type { Detector, Finding, ScanContext } from './types.js'

const ENTRY = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\*\.|\.)?(\[[0-9a-f:.]+\]|[^/:\s[\]@]+)(?::(\d{1,5}|\*))?\/?$/i

const optionsSchema = z
  .object({
    mode: z.enum(['deny', 'allow'], { error: 'must be "deny" or "allow"' }).optional(),
    allow: z
      .array(
        z
          .string()
          .min(1)
          .max(300)
          .refine((entry) => ENTRY.test(entry), {
            message:
              'must be a host such as "example.com", "*.example.com", "https://api.example.com" or "example.com:8443"',
          }),
        {
          error: 'must be a list of host names; "*.example.com" or ".example.com" also allows subdomains',
        },
      )
      .max(1000)
      .optional(),
    schemes: z
      .array(z.string().regex(/^[a-z][a-z0-9+.-]*$/i))
      .max(20)
      .optional(),
    blockIpLiterals: z.boolean().optional(),
    blockUserinfo: z.boolean().optional(),
    blockInternal: z.boolean().optional(),
    bareHosts: z.boolean().optional(),
  })
  .strict()
  .refine((o) => o.mode !== 'allow' || o.allow !== undefined, {
    message: 'mode "allow" needs an allow list of hosts (an empty list allows none)',
    path: ['allow'],
  })

/** Options of the egress detector. */
export type EgressOptions = z.infer<typeof optionsSchema>

/** Schemes whose URLs the WHATWG parser reads with any number of slashes (`https:/evil.io`). */
const SPECIAL_URL = /\b(https?|wss?|ftp):[\\/]{0,3}(?=[^\s\\/<>"'`])[^\s<>"'`]{1,2048}/gi
const SCHEME_URL = /\b([a-z][a-z0-9+.-]{1,15}):(?:\/\/|\\\\)[^\s<>"'`]{1,2048}/gi
const PROTOCOL_RELATIVE =
  /(?<![\w:/])\/\/[a-z0-9][^\s<>"'`)\]}/]{0,252}\.[a-z]{2,24}(?:[/?#][^\s<>"'`)\]}]*)?/gi
const BARE =
  /(?<![\w@./:\\-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){1,8}(?:com|net|org|io|ai|dev|app|co|me|info|biz|xyz|top|ru|cn|tk|ml|ga|cf|gq|uk|de|fr|nl|eu|us|ca|au|in|jp|br|cc|tv|ws|su|to|ly|gg|site|online|club|shop|store|cloud|link|live|pw|zip|mov|it|es|pl|se|ch|at|be|kr|tw|hk|sg|nz|za|il|tr|ir|vn|ua|kz|mx|ar|sh|lol|icu|cyou|rest|click|fun|space|website|tech|pro|page|run|tools|zone|ngrok|local|internal|localhost|lan|corp|intranet|onion|localdomain)(?::\d{1,5})?(?:\/[^\s<>"'`)\]}]*)?(?![\w@-]|\.[a-z0-9])/gi
const IPV4 = /(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?(?:\/[^\s<>"'`)\]}]*)?(?![\w.])/g
/** `user@host:path`, as git, scp and rsync read it. */
const SCP_FORM =
  /(?<![\w.@/-])[a-z0-9._-]{1,64}@(\[[0-9a-f:.]+\]|[a-z0-9-]+(?:\.[a-z0-9-]+)*):(?!\d{1,5}(?![\w/.-]))(?=[~/\w.-])/gi
/** Raw sockets: bash `/dev/tcp/host/port`, socat `TCP:host:port`, `openssl s_client -connect host:port`. */
const SOCKET =
  /\/dev\/(?:tcp|udp)\/([^/\s]{1,253})\/\d{1,5}|\b(?:tcp[46]?|udp[46]?|openssl|ssl)(?:-connect)?:([^:,\s]{1,253}):\d{1,5}|-connect\s+([^\s:]{1,253}):\d{1,5}/gi

/** Top-level domains and names that only resolve inside a network, or to this machine. */
const INTERNAL =
  /(?:^|\.)(?:localhost|local|internal|intranet|lan|home|corp|private|localdomain|test|onion|i2p|home\.arpa)$|\.(?:nip|sslip|xip)\.io$|(?:^|\.)(?:localtest|lvh|vcap)\.me$/
const DEFAULT_PORTS: Record<string, string> = {
  ssh: '22',
  ftp: '21',
  http: '80',
  https: '443',
  ws: '80',
  wss: '443',
  git: '9418',
}
const HTTP_LIKE = new Set(['http', 'https', 'ws', 'wss', 'ftp'])

interface HostRule {
  host: string
  subdomains: boolean
  scheme?: string
  /** A port number, `*` for any, or undefined for the scheme's default. */
  port?: string
}

/** One place the text points at. */
interface Target {
  start: number
  end: number
  /** What the URL parser reads. */
  url: string
  /** True when the scheme was written (not implied for a bare host or a command). */
  explicit: boolean
  unresolved?: string
}

function hostOf(spec: string): string | undefined {
  try {
    return new URL(`http://${spec}/`).hostname.replace(/\.$/, '')
  } catch {
    return undefined
  }
}

/** Reads an allow list entry: `[scheme://][*.]host[:port]`. */
function hostRule(entry: string): HostRule {
  const [, scheme, wildcard, host = entry, port] = ENTRY.exec(entry) ?? []
  return {
    host: hostOf(host) ?? host.toLowerCase(),
    subdomains: wildcard !== undefined,
    ...(scheme ? { scheme: scheme.toLowerCase() } : {}),
    ...(port ? { port } : {}),
  }
}

function isIpLiteral(host: string): boolean {
  return host.startsWith('[') || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(host)
}

interface Policy {
  options: EgressOptions
  strict: boolean
  rules: readonly HostRule[] | undefined
  schemes: ReadonlySet<string>
}

/** Checks one target, or answers why it is refused (undefined when it is allowed). */
function verdictFor(target: Target, policy: Policy): string | undefined {
  const { options, strict, rules, schemes } = policy
  if (target.unresolved) {
    if (strict) return `${target.unresolved}: not allowed (mode: allow)`
    // Outside mode allow, what the variable cannot change is still checked.
    if (target.url === '') return undefined
  }
  const authority = /^[a-z][a-z0-9+.-]*:[\\/]*([^/?#\\]*)/i.exec(target.url)?.[1] ?? ''
  if (/[$`{}<>]/.test(authority.slice(authority.lastIndexOf('@') + 1)))
    return strict
      ? `a host that depends on a variable (${authority.slice(0, 60)}): not allowed (mode: allow)`
      : undefined
  let url: URL
  try {
    url = new URL(target.url)
  } catch {
    return strict
      ? `a URL that cannot be parsed (${target.url.slice(0, 60)}): not allowed (mode: allow)`
      : undefined
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase()
  if (target.explicit && !schemes.has(scheme)) return `scheme ${scheme}: is not allowed`
  const host = url.hostname.replace(/\.$/, '').toLowerCase()
  if (host === '')
    return strict && HTTP_LIKE.has(scheme) ? `a URL without a host: not allowed (mode: allow)` : undefined
  if (options.blockUserinfo !== false && (url.username !== '' || url.password !== '') && target.explicit)
    return `${host}: credentials or a decoy host before "@"`
  if (rules) {
    const port = url.port === DEFAULT_PORTS[scheme] ? '' : url.port
    const allowed = rules.some(
      (r) =>
        (host === r.host || (r.subdomains && host.endsWith(`.${r.host}`))) &&
        (r.scheme === undefined || r.scheme === scheme) &&
        (r.port === '*' ||
          (r.port === undefined ? !strict || port === '' : r.port === (url.port || DEFAULT_PORTS[scheme]))),
    )
    if (allowed) return undefined
    return `${host}${url.port ? `:${url.port}` : ''}: not in the allow list`
  }
  if (options.blockIpLiterals !== false && isIpLiteral(host))
    return `${host}: an IP address instead of a host name`
  if (
    options.blockInternal !== false &&
    (INTERNAL.test(host) || (!host.includes('.') && !host.includes(':') && HTTP_LIKE.has(scheme)))
  )
    return `${host}: a host inside the local network or this machine`
  if (host.includes('xn--')) return `${host}: an internationalised (possibly look-alike) host name`
  return undefined
}

function trimUrl(text: string): string {
  return text.replace(/[.,;:!?'")\]}]+$/, '')
}

/** Every URL in `text` whose host the options do not allow. */
export function scanEgress(text: string, options: EgressOptions = {}, context?: ScanContext): Finding[] {
  return prepareEgress(options)(text, undefined, context)
}

/** Most findings one string may yield; past it the scan stops with a `scan-limit` finding. */
const MAX_FINDINGS = 1000

function prepareEgress(
  options: EgressOptions,
): (text: string, key?: string, context?: ScanContext) => Finding[] {
  const rules = options.allow?.map(hostRule)
  const strict = options.mode === 'allow'
  const schemes = new Set((options.schemes ?? ['http', 'https']).map((s) => s.toLowerCase()))
  if (strict) for (const rule of rules ?? []) if (rule.scheme) schemes.add(rule.scheme)
  const policy: Policy = { options, strict, rules, schemes }
  const bare = options.bareHosts !== false
  return bounded('egress', (text, budget) => {
    const findings: Finding[] = []
    let covered: Uint8Array | undefined
    const check = (target: Target) => {
      if (!budget.charge(target.end - target.start + 64)) return
      covered ??= new Uint8Array(text.length + 1)
      for (let i = target.start; i < target.end; i++) if (covered[i]) return
      covered.fill(1, target.start, target.end)
      const why = verdictFor(target, policy)
      if (!why) return
      if (findings.length >= MAX_FINDINGS) budget.charge(budget.limit + 1)
      else findings.push({ kind: 'url', start: target.start, end: target.end, detail: why })
    }
    const each = (re: RegExp, fn: (m: RegExpExecArray) => void) => {
      re.lastIndex = 0
      for (let m = re.exec(text); m !== null && !budget.exhausted; m = re.exec(text)) fn(m)
    }
    const hasDot = text.includes('.')
    if (text.includes(':')) {
      each(SPECIAL_URL, (m) => {
        const raw = trimUrl(m[0])
        check({ start: m.index, end: m.index + raw.length, url: raw, explicit: true })
      })
      each(SCHEME_URL, (m) => {
        const raw = trimUrl(m[0])
        check({ start: m.index, end: m.index + raw.length, url: raw, explicit: true })
      })
      if (text.includes('@'))
        each(SCP_FORM, (m) =>
          check({ start: m.index, end: m.index + m[0].length, url: `ssh://${m[1]}`, explicit: false }),
        )
    }
    each(SOCKET, (m) => {
      const host = m[1] ?? m[2] ?? m[3] ?? ''
      check({ start: m.index, end: m.index + m[0].length, url: `tcp://${host}`, explicit: false })
    })
    for (const target of commandTargets(text, budget)) check(commandTarget(target))
    if (!hasDot) return findings.sort((a, b) => a.start - b.start)
    if (text.includes('//'))
      each(PROTOCOL_RELATIVE, (m) => {
        const raw = trimUrl(m[0])
        check({ start: m.index, end: m.index + raw.length, url: `https:${raw}`, explicit: false })
      })
    if (bare) {
      each(BARE, (m) => {
        const raw = trimUrl(m[0])
        check({ start: m.index, end: m.index + raw.length, url: `https://${raw}`, explicit: false })
      })
      each(IPV4, (m) => {
        const raw = trimUrl(m[0])
        if (
          raw
            .split(/[:/]/)[0]
            ?.split('.')
            .every((n) => Number(n) <= 255)
        )
          check({ start: m.index, end: m.index + raw.length, url: `http://${raw}`, explicit: false })
      })
    }
    return findings.sort((a, b) => a.start - b.start)
  })
}

function commandTarget(target: CommandTarget): Target {
  const explicit =
    target.url !== undefined &&
    /^[a-z][a-z0-9+.-]*:\/\//i.test(target.url) &&
    !/^(?:ssh|http):\/\//.test(target.url)
  return {
    start: target.start,
    end: target.end,
    url: target.url ?? '',
    explicit,
    ...(target.unresolved ? { unresolved: target.unresolved } : {}),
  }
}

/** The `egress` detector: URLs to hosts outside an allow list, and disguised hosts. */
export const egressDetector: Detector<EgressOptions> = {
  name: 'egress',
  summary:
    'URLs and network-command targets outside an allow list; IP literals, internal, userinfo and look-alike hosts',
  options: optionsSchema,
  target: 'all',
  redacts: true,
  prepare: prepareEgress,
}
