// The data plane of `warden serve`: the decision endpoints (`POST /aos`, and whatever else is
// put in its route table) answered on plain `node:http`, in front of Fastify, which keeps
// every other route (the management plane, the UI, /metrics, /healthz). A decision request
// passes the same guarantees as on Fastify, in one pass over its line, headers and body:
// the front door (Host, Origin, Sec-Fetch-Site, a token in the URL, a JSON body, no
// compression), the shutdown, the in-flight limits, the body limit, then the caller's token
// and tenant; its body is read once, as a Buffer, and handed to the route. Every refusal and
// failure is a JSON-RPC error naming what was wrong; nothing here throws to Node.

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { OnCallerGone, Soon } from '../core/index.js'
import {
  declaredLength,
  type InFlightLimiter,
  type InFlightRefusal,
  type InFlightTicket,
  isRefusal,
  writeRefusal,
} from '../inflight/index.js'
import { type DoorRefusal, type FrontDoor, jsonBodyRefusal } from '../net/index.js'
import { errorResponse, RPC_ERRORS, rpcError } from '../protocols/aos/index.js'
import { type Authenticate, callerOf } from './front-door.js'

/** What a data-plane route gets besides the body: who asks, and how to learn they left. */
export interface DataPlaneCall {
  /** The tenant the request runs as (the token's, or `X-Warden-Tenant` as sent). */
  tenant: string | string[] | undefined
  onCallerGone: OnCallerGone
}

/**
 * A decision endpoint: answers a request's raw body (every check of the data plane passed)
 * with the JSON text to send (HTTP 200), or undefined for no content (HTTP 204). Answers
 * synchronously when it can; a throw or a rejection is answered HTTP 500 without details.
 */
export type DataPlaneRoute = (body: Buffer, call: DataPlaneCall) => Soon<string | undefined>

/** Settings of {@link createDataPlane}. */
export interface DataPlaneOptions {
  /** The routes, by path (e.g. `/aos`); only POST reaches them, anything else goes on. */
  routes: ReadonlyMap<string, DataPlaneRoute>
  door: FrontDoor
  limiter: InFlightLimiter
  bodyLimitBytes: number
  /** `server.auth: token`: checks the caller before the route runs. */
  authenticate?: Authenticate | undefined
  /** True once the server began to shut down. */
  closing: () => boolean
  /** The JSON-RPC text answered (HTTP 503) to a request that arrives while shutting down. */
  shuttingDownBody: string
  /** Told about failures of the server itself (answered HTTP 500). */
  onInternalError?: ((error: unknown) => void) | undefined
}

/** Answers a data-plane request, or hands it on (false) when it is not one. */
export type DataPlane = (req: IncomingMessage, res: ServerResponse) => boolean

const JSON_TYPE = 'application/json; charset=utf-8'

/** Creates the data plane: a function that takes the requests it serves and answers them. */
export function createDataPlane(options: DataPlaneOptions): DataPlane {
  const { routes, door, limiter, bodyLimitBytes, authenticate } = options
  const internalError = JSON.stringify(
    errorResponse(
      null,
      rpcError(RPC_ERRORS.internal, 'server', 'an internal error occurred; the request was not evaluated'),
    ),
  )

  /** Sends a JSON answer, closing the connection once the server is shutting down. */
  const send = (res: ServerResponse, status: number, text: string | undefined, close = false): void => {
    if (res.headersSent || res.destroyed) return
    const connection = close || options.closing() ? 'close' : undefined
    if (text === undefined) {
      res.writeHead(204, connection ? { connection } : undefined)
      res.end()
      return
    }
    res.writeHead(
      status,
      connection
        ? { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(text), connection }
        : { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(text) },
    )
    res.end(text)
  }
  const refuse = (res: ServerResponse, refusal: Refusal, close = false): void => {
    if (refusal.status === 401) res.setHeader('www-authenticate', 'Bearer')
    const rpc = rpcError(RPC_ERRORS.invalidRequest, refusal.field, refusal.message)
    send(res, refusal.status, JSON.stringify(errorResponse(null, rpc)), close)
  }
  const failed = (res: ServerResponse, error: unknown): void => {
    try {
      options.onInternalError?.(error)
    } catch {
      // a failing reporter must not lose the answer
    }
    send(res, 500, internalError)
  }

  /** Runs the route once the caller is known; answers whatever it says or throws. */
  const answer = (
    res: ServerResponse,
    route: DataPlaneRoute,
    body: Buffer,
    tenant: DataPlaneCall['tenant'],
  ) => {
    let reply: Soon<string | undefined>
    try {
      reply = route(body, { tenant, onCallerGone: callerGone(res) })
    } catch (error) {
      return failed(res, error)
    }
    if (reply instanceof Promise) {
      reply.then(
        (text) => send(res, 200, text),
        (error: unknown) => failed(res, error),
      )
    } else send(res, 200, reply)
  }

  /** With `server.auth: token`: the caller is checked, its token may pin the tenant. */
  const authenticated = (
    req: IncomingMessage,
    res: ServerResponse,
    route: DataPlaneRoute,
    body: Buffer,
    check: Authenticate,
  ): void => {
    callerOf(req.headers, check).then(
      (caller) => {
        if ('status' in caller) refuse(res, caller)
        else answer(res, route, body, caller.tenant)
      },
      (error: unknown) => failed(res, error),
    )
  }

  return (req, res) => {
    if (req.method !== 'POST') return false
    const url = req.url ?? '/'
    const query = url.indexOf('?')
    const route = routes.get(query < 0 ? url : url.slice(0, query))
    if (route === undefined) return false
    if (!door.isBound()) {
      const address = req.socket.localAddress
      if (address !== undefined) door.bind(address, req.socket.localPort ?? 0)
    }
    const headers = req.headers
    const refusal = door.check('POST', url, headers) ?? bodyRefusal(headers)
    if (refusal !== undefined) {
      refuse(res, refusal)
      return true
    }
    // Checked as soon as the request line and headers are in, so that a request whose body
    // was still arriving when the shutdown began is answered, not refused.
    if (options.closing()) {
      send(res, 503, options.shuttingDownBody, true)
      return true
    }
    const declared = declaredLength(headers['content-length'])
    const overLimit = declared !== undefined && declared > bodyLimitBytes
    // A body declared over the limit holds a place but no bytes: it is refused unread.
    const ticket = limiter.admit(overLimit ? 0 : declared)
    if (isRefusal(ticket)) {
      writeRefusal(res, ticket)
      return true
    }
    res.once('close', ticket.release)
    if (overLimit) {
      refuse(res, tooLarge(bodyLimitBytes), true)
      return true
    }
    readBody(req, ticket, bodyLimitBytes, declared !== undefined, (body) => {
      if (body instanceof Buffer) {
        if (authenticate) authenticated(req, res, route, body, authenticate)
        else answer(res, route, body, headers['x-warden-tenant'])
      } else if ('tooLarge' in body) refuse(res, tooLarge(bodyLimitBytes), true)
      else if ('refusal' in body) writeRefusal(res, body.refusal, true)
      // aborted: the caller is gone, nobody to answer
    })
    return true
  }
}

/** A refusal at the door, or of a body over the limit (413). */
type Refusal = DoorRefusal | { status: 413; field: 'body'; message: string }

/** The refusal of a body over the limit (the connection is closed: the rest is not read). */
function tooLarge(limit: number): Refusal {
  return { status: 413, field: 'body', message: `the body is over the limit of ${limit} bytes` }
}

/** A decision body must be declared JSON and sent uncompressed (415). */
function bodyRefusal(headers: IncomingMessage['headers']): DoorRefusal | undefined {
  const encoding = headers['content-encoding']
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
    return {
      status: 415,
      field: 'content-encoding',
      message: `content-encoding "${encoding.slice(0, 40)}" is not supported; send the body uncompressed`,
    }
  }
  return jsonBodyRefusal(headers)
}

/**
 * How a held request learns that its caller went away: a listener on the response's
 * `close`, called when the connection closed before the answer was written. Registered
 * only when a route asks for it (an approval is held).
 */
function callerGone(res: ServerResponse): OnCallerGone {
  return (listener) => {
    if (res.writableFinished) return
    if (res.destroyed) return listener()
    res.once('close', () => {
      if (!res.writableFinished) listener()
    })
  }
}

// Reading a decision request's body: once, as a Buffer, counting its bytes against the body
// limit and, when it came without a Content-Length, against the in-flight bytes limit as
// they arrive (a declared length was counted on admission).

/** Why a body was not read to its end. */
type BodyFault = { tooLarge: true } | { refusal: InFlightRefusal } | { aborted: true }

const EMPTY = Buffer.alloc(0)

/**
 * Reads `req`'s body and calls `done` once: with the body, or with why it stopped (the rest
 * of the body is then left unread).
 * @param counted true when the ticket already holds the body's declared length
 */
function readBody(
  req: IncomingMessage,
  ticket: InFlightTicket,
  maxBytes: number,
  counted: boolean,
  done: (body: Buffer | BodyFault) => void,
): void {
  let first: Buffer | undefined
  let more: Buffer[] | undefined
  let size = 0
  let over = false
  const stop = (fault: BodyFault) => {
    over = true
    first = undefined
    more = undefined
    req.off('data', onData)
    req.off('end', onEnd)
    done(fault)
  }
  const onData = (chunk: Buffer) => {
    size += chunk.length
    if (size > maxBytes) return stop({ tooLarge: true })
    if (!counted) {
      const refusal = ticket.add(chunk.length)
      if (refusal) return stop({ refusal })
    }
    if (first === undefined) first = chunk
    else if (more === undefined) more = [first, chunk]
    else more.push(chunk)
  }
  const onEnd = () => {
    if (over) return
    done(more ? Buffer.concat(more, size) : (first ?? EMPTY))
  }
  const onAborted = () => {
    if (!over) stop({ aborted: true })
  }
  req.on('data', onData)
  req.once('end', onEnd)
  // A caller that goes away mid-body: Node emits 'error' (ECONNRESET) on the request.
  req.once('error', onAborted)
}
