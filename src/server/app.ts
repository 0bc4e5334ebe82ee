// The HTTP server: a Fastify app with `POST /aos` (the AOS Guardian), `GET /healthz`, and
// room for what other parts mount (metrics, the management WebSocket, the UI) through
// `plugins`. Bodies are read raw so that bad UTF-8, bad JSON, deep nesting and bodies over
// the limit all become JSON-RPC errors rather than HTTP failures.

import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify'
import type { Engine } from '../core/index.js'
import { InFlightLimiter, limitInFlight } from '../inflight/index.js'
import {
  AOS_DEFAULTS,
  type AosReply,
  createAosService,
  errorResponse,
  RPC_ERRORS,
  rpcError,
} from '../protocols/index.js'
import { type AcsRouteOptions, mountAcs } from './acs.js'
import { type Authenticate, decisionTenant, installFrontDoor, refusedBodyType } from './front-door.js'
import { callerGone, rawBody, rawRpcScope, refusedEncoding } from './rpc-scope.js'
import { serverTimeouts, type TimeoutSettings } from './timeouts.js'

/** Something that adds routes to the app (e.g. `/metrics`, `/ws`). */
export type ServerPlugin = (app: FastifyInstance) => void | Promise<void>

/** Settings of {@link createServer}; every one but the engine has a default. */
export interface ServerOptions {
  engine: Engine
  /** Largest request body, in bytes. Default 1 MiB. */
  bodyLimitBytes?: number
  /** Most requests in one JSON-RPC batch. Default 100. */
  maxBatch?: number
  /** Deepest JSON nesting accepted. Default 64. */
  maxDepth?: number
  /** Reported by `ping` and `/healthz`. */
  version?: string
  /** `POST /acs` settings (signing keys, ledger); the route is always mounted. */
  acs?: Pick<
    AcsRouteOptions,
    'settings' | 'ledger' | 'ledgerTimeoutMs' | 'onAnswerChanged' | 'approver' | 'ocsfEnabled'
  >
  /** Routes other parts of Warden add. */
  plugins?: ServerPlugin[]
  /** Fastify's logger setting. Default off. */
  logger?: FastifyServerOptions['logger']
  /** Told about unexpected failures while answering. */
  onInternalError?: (error: unknown) => void
  /** Limits on requests and body bytes in flight. Default: derived from the machine. */
  inFlight?: InFlightLimiter
  /** Idle and request timeouts, and the longest hold they must outlast. */
  timeouts?: TimeoutSettings
  /**
   * Checks the caller of `/aos` and `/acs` (`server.auth: token`): 401 for a bad token, 403
   * for a role that may not ask for decisions; a principal with a tenant pins the request's.
   */
  authenticate?: Authenticate
  /** `server.allowedHosts`: Host names accepted besides the loopback names. */
  allowedHosts?: readonly string[]
}

export const SERVER_DEFAULTS = { bodyLimitBytes: 1024 * 1024, version: '0.1.0' } as const

const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * Creates the Fastify app (not listening yet; see {@link listen}).
 * @returns the app, ready after `await app.ready()`.
 */
export async function createServer(options: ServerOptions): Promise<FastifyInstance> {
  const bodyLimit = options.bodyLimitBytes ?? SERVER_DEFAULTS.bodyLimitBytes
  const version = options.version ?? SERVER_DEFAULTS.version
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    ...serverTimeouts(options.timeouts),
  })
  installFrontDoor(app, { allowedHosts: options.allowedHosts, tokenAuth: options.authenticate !== undefined })
  limitInFlight(app, options.inFlight ?? new InFlightLimiter())
  const service = createAosService({
    engine: options.engine,
    version,
    maxBatch: options.maxBatch ?? AOS_DEFAULTS.maxBatch,
    maxDepth: options.maxDepth ?? AOS_DEFAULTS.maxDepth,
    ...(options.onInternalError ? { onInternalError: options.onInternalError } : {}),
  })

  // Once closing, answers end their keep-alive connection so that the server can close as
  // soon as the requests in flight are answered, and a request that still arrives on an
  // open connection gets a JSON-RPC error (HTTP 503) rather than Fastify's own 503 body.
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  const shuttingDown = errorResponse(
    null,
    rpcError(
      RPC_ERRORS.internal,
      'server',
      'the Guardian is shutting down; the request was not evaluated, send it again',
    ),
  )

  await app.register(async (scope) => {
    rawRpcScope(scope, { bodyLimitBytes: bodyLimit, onInternalError: options.onInternalError })
    // Checked as soon as the request line and headers are in, so that a request whose body
    // was still arriving when the shutdown began is answered, not refused.
    scope.addHook('onRequest', (_request, reply, done) => {
      if (!closing) return done()
      reply
        .code(503)
        .header('connection', 'close')
        .header('content-type', 'application/json; charset=utf-8')
        .send(JSON.stringify(shuttingDown))
    })
    /** Sends an answer: 204 for notifications only, else the JSON-RPC response. */
    const send = (reply: FastifyReply, answer: AosReply): void => {
      if (closing) reply.header('connection', 'close')
      if (answer === undefined) reply.code(204).send()
      else reply.code(200).header('content-type', JSON_TYPE).send(JSON.stringify(answer))
    }
    /** With `server.auth: token`: the caller is checked first, its token may pin the tenant. */
    const authenticated = async (
      request: FastifyRequest,
      reply: FastifyReply,
      authenticate: Authenticate,
      body: Buffer,
    ): Promise<FastifyReply> => {
      const caller = await decisionTenant(request, reply, authenticate)
      if (caller === undefined) return reply
      send(
        reply,
        await service.answerBody(
          body,
          caller.tenant === undefined
            ? { onCallerGone: callerGone(reply) }
            : { tenant: caller.tenant, onCallerGone: callerGone(reply) },
        ),
      )
      return reply
    }
    // Not async: when every hook answers synchronously, so does the route (no promise, no
    // extra tick); a pending answer is sent once it settles, a failure goes to the error
    // handler like a thrown one.
    scope.post('/aos', (request, reply) => {
      if (refusedEncoding(request, reply) || refusedBodyType(request, reply)) return
      const body = rawBody(request)
      if (options.authenticate) return authenticated(request, reply, options.authenticate, body)
      const tenant = request.headers['x-warden-tenant']
      const onCallerGone = callerGone(reply)
      const answer = service.answerBody(
        body,
        tenant === undefined ? { onCallerGone } : { tenant, onCallerGone },
      )
      if (answer instanceof Promise) {
        answer.then(
          (settled) => send(reply, settled),
          (error: unknown) => reply.send(error),
        )
      } else send(reply, answer)
    })
  })

  app.get('/healthz', async (_request, reply) => {
    if (closing) return reply.code(503).header('connection', 'close').send({ status: 'closing', version })
    return { status: 'ok', version }
  })

  await mountAcs(app, {
    engine: options.engine,
    bodyLimitBytes: bodyLimit,
    version,
    ...options.acs,
    ...(options.maxBatch ? { maxBatch: options.maxBatch } : {}),
    ...(options.maxDepth ? { maxDepth: options.maxDepth } : {}),
    ...(options.onInternalError ? { onInternalError: options.onInternalError } : {}),
    ...(options.authenticate ? { authenticate: options.authenticate } : {}),
  })
  for (const plugin of options.plugins ?? []) await plugin(app)
  await app.ready()
  return app
}
