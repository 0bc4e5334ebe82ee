// The in-flight limits on a Fastify app (`warden serve`, `warden a2a`): every request with
// a body is admitted or answered 503 as soon as its headers are in; a body sent without
// Content-Length is counted chunk by chunk as Fastify reads it. The hold is given back
// when the answer has gone out or the caller went away.

import { Transform, type TransformCallback } from 'node:stream'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import {
  declaredLength,
  type InFlightLimiter,
  type InFlightRefusal,
  type InFlightTicket,
  isRefusal,
  refusalBody,
  refusalHeaders,
} from './limiter.js'

/** Thrown from a body stream that went past the bytes limit; answer it with {@link sendRefusal}. */
export class InFlightRefusalError extends Error {
  override readonly name = 'InFlightRefusalError'
  readonly statusCode = 503
  constructor(readonly refusal: InFlightRefusal) {
    super(refusal.message)
  }
}

/** Methods that carry no body and are never limited (the UI, /metrics, /healthz, /ws). */
const BODILESS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Where an admitted request keeps its ticket (a property: cheaper than a WeakMap entry). */
const TICKET = Symbol('warden.inflight.ticket')
type Ticketed = FastifyRequest['raw'] & { [TICKET]?: InFlightTicket }

/** Bodies up to this size are under any route's body limit; only larger ones look it up. */
const SURELY_UNDER_LIMIT = 64 * 1024

/**
 * Puts the app's requests under `limiter`. Register it before the routes' plugins so that
 * its hooks run for every route.
 */
export function limitInFlight(app: FastifyInstance, limiter: InFlightLimiter): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (BODILESS.has(request.raw.method ?? 'GET')) return done()
    // A body declared over the route's own limit is refused 413 without being kept, so it
    // holds a place but no bytes.
    const declared = declaredLength(request.headers['content-length'])
    const over =
      declared !== undefined &&
      declared > SURELY_UNDER_LIMIT &&
      declared > (request.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? Number.POSITIVE_INFINITY)
    const admitted = limiter.admit(over ? 0 : declared)
    if (isRefusal(admitted)) {
      sendRefusal(reply, admitted)
      return
    }
    ;(request.raw as Ticketed)[TICKET] = admitted
    reply.raw.once('close', admitted.release)
    done()
  })
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const ticket = (request.raw as Ticketed)[TICKET]
    // With a Content-Length the whole body was counted on admission.
    if (!ticket || request.headers['content-length'] !== undefined) return done(null, payload)
    done(null, countedStream(payload, ticket))
  })
}

/**
 * Answers a refusal: HTTP 503, Retry-After, the JSON-RPC error naming the limit. A body
 * left half read closes the connection rather than leaving it stalled.
 */
export function sendRefusal(reply: FastifyReply, refusal: InFlightRefusal, closeConnection = false): void {
  reply.code(503).headers(refusalHeaders(refusal))
  if (closeConnection) reply.header('connection', 'close')
  reply.send(refusalBody(refusal))
}

/**
 * Answers `error` when it is an in-flight refusal (for a route's error handler).
 * @returns true when it was and has been answered.
 */
export function answeredRefusal(error: unknown, reply: FastifyReply): boolean {
  if (!(error instanceof InFlightRefusalError)) return false
  sendRefusal(reply, error.refusal, true)
  return true
}

/** Passes the body through, counting its bytes; fails once they go past the limit. */
function countedStream(source: NodeJS.ReadableStream, ticket: InFlightTicket): Transform {
  const counted = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      const refusal = ticket.add(chunk.length)
      if (refusal) callback(new InFlightRefusalError(refusal))
      else callback(null, chunk)
    },
  })
  source.on('error', (error) => counted.destroy(error))
  source.pipe(counted)
  return counted
}
