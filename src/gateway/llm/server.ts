// The model-API gateway's HTTP server: Anthropic Messages (`POST …/v1/messages`), OpenAI
// Chat Completions (`POST …/chat/completions`) and Responses (`POST …/responses`) are
// checked; model lists (`GET`) and token counts pass as they are; anything else is refused
// in the API's shape. The front door and the in-flight limits are those of the other
// gateways. The caller's tenant, agent and user come from `X-Warden-Tenant`,
// `X-Warden-Agent`, `X-Warden-User`; with token auth the caller's Warden token (in
// `X-Warden-Token`, or in `Authorization` / `x-api-key` when it is one) pins the tenant and
// is never forwarded.

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Engine, EventContext, OnCallerGone } from '../../core/index.js'
import type { InFlightLimiter } from '../../inflight/index.js'
import type { CallerPrincipal } from '../../net/index.js'
import {
  callerIdentity,
  gatewayServer,
  headerIdentity,
  requestHeader,
  type UnknownTypePolicy,
  Upstream,
} from '../kit/index.js'
import type { ApiErrorInfo, LlmApi } from './api.js'
import {
  type CallDeps,
  forwardUnchecked,
  handleModelCall,
  handleStoredAnswer,
  upstreamError,
  writeApiError,
} from './call.js'
import { LlmChecks } from './checks.js'
import { LLM_DEFAULTS, type LlmLimits } from './limits.js'
import { apiForPath, errorApiForPath } from './routes.js'

/** How to run the gateway. */
export interface LlmGatewayOptions {
  engine: Engine
  /** The model API's base URL (e.g. `https://api.anthropic.com`); request paths are appended. */
  upstream: URL
  /** Added to every event's context. */
  context?: EventContext
  limits?: Partial<LlmLimits>
  /** The upstream API key used in place of the agent's (from `llm.apiKey`, sealed). */
  apiKey?: string
  host?: string
  port?: number
  /** Checks callers' Warden tokens; a principal's tenant pins the tenant. */
  authenticate?: (token: string | undefined) => Promise<{ principal: CallerPrincipal } | { error: string }>
  /** `server.allowedHosts`: Host names accepted besides the loopback names. */
  allowedHosts?: readonly string[]
  /** Served on GET /metrics when given. */
  metrics?: { render(): Promise<string>; contentType: string }
  inFlight?: InFlightLimiter
  log?: (line: string) => void
  /** Named unknown types the operator lets through (`llm.allowUnknownTypes`); default none. */
  unknownTypes?: UnknownTypePolicy
}

/** A running gateway. */
export interface LlmGateway {
  url: URL
  /** Streams being relayed now. */
  openStreams(): number
  close(): Promise<void>
}

const WARDEN_TOKEN = /^wdn_[0-9a-f]{16}_/
/** A path the URL parser would give back unchanged (no dots, escapes, query or `//` start). */
const SIMPLE_PATH = /^\/[A-Za-z0-9_-][A-Za-z0-9_/-]*$/

/**
 * Starts the gateway.
 * @throws Error when the address cannot be listened on.
 */
export async function startLlmGateway(options: LlmGatewayOptions): Promise<LlmGateway> {
  const limits: LlmLimits = { ...LLM_DEFAULTS, ...options.limits }
  const log = options.log ?? (() => undefined)
  const deps: CallDeps = {
    checks: new LlmChecks(options.engine, limits, options.unknownTypes),
    upstream: new Upstream(limits.upstreamTimeoutMs, limits.maxAnswerBytes, {
      peer: 'model API',
      answerSetting: 'llm.maxAnswerBytes',
    }),
    base: options.upstream,
    limits,
    streams: new Set(),
    log,
  }
  if (options.apiKey !== undefined) deps.apiKey = options.apiKey
  const authenticate = options.authenticate
  const authenticateRequest = authenticate
    ? (req: IncomingMessage) => authenticate(wardenToken(req).token)
    : undefined
  const { app, listen } = gatewayServer({
    // Model calls (every POST) are taken ahead of Fastify, behind the same door and limits.
    lane: { takes: (method) => method === 'POST', serve: (req, res, body) => serve(req, res, body) },
    section: 'llm',
    limits,
    ...(options.inFlight ? { inFlight: options.inFlight } : {}),
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(authenticateRequest ? { authenticate: authenticateRequest } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    doorBody: (url, refusal) =>
      errorApiForPath(url).errorBody({
        status: refusal.status,
        code: refusal.field,
        message: refusal.message,
      }),
    errorBody: (url, error) => errorApiForPath(url).errorBody(error),
    log,
  })

  /** The caller's context, or the error to answer (synchronously without token auth). */
  function callerOf(
    req: IncomingMessage,
  ):
    | { context: EventContext }
    | { error: ApiErrorInfo }
    | Promise<{ context: EventContext } | { error: ApiErrorInfo }> {
    if (authenticateRequest)
      return callerIdentity(req, authenticateRequest).then((identity) => contextOf(identity))
    return contextOf(headerIdentity(req))
  }

  function contextOf(
    identity: ReturnType<typeof headerIdentity>,
  ): { context: EventContext } | { error: ApiErrorInfo } {
    if ('status' in identity) return { error: identity }
    const context: EventContext = { ...options.context }
    if (identity.tenant !== undefined) context.tenantId = identity.tenant
    else if (identity.authenticated) delete context.tenantId
    if (identity.agent !== undefined) context.agent = { id: identity.agent, name: identity.agent }
    if (identity.user !== undefined) context.user = { id: identity.user }
    return { context }
  }

  /** Answers one request whose body was read (GET: empty). Never throws. */
  async function serve(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const method = req.method ?? 'GET'
    const target = req.url ?? '/'
    const path = SIMPLE_PATH.test(target) ? target : new URL(target, 'http://gateway').pathname
    const route = apiForPath(method, path)
    const shape: LlmApi = route.api ?? errorApiForPath(path)
    const drop = options.authenticate ? wardenToken(req).headers : ['x-warden-token']
    try {
      const known = callerOf(req)
      const caller = known instanceof Promise ? await known : known
      if ('error' in caller) return writeApiError(res, shape, caller.error)
      const context = caller.context
      if (route.kind === 'refused') return writeApiError(res, shape, route.error)
      if (route.kind === 'unchecked') return await forwardUnchecked(deps, route.api, req, res, raw, drop)
      if (route.kind === 'stored')
        return await handleStoredAnswer(deps, route.api, req, res, { context }, drop)
      const onCallerGone: OnCallerGone = (listener) => {
        res.once('close', () => {
          if (!res.writableFinished) listener()
        })
      }
      await handleModelCall(deps, route.api, req, res, raw, { context, onCallerGone }, drop)
    } catch (error) {
      const failure = upstreamError(error)
      log(`${method} ${path}: ${failure.message}`)
      writeApiError(res, shape, failure)
    }
  }

  app.route({
    method: ['GET', 'POST'],
    url: '/*',
    handler: async (request, reply) => {
      reply.hijack()
      await serve(request.raw, reply.raw, Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0))
    },
  })

  const url = await listen(options.host, options.port)
  return {
    url,
    openStreams: () => deps.streams.size,
    async close() {
      await app.close()
      await Promise.allSettled([...deps.streams])
      await deps.upstream.close()
    },
  }
}

/**
 * The caller's Warden token and the headers that carried it: `X-Warden-Token`, else an
 * `Authorization: Bearer` or `x-api-key` holding a Warden token (`wdn_…`).
 */
export function wardenToken(req: IncomingMessage): { token: string | undefined; headers: string[] } {
  const explicit = requestHeader(req, 'x-warden-token')
  if (explicit) return { token: explicit, headers: ['x-warden-token'] }
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(requestHeader(req, 'authorization') ?? '')?.[1]
  if (bearer !== undefined && WARDEN_TOKEN.test(bearer)) return { token: bearer, headers: ['authorization'] }
  const key = requestHeader(req, 'x-api-key')
  if (key !== undefined && WARDEN_TOKEN.test(key)) return { token: key, headers: ['x-api-key'] }
  return { token: undefined, headers: [] }
}
