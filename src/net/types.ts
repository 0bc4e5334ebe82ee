// The contract of the one outbound HTTP client every network-facing part of Warden uses
// (http and guardian handlers, the LLM judge, Starlark http.*, agent.json webhooks).

/** One outbound request. */
export interface OutboundRequest {
  url: string
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD'
  headers?: Record<string, string>
  body?: string | Uint8Array
  /** Total time for the request including redirects; defaults to the client's. */
  timeoutMs?: number
  signal?: AbortSignal
  /**
   * Used instead of `signal` when given: registers a listener told when the caller gives up,
   * and returns a function that removes it (no AbortSignal needs to exist).
   */
  onAbort?: (listener: (reason: unknown) => void) => () => void
  /** Largest response body accepted; defaults to the client's (1 MiB). */
  maxResponseBytes?: number
}

/** A response, fully read (bounded by the size cap). */
export interface OutboundResponse {
  status: number
  headers: Record<string, string>
  body: Uint8Array
  /** The URL finally answered (after permitted redirects). */
  url: string
  text(): string
  /** Parses the body as JSON; throws on invalid JSON. */
  json(): unknown
}

/** Why an outbound request failed. */
export type OutboundErrorCode =
  | 'invalid-url'
  | 'blocked-address'
  | 'dns'
  | 'connect'
  | 'timeout'
  | 'too-large'
  | 'redirect'
  | 'aborted'
  | 'invalid-request'

/** An outbound request that failed, with a code and a message saying what to change. */
export class OutboundError extends Error {
  override readonly name = 'OutboundError'
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
  ) {
    super(message)
  }
}

/** One address a host name resolved to. */
export interface ResolvedAddress {
  address: string
  family: 4 | 6
}

/** Resolves a host name to every address it has (injectable, so tests stay offline). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>

/** Settings of the outbound client (`network:` in warden.yaml). */
export interface OutboundClientOptions {
  /** CIDR ranges, addresses, host names or `*.suffix` names allowed although special-purpose. */
  allow?: readonly string[]
  /** Follow redirects: false (default), true (up to 5 hops) or the number of hops. */
  followRedirects?: boolean | number
  /** Largest response body accepted, in bytes (default 1 MiB). */
  maxResponseBytes?: number
  /** Default total time per request, in ms (default 10 000). */
  timeoutMs?: number
  /** How host names are resolved (default: the system resolver, every address). */
  resolver?: Resolver
  /** Accept URLs carrying user:password (default false). */
  allowCredentials?: boolean
}

/** The client: SSRF-checked, address-pinned, size- and time-bounded. */
export interface OutboundClient {
  request(request: OutboundRequest): Promise<OutboundResponse>
  close(): Promise<void>
}
