// The front door of every Warden HTTP listener (`warden serve`, `warden a2a`, `warden mcp
// --upstream`): refuses what a web page the user visits could send to a Warden it can
// reach — a request from a foreign `Origin` or marked `Sec-Fetch-Site: cross-site`, a `Host`
// that is not one of the listener's own names (DNS rebinding), a token in the query string —
// and, per route, a body that is not declared `application/json`. Plain functions over the
// request line and headers, precomputed sets, no regular expression per request.

import type { IncomingHttpHeaders, ServerResponse } from 'node:http'

/** Why a request is refused at the door: the HTTP status, the header at fault and a message. */
export interface DoorRefusal {
  status: 400 | 401 | 403 | 415 | 421
  /** The header (or part of the URL) that was wrong, e.g. `origin`, `host`, `content-type`. */
  field: string
  message: string
}

/** Settings of a {@link FrontDoor}. */
export interface FrontDoorOptions {
  /** `server.allowedHosts`: host names accepted besides the loopback names. */
  allowedHosts?: readonly string[]
  /** Where the setting is named in messages. Default `server.allowedHosts`. */
  allowedHostsSetting?: string
  /** Refuse a `token` query parameter (with token auth), except on these paths. */
  queryToken?: { refuse: boolean; exceptPaths?: readonly string[] }
}

/** The names a loopback listener answers to, whatever its port. */
const LOOPBACK_NAMES: readonly string[] = ['127.0.0.1', 'localhost', '[::1]']

/** True for an address only this machine can reach (`127.x.y.z`, `::1`, `localhost`). */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase()
  if (bare === 'localhost' || bare === '::1' || bare === '::ffff:127.0.0.1') return true
  const parts = bare.split('.')
  return parts.length === 4 && parts[0] === '127' && parts.every((p) => /^\d{1,3}$/.test(p))
}

/** The host name of a `Host` value (or of an Origin's authority), lower case, without the port. */
export function hostName(host: string): string {
  let name = host
  if (name.startsWith('[')) {
    const end = name.indexOf(']')
    name = end > 0 ? name.slice(0, end + 1) : name
  } else {
    const colon = name.lastIndexOf(':')
    if (colon >= 0) name = name.slice(0, colon)
  }
  name = name.toLowerCase()
  return name.endsWith('.') ? name.slice(0, -1) : name
}

/** An address as a Host value names it (`::1` → `[::1]`). */
function asHostName(address: string): string {
  const lower = address.toLowerCase()
  return lower.includes(':') && !lower.startsWith('[') ? `[${lower}]` : lower
}

/** Checks the request line and headers of every request a listener receives. */
export class FrontDoor {
  private readonly allowedNames: ReadonlySet<string>
  private readonly extraNames: readonly string[]
  private readonly setting: string
  private readonly refuseQueryToken: boolean
  private readonly tokenPaths: ReadonlySet<string>
  /** Names accepted as `Host`; undefined when any Host is (not loopback, no allowedHosts). */
  private hosts: ReadonlySet<string> | undefined
  /** Host values accepted as they are sent (with the port), for the common case. */
  private exactHosts: ReadonlySet<string> = new Set()
  private bound = false
  private loopback = true

  constructor(options: FrontDoorOptions = {}) {
    this.extraNames = (options.allowedHosts ?? []).map((name) => hostName(name))
    this.allowedNames = new Set(this.extraNames)
    this.setting = options.allowedHostsSetting ?? 'server.allowedHosts'
    this.refuseQueryToken = options.queryToken?.refuse === true
    this.tokenPaths = new Set(options.queryToken?.exceptPaths ?? [])
    this.hosts = new Set([...LOOPBACK_NAMES, ...this.extraNames])
  }

  /** True unless bound to an address other machines can reach. */
  isLoopback(): boolean {
    return this.loopback
  }

  /** True once {@link bind} was called. */
  isBound(): boolean {
    return this.bound
  }

  /**
   * Sets the Host rule from the address the listener is bound to: a loopback address
   * accepts only the loopback names and `allowedHosts`; any other address accepts every
   * Host unless `allowedHosts` is set, then those, the loopback names and the address itself.
   */
  bind(address: string, port: number): void {
    this.bound = true
    this.loopback = isLoopbackAddress(address)
    const names = new Set([...LOOPBACK_NAMES, ...this.extraNames])
    if (!this.loopback) {
      if (this.extraNames.length === 0) {
        this.hosts = undefined
        this.exactHosts = new Set()
        return
      }
      if (address !== '0.0.0.0' && address !== '::') names.add(asHostName(address))
    }
    this.hosts = names
    this.exactHosts = new Set([...names].flatMap((name) => [name, `${name}:${port}`]))
  }

  /**
   * The refusal for a request, or undefined when it may go on.
   * @param method the HTTP method
   * @param url the request target (path and query)
   */
  check(method: string, url: string, headers: IncomingHttpHeaders): DoorRefusal | undefined {
    const host = headers.host
    if (this.hosts !== undefined && (host === undefined || !this.exactHosts.has(host))) {
      const refusal = this.checkHost(host)
      if (refusal) return refusal
    }
    const origin = headers.origin
    if (origin !== undefined && !this.sameOrigin(origin, host)) {
      return {
        status: 403,
        field: 'origin',
        message: `requests from the web page at Origin "${clip(origin)}" are refused: only the server's own origin and hosts in ${this.setting} may call it`,
      }
    }
    if (headers['sec-fetch-site'] === 'cross-site' && !isNavigation(method, headers)) {
      return {
        status: 403,
        field: 'sec-fetch-site',
        message:
          'cross-site requests are refused (Sec-Fetch-Site: cross-site): a web page on another site may not call Warden',
      }
    }
    if (this.refuseQueryToken) {
      const query = url.indexOf('?')
      if (query >= 0 && hasTokenParameter(url, query) && !this.tokenPaths.has(url.slice(0, query))) {
        return {
          status: 401,
          field: 'token',
          message:
            'a token in the URL is refused (URLs end up in proxy and access logs); send it as "Authorization: Bearer <token>"',
        }
      }
    }
    return undefined
  }

  private checkHost(host: string | undefined): DoorRefusal | undefined {
    if (host === undefined || host === '') {
      return { status: 421, field: 'host', message: 'the request has no Host header' }
    }
    if (this.hosts?.has(hostName(host))) return undefined
    return {
      status: 421,
      field: 'host',
      message: `the Host "${clip(host)}" is not a name of this server (a DNS-rebinding guard); add it to ${this.setting} if clients really reach Warden under that name`,
    }
  }

  /** An Origin is the server's own when it names the same authority as Host, or an allowed host. */
  private sameOrigin(origin: string, host: string | undefined): boolean {
    const authority = origin.startsWith('http://')
      ? origin.slice(7)
      : origin.startsWith('https://')
        ? origin.slice(8)
        : undefined
    if (authority === undefined) return false
    if (host !== undefined && authority === host) return true
    return this.allowedNames.has(hostName(authority))
  }
}

/** A top-level navigation (a link followed, a bookmark): the page cannot read the answer. */
function isNavigation(method: string, headers: IncomingHttpHeaders): boolean {
  return (method === 'GET' || method === 'HEAD') && headers['sec-fetch-mode'] === 'navigate'
}

function hasTokenParameter(url: string, query: number): boolean {
  if (!url.includes('token', query)) return false
  return new URLSearchParams(url.slice(query + 1)).has('token')
}

function clip(value: string): string {
  return value.length > 100 ? `${value.slice(0, 100)}…` : value
}

/**
 * Refuses a body not declared `application/json` (a charset parameter is fine): a web page
 * can send `text/plain` or a form without asking first, never JSON.
 */
export function jsonBodyRefusal(headers: IncomingHttpHeaders): DoorRefusal | undefined {
  const type = headers['content-type']
  if (type === 'application/json' || type === 'application/json; charset=utf-8') return undefined
  if (type !== undefined) {
    const semicolon = type.indexOf(';')
    const media = (semicolon >= 0 ? type.slice(0, semicolon) : type).trim().toLowerCase()
    if (media === 'application/json') return undefined
  }
  return {
    status: 415,
    field: 'content-type',
    message: `the body must be sent as "content-type: application/json" (got ${type === undefined ? 'no content-type' : `"${clip(type)}"`})`,
  }
}

/** True when a request says it carries a body (a length above 0, or chunks). */
function carriesBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length']
  return (length !== undefined && length !== '0') || headers['transfer-encoding'] !== undefined
}

/**
 * The door's refusal for a gateway request, or undefined: the {@link FrontDoor} checks,
 * then a JSON body on every POST that carries one.
 */
export function gatewayRefusal(
  door: FrontDoor,
  method: string,
  url: string,
  headers: IncomingHttpHeaders,
): DoorRefusal | undefined {
  const refusal = door.check(method, url, headers)
  if (refusal !== undefined || method !== 'POST' || !carriesBody(headers)) return refusal
  return jsonBodyRefusal(headers)
}

/** The body of a refusal: a JSON-RPC error naming the header. */
export function doorRefusalBody(refusal: DoorRefusal): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: { code: -32600, message: refusal.message, data: { field: refusal.field } },
  })
}

/** The headers of a refusal (a 401 asks for a bearer token). */
export function doorRefusalHeaders(refusal: DoorRefusal): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (refusal.status === 401) headers['www-authenticate'] = 'Bearer'
  return headers
}

/** Answers a refusal on a plain Node response. */
export function writeDoorRefusal(res: ServerResponse, refusal: DoorRefusal): void {
  res.writeHead(refusal.status, doorRefusalHeaders(refusal)).end(doorRefusalBody(refusal))
}
