// The HTTP server: `POST /aos` and `POST /acs` (the Guardians) on the data plane, plain
// `node:http` in front of a Fastify app that serves `GET /healthz` and what other parts mount
// (metrics, the management WebSocket, the UI) through `plugins`. Both share one listener,
// one front door and one set of in-flight limits. Bodies are read raw so that bad UTF-8, bad
// JSON, deep nesting and bodies over the limit all become JSON-RPC errors rather than HTTP
// failures.

import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { Engine } from '../core/index.js'
import { InFlightLimiter, limitInFlight } from '../inflight/index.js'
import {
  AOS_DEFAULTS,
  type AosReply,
  type AosService,
  createAosService,
  errorResponse,
  RPC_ERRORS,
  rpcError,
} from '../protocols/index.js'
import { type AcsRouteOptions, acsRoute } from './acs.js'
import { createDataPlane, type DataPlane, type DataPlaneRoute } from './data-plane.js'
import { type Authenticate, installFrontDoor } from './front-door.js'
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

/**
 * Creates the server (not listening yet; see {@link listen}): the data plane's routes
 * answered first, every other request by the Fastify app.
 * @returns the app, ready after `await app.ready()`.
 */
export async function createServer(options: ServerOptions): Promise<FastifyInstance> {
  const bodyLimit = options.bodyLimitBytes ?? SERVER_DEFAULTS.bodyLimitBytes
  const version = options.version ?? SERVER_DEFAULTS.version
  let dataPlane: DataPlane | undefined
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    ...serverTimeouts(options.timeouts),
    serverFactory: (fastifyHandler, settings) =>
      dataPlaneServer(fastifyHandler, settings, (req, res) => dataPlane?.(req, res) === true),
  })
  const door = installFrontDoor(app, {
    allowedHosts: options.allowedHosts,
    tokenAuth: options.authenticate !== undefined,
  })
  const limiter = options.inFlight ?? new InFlightLimiter()
  limitInFlight(app, limiter)
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
  const shuttingDown = JSON.stringify(
    errorResponse(
      null,
      rpcError(
        RPC_ERRORS.internal,
        'server',
        'the Guardian is shutting down; the request was not evaluated, send it again',
      ),
    ),
  )
  const acs = acsRoute({
    engine: options.engine,
    version,
    ...options.acs,
    ...(options.maxBatch ? { maxBatch: options.maxBatch } : {}),
    ...(options.maxDepth ? { maxDepth: options.maxDepth } : {}),
    ...(options.onInternalError ? { onInternalError: options.onInternalError } : {}),
  })
  dataPlane = createDataPlane({
    routes: new Map([
      ['/aos', aosRoute(service)],
      ['/acs', acs.route],
    ]),
    door,
    limiter,
    bodyLimitBytes: bodyLimit,
    authenticate: options.authenticate,
    closing: () => closing,
    shuttingDownBody: shuttingDown,
    onInternalError: options.onInternalError,
  })

  app.get('/healthz', async (_request, reply) => {
    if (closing) return reply.code(503).header('connection', 'close').send({ status: 'closing', version })
    return { status: 'ok', version }
  })

  for (const plugin of options.plugins ?? []) await plugin(app)
  await app.ready()
  return app
}

/** `POST /aos`: the AOS service over a raw body, answered synchronously when it can be. */
function aosRoute(service: AosService): DataPlaneRoute {
  const text = (answer: AosReply): string | undefined =>
    answer === undefined ? undefined : JSON.stringify(answer)
  return (body, call) => {
    const answer = service.answerBody(
      body,
      call.tenant === undefined ? { onCallerGone: call.onCallerGone } : call,
    )
    return answer instanceof Promise ? answer.then(text) : text(answer)
  }
}

/**
 * The HTTP server the app listens with: the data plane takes its requests first, the rest
 * go to Fastify. The timeouts are Fastify's own settings, applied as Fastify would.
 */
function dataPlaneServer(
  fastifyHandler: (req: IncomingMessage, res: ServerResponse) => void,
  settings: FastifyServerOptions,
  dataPlane: (req: IncomingMessage, res: ServerResponse) => boolean,
) {
  const server = createHttpServer((req, res) => {
    if (!dataPlane(req, res)) fastifyHandler(req, res)
  })
  if (settings.keepAliveTimeout !== undefined) server.keepAliveTimeout = settings.keepAliveTimeout
  if (settings.requestTimeout !== undefined) server.requestTimeout = settings.requestTimeout
  if (settings.connectionTimeout !== undefined) server.setTimeout(settings.connectionTimeout)
  return server
}
