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

/** The client: SSRF-checked, address-pinned, size- and time-bounded. */
export interface OutboundClient {
  request(request: OutboundRequest): Promise<OutboundResponse>
  close(): Promise<void>
}
