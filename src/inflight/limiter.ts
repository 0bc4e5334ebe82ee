// Requests and body bytes in flight: a server admits a request only while both stay under
// their limits, counting a body's bytes up front when its Content-Length says how many and
// as they arrive when it does not. A refused request is answered at once (HTTP 503 with
// Retry-After and a JSON-RPC error naming the limit), so memory stays bounded however many
// callers arrive together. Shared by `warden serve`, `warden a2a` and the MCP HTTP gateway.

import { availableParallelism, totalmem } from 'node:os'

/** The limits of one server; the names are as in warden.yaml, e.g. `server.maxInFlight`. */
export interface InFlightLimits {
  /** Most requests with a body (POST, PUT, PATCH, DELETE) being read or answered at once. */
  maxInFlight: number
  /** Most body bytes those requests may hold together, counted as they are read. */
  maxInFlightBytes: number
}

/** Which limit refused a request. */
export type InFlightLimit = keyof InFlightLimits

/** Why a request was refused, as sent to the caller. */
export interface InFlightRefusal {
  limit: InFlightLimit
  /** The setting that names the limit, e.g. `server.maxInFlightBytes`. */
  setting: string
  message: string
  /** The Retry-After header's value. */
  retryAfterSeconds: number
}

/** An admitted request's hold on the budget; release it once the answer is sent. */
export interface InFlightTicket {
  /** Counts bytes just read; a refusal when they take the total past the bytes limit. */
  add(bytes: number): InFlightRefusal | undefined
  /** Gives the request's place and bytes back (calling it again does nothing). */
  release(): void
}

/** What the machine offers, for {@link machineInFlightLimits}. */
export interface MachineShape {
  /** Memory this process may use: the smaller of the host's and the cgroup's limit. */
  memoryBytes: number
  cpus: number
}

const MIB = 1024 * 1024
/** Seconds a refused caller is told to wait (Retry-After). */
export const RETRY_AFTER_SECONDS = 1

/** The memory and CPU count of this machine (a container's memory limit when lower). */
export function machineShape(): MachineShape {
  const constrained = (process as { constrainedMemory?: () => number | undefined }).constrainedMemory?.()
  const host = totalmem()
  const memoryBytes = constrained && constrained > 0 && constrained < host ? constrained : host
  return { memoryBytes, cpus: availableParallelism() }
}

/**
 * The default limits for a machine: 128 requests per CPU (256 to 4096), and a 1024th of its
 * memory for body bytes (8 to 32 MiB). A body takes some five times its size while it is
 * read, parsed, answered and recorded, so 32 MiB in flight keeps a server's peak within
 * some 300 MB of its idle size.
 */
export function machineInFlightLimits(machine: MachineShape = machineShape()): InFlightLimits {
  const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, Math.floor(value)))
  return {
    maxInFlight: clamp(machine.cpus * 128, 256, 4096),
    maxInFlightBytes: clamp(machine.memoryBytes / 1024, 8 * MIB, 32 * MIB),
  }
}

/** Counts requests and bytes in flight against {@link InFlightLimits}. */
export class InFlightLimiter {
  readonly limits: InFlightLimits
  private readonly names: Record<InFlightLimit, string>
  private readonly listeners: ((refusal: InFlightRefusal) => void)[] = []
  private requestCount = 0
  private byteCount = 0
  private heldElsewhere: { what: string; bytes: () => number } | undefined
  private through = 0
  private lastActivity = 0

  /**
   * @param limits the limits (missing ones from {@link machineInFlightLimits})
   * @param settings how refusals name the limits: the settings' section (`server` gives
   * `server.maxInFlight`), or a name for each (e.g. command-line flags)
   * @throws RangeError when a limit is not a positive whole number
   */
  constructor(
    limits: Partial<InFlightLimits> = {},
    settings: string | Record<InFlightLimit, string> = 'server',
  ) {
    this.names =
      typeof settings === 'string'
        ? { maxInFlight: `${settings}.maxInFlight`, maxInFlightBytes: `${settings}.maxInFlightBytes` }
        : settings
    this.limits = { ...machineInFlightLimits(), ...definedOnly(limits) }
    for (const name of ['maxInFlight', 'maxInFlightBytes'] as const) {
      const value = this.limits[name]
      if (!Number.isSafeInteger(value) || value < 1)
        throw new RangeError(`${this.names[name]} must be a positive whole number (got ${value})`)
    }
  }

  /** The setting that sets `limit`, as refusals name it. */
  settingOf(limit: InFlightLimit): string {
    return this.names[limit]
  }

  /** Requests in flight now. */
  requests(): number {
    return this.requestCount
  }

  /** Body bytes in flight now (declared lengths and bytes read). */
  bytes(): number {
    return this.byteCount
  }

  /** Bytes held elsewhere now (see {@link holdAlso}). */
  bytesElsewhere(): number {
    return this.heldElsewhere?.bytes() ?? 0
  }

  /** Body bytes of every request released so far. */
  bytesThrough(): number {
    return this.through
  }

  /** When a request was last admitted or released (ms since the epoch; 0: never). */
  lastActivityAt(): number {
    return this.lastActivity
  }

  /**
   * Counts bytes held after the answer on the requests' behalf (e.g. audit records not yet
   * written) toward the bytes limit, so that a burst answered faster than it is recorded
   * is still bounded.
   * @param what names the holder in refusals, e.g. "audit records not yet written"
   */
  holdAlso(what: string, bytes: () => number): void {
    this.heldElsewhere = { what, bytes }
  }

  /** Calls `listener` with every refusal (e.g. to count them on /metrics). */
  onRefused(listener: (refusal: InFlightRefusal) => void): void {
    this.listeners.push(listener)
  }

  /**
   * Admits a request whose body is `declaredBytes` long (undefined: not known up front).
   * @returns a ticket to release once answered, or the refusal to send.
   */
  admit(declaredBytes: number | undefined): InFlightTicket | InFlightRefusal {
    if (this.requestCount >= this.limits.maxInFlight) {
      return this.refuse(
        'maxInFlight',
        `${this.requestCount} requests are in flight, the most this server takes at once`,
      )
    }
    const declared = declaredBytes ?? 0
    const elsewhere = this.bytesElsewhere()
    if (this.byteCount + elsewhere + declared > this.limits.maxInFlightBytes) {
      const also = elsewhere > 0 ? ` (${elsewhere} of them in ${this.heldElsewhere?.what})` : ''
      return this.refuse(
        'maxInFlightBytes',
        `a body of ${declared} bytes would take the ${this.byteCount + elsewhere} bytes in flight${also} past ${this.limits.maxInFlightBytes}`,
      )
    }
    this.requestCount++
    this.byteCount += declared
    this.lastActivity = Date.now()
    return new Ticket(this, declared)
  }

  /** Streamed bytes past what a ticket holds: taken, or the refusal (see {@link Ticket}). */
  takeMore(more: number, seen: number): InFlightRefusal | undefined {
    if (this.byteCount + this.bytesElsewhere() + more > this.limits.maxInFlightBytes) {
      return this.refuse(
        'maxInFlightBytes',
        `a body streamed past ${seen} bytes would take the bytes in flight past ${this.limits.maxInFlightBytes}`,
      )
    }
    this.byteCount += more
    return undefined
  }

  /** Gives back one request's place and its held bytes (see {@link Ticket}). */
  giveBack(held: number): void {
    this.requestCount--
    this.byteCount -= held
    this.through += held
    this.lastActivity = Date.now()
  }

  private refuse(limit: InFlightLimit, why: string): InFlightRefusal {
    const setting = this.names[limit]
    const refusal: InFlightRefusal = {
      limit,
      setting,
      message: `the server is busy: ${why} (${setting}); send the request again after ${RETRY_AFTER_SECONDS} s`,
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    }
    for (const listener of this.listeners) {
      try {
        listener(refusal)
      } catch {
        // a failing listener must not change the answer
      }
    }
    return refusal
  }
}

/**
 * One admitted request's hold: a class rather than closures, since one is made per request
 * on the hot path; `release` is bound once so it can be a listener.
 */
class Ticket implements InFlightTicket {
  private held: number
  private seen = 0
  private released = false
  readonly release: () => void

  constructor(
    private readonly limiter: InFlightLimiter,
    declared: number,
  ) {
    this.held = declared
    this.release = () => {
      if (this.released) return
      this.released = true
      this.limiter.giveBack(this.held)
    }
  }

  add(bytes: number): InFlightRefusal | undefined {
    if (this.released) return undefined
    this.seen += bytes
    if (this.seen <= this.held) return undefined
    const refusal = this.limiter.takeMore(this.seen - this.held, this.seen)
    if (refusal === undefined) this.held = this.seen
    return refusal
  }
}

/** Whether {@link InFlightLimiter.admit} refused. */
export function isRefusal(admitted: InFlightTicket | InFlightRefusal): admitted is InFlightRefusal {
  return 'limit' in admitted
}

/** The JSON-RPC error body of a refusal (id null: the request was not read). */
export function refusalBody(refusal: InFlightRefusal): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32000,
      message: refusal.message,
      data: { field: refusal.setting, reason: refusal.message, limit: refusal.setting },
    },
  })
}

/** The headers of a refusal's HTTP 503. */
export function refusalHeaders(refusal: InFlightRefusal): Record<string, string> {
  return {
    'content-type': 'application/json; charset=utf-8',
    'retry-after': String(refusal.retryAfterSeconds),
    'cache-control': 'no-store',
  }
}

/** A Content-Length header as a number of bytes, undefined when absent or malformed. */
export function declaredLength(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header
  if (value === undefined || !/^\d{1,15}$/.test(value)) return undefined
  return Number(value)
}

function definedOnly(limits: Partial<InFlightLimits>): Partial<InFlightLimits> {
  const out: Partial<InFlightLimits> = {}
  if (limits.maxInFlight !== undefined) out.maxInFlight = limits.maxInFlight
  if (limits.maxInFlightBytes !== undefined) out.maxInFlightBytes = limits.maxInFlightBytes
  return out
}
