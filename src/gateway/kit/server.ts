// The HTTP server every Fastify gateway (`warden llm`, `warden a2a`) stands on: the front
// door (the request target pinned to a plain path; Host, Origin, Sec-Fetch-Site, no token in
// the URL, JSON bodies; browser navigations refused), then the limits in flight
// (a refused request takes no place), raw bodies bounded in size, one error handler, and
// `/healthz` and `/metrics`. Each answer Warden writes is in the protocol's own error shape.

import type { IncomingMessage, ServerResponse } from 'node:http'
import Fastify, { type FastifyInstance } from 'fastify'
import { errorMessage } from '../../core/index.js'
import {
  answeredRefusal,
  type InFlightLimiter,
  inFlightLimiterFor,
  limitInFlight,
} from '../../inflight/index.js'
import { type DoorRefusal, doorRefusalHeaders, FrontDoor, gatewayRefusal } from '../../net/index.js'
import type { RequestAuthenticator } from './caller.js'
import { discardBody, discardBound } from './drain.js'
import { type GatewayLane, installLane, laneFailure } from './lane.js'
import { navigationRefusal, targetRefusal } from './origin.js'

/** An error Warden answers itself, before the protocol sees the request. */
export interface GatewayErrorInfo {
  status: number
  code: string
  message: string
}

/** How to build a gateway's server. */
export interface GatewayServerOptions {
  /** The settings section, e.g. `llm`, `a2a` (named in messages). */
  section: string
  limits: { maxBodyBytes: number; maxInFlight?: number; maxInFlightBytes?: number }
  /** Default: from `limits`, else the machine's. */
  inFlight?: InFlightLimiter
  /** `server.allowedHosts`: Host names accepted besides the loopback names. */
  allowedHosts?: readonly string[]
  /** With token auth: verifies callers (a token in the URL is then refused at the door). */
  authenticate?: RequestAuthenticator
  /** Served on GET /metrics when given (with token auth, to a verified caller only). */
  metrics?: { render(): Promise<string>; contentType: string }
  /** The body of a refusal at the door (or of /metrics), in the protocol's shape. */
  doorBody(url: string, refusal: DoorRefusal): string | object
  /** The body of an error the server answers (413, a parse failure, a crash), in the protocol's shape. */
  errorBody(url: string, error: GatewayErrorInfo): string | object
  log(line: string): void
  /** The protocol's fast lane (its calls taken ahead of Fastify, behind the same door and limits). */
  lane?: GatewayLane
}

/** A gateway's server, before it listens. */
export interface GatewayServer {
  /** Where the protocol adds its routes. */
  app: FastifyInstance
  /**
   * Listens and binds the door's Host rule to the address.
   * @throws Error when the address cannot be listened on.
   */
  listen(host: string | undefined, port: number | undefined): Promise<URL>
}

/** Builds the server: door, target pinning, navigation refusal, limits, error handler, health, metrics. */
export function gatewayServer(options: GatewayServerOptions): GatewayServer {
  const { limits, log } = options
  const app: FastifyInstance = Fastify({
    logger: false,
    bodyLimit: limits.maxBodyBytes,
    forceCloseConnections: true,
  })
  const door = new FrontDoor({
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    allowedHostsSetting: 'server.allowedHosts (--allowed-host)',
    queryToken: { refuse: options.authenticate !== undefined },
  })
  app.addHook('onRequest', (request, reply, done) => {
    const refusal =
      targetRefusal(request.raw.url ?? '') ??
      gatewayRefusal(door, request.method, request.url, request.headers) ??
      navigationRefusal(request.headers)
    if (refusal === undefined) return done()
    if (refusal.status === 400) reply.header('connection', 'close')
    reply
      .code(refusal.status)
      .headers(doorRefusalHeaders(refusal))
      .send(options.doorBody(request.url, refusal))
  })
  const inFlight =
    options.inFlight ??
    inFlightLimiterFor(limits, options.section, {
      bytes: limits.maxBodyBytes,
      setting: `${options.section}.maxBodyBytes`,
    })
  limitInFlight(app, inFlight)
  if (options.lane) {
    const fail = (req: IncomingMessage, res: ServerResponse, error: unknown) => {
      log(laneFailure(req, error))
      if (res.headersSent) return void res.destroy()
      const info = { status: 500, code: 'invalid_request', message: 'the gateway failed' }
      const body = options.errorBody(req.url ?? '', info)
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end(typeof body === 'string' ? body : JSON.stringify(body))
    }
    installLane(app, options.lane, { door, limiter: inFlight, maxBodyBytes: limits.maxBodyBytes, fail })
  }
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
  app.setErrorHandler(async (error, request, reply) => {
    if (answeredRefusal(error, reply)) return reply
    const status = (error as { statusCode?: number }).statusCode ?? 500
    const message =
      status === 413
        ? `the body is over the limit of ${limits.maxBodyBytes} bytes (${options.section}.maxBodyBytes)`
        : status < 500
          ? errorMessage(error)
          : 'the gateway failed'
    if (status >= 500) log(`${request.method} ${request.url}: ${errorMessage(error)}`)
    // The client is still sending: read its upload (bounded) so it sees this answer.
    if (status === 413) await discardBody(request.raw, discardBound(limits.maxBodyBytes))
    const code = status === 413 ? 'too_large' : 'invalid_request'
    return reply.code(status).send(options.errorBody(request.url, { status, code, message }))
  })
  app.get('/healthz', async () => ({ status: 'ok' }))
  if (options.metrics) {
    const metrics = options.metrics
    const authenticate = options.authenticate
    app.get('/metrics', async (request, reply) => {
      // Under server.auth: token, metrics need a token too (any role).
      const verdict = authenticate ? await authenticate(request.raw) : undefined
      if (verdict && 'error' in verdict) {
        const refusal: DoorRefusal = { status: 401, field: 'authorization', message: verdict.error }
        return reply
          .code(401)
          .headers(doorRefusalHeaders(refusal))
          .send(options.doorBody(request.url, refusal))
      }
      return reply.header('content-type', metrics.contentType).send(await metrics.render())
    })
  }
  return {
    app,
    async listen(host = '127.0.0.1', port = 0) {
      await app.listen({ port, host })
      const address = app.server.address()
      const bound = typeof address === 'object' && address ? address.port : 0
      door.bind(host, bound)
      const shown = host.includes(':') ? `[${host}]` : host
      return new URL(`http://${shown}:${bound}/`)
    },
  }
}
