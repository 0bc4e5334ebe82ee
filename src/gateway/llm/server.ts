// The model-API gateway's HTTP server: Anthropic Messages (`POST …/v1/messages`), OpenAI
// Chat Completions (`POST …/chat/completions`) and Responses (`POST …/responses`) are
// checked; model lists (`GET`) and token counts pass as they are; anything else is refused
// in the API's shape. The front door and the in-flight limits are those of the other
// gateways. The caller's tenant, agent and user come from `X-Warden-Tenant`,
// `X-Warden-Agent`, `X-Warden-User`; with token auth the caller's Warden token (in
// `X-Warden-Token`, or in `Authorization` / `x-api-key` when it is one) pins the tenant and
// is never forwarded.

import type { IncomingMessage } from 'node:http'
import Fastify, { type FastifyInstance } from 'fastify'
import { type Engine, type EventContext, errorMessage, type OnCallerGone } from '../../core/index.js'
import {
  answeredRefusal,
  type InFlightLimiter,
  inFlightLimiterFor,
  limitInFlight,
} from '../../inflight/index.js'
import {
  type CallerPrincipal,
  callerTenant,
  doorRefusalHeaders,
  FrontDoor,
  gatewayRefusal,
} from '../../net/index.js'
import { discardBody, discardBound, Upstream } from '../a2a/index.js'
import type { UnknownTypePolicy } from '../kit/index.js'
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

const NAME_RULE = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/
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
  if (options.unknownTypes !== undefined) deps.unknownTypes = options.unknownTypes
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
    const refusal = gatewayRefusal(door, request.method, request.url, request.headers)
    if (refusal === undefined) return done()
    const api = errorApiForPath(request.url)
    reply
      .code(refusal.status)
      .headers(doorRefusalHeaders(refusal))
      .send(api.errorBody({ status: refusal.status, code: refusal.field, message: refusal.message }))
  })
  limitInFlight(
    app,
    options.inFlight ??
      inFlightLimiterFor(limits, 'llm', { bytes: limits.maxBodyBytes, setting: 'llm.maxBodyBytes' }),
  )
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
  app.setErrorHandler(async (error, request, reply) => {
    if (answeredRefusal(error, reply)) return reply
    const status = (error as { statusCode?: number }).statusCode ?? 500
    const message =
      status === 413
        ? `the body is over the limit of ${limits.maxBodyBytes} bytes (llm.maxBodyBytes)`
        : status < 500
          ? errorMessage(error)
          : 'the gateway failed'
    if (status >= 500) log(`${request.method} ${request.url}: ${errorMessage(error)}`)
    if (status === 413) await discardBody(request.raw, discardBound(limits.maxBodyBytes))
    const api = errorApiForPath(request.url)
    return reply
      .code(status)
      .send(api.errorBody({ status, code: status === 413 ? 'too_large' : 'invalid_request', message }))
  })
  app.get('/healthz', async () => ({ status: 'ok' }))
  if (options.metrics) {
    const metrics = options.metrics
    app.get('/metrics', async (request, reply) => {
      const verdict = options.authenticate
        ? await options.authenticate(wardenToken(request.raw).token)
        : undefined
      if (verdict && 'error' in verdict) {
        return reply
          .code(401)
          .headers({ 'content-type': 'application/json', 'www-authenticate': 'Bearer' })
          .send(
            errorApiForPath(request.url).errorBody({
              status: 401,
              code: 'authorization',
              message: verdict.error,
            }),
          )
      }
      return reply.header('content-type', metrics.contentType).send(await metrics.render())
    })
  }

  /** The caller's context, or the error to answer. */
  async function callerOf(
    req: IncomingMessage,
  ): Promise<{ context: EventContext } | { error: ApiErrorInfo }> {
    const context: EventContext = { ...options.context }
    const tenant = header(req, 'x-warden-tenant')
    const agent = header(req, 'x-warden-agent')
    const user = header(req, 'x-warden-user')
    for (const [name, value] of [
      ['X-Warden-Tenant', tenant],
      ['X-Warden-Agent', agent],
      ['X-Warden-User', user],
    ] as const) {
      if (value !== undefined && !NAME_RULE.test(value)) {
        return {
          error: {
            status: 400,
            code: 'invalid_request',
            message: `${name} must be 1-128 letters, digits or . _ : @ / - (starting with a letter or digit)`,
          },
        }
      }
    }
    if (tenant !== undefined) context.tenantId = tenant
    if (agent !== undefined) context.agent = { id: agent, name: agent }
    if (user !== undefined) context.user = { id: user }
    if (options.authenticate) {
      const verdict = await options.authenticate(wardenToken(req).token)
      if ('error' in verdict) return { error: { status: 401, code: 'authorization', message: verdict.error } }
      const decided = callerTenant(verdict.principal, tenant)
      if ('status' in decided)
        return { error: { status: decided.status, code: decided.field, message: decided.message } }
      if (decided.tenant !== undefined) context.tenantId = decided.tenant
      else delete context.tenantId
    }
    return { context }
  }

  app.route({
    method: ['GET', 'POST'],
    url: '/*',
    handler: async (request, reply) => {
      reply.hijack()
      const req = request.raw
      const res = reply.raw
      const path = SIMPLE_PATH.test(request.url)
        ? request.url
        : new URL(request.url, 'http://gateway').pathname
      const route = apiForPath(request.method, path)
      const shape: LlmApi = route.api ?? errorApiForPath(path)
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
      const drop = options.authenticate ? wardenToken(req).headers : ['x-warden-token']
      try {
        const caller = await callerOf(req)
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
        log(`${request.method} ${path}: ${failure.message}`)
        writeApiError(res, shape, failure)
      }
    },
  })

  const host = options.host ?? '127.0.0.1'
  await app.listen({ port: options.port ?? 0, host })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  door.bind(host, port)
  const shown = host.includes(':') ? `[${host}]` : host
  return {
    url: new URL(`http://${shown}:${port}/`),
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
  const explicit = header(req, 'x-warden-token')
  if (explicit) return { token: explicit, headers: ['x-warden-token'] }
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header(req, 'authorization') ?? '')?.[1]
  if (bearer !== undefined && WARDEN_TOKEN.test(bearer)) return { token: bearer, headers: ['authorization'] }
  const key = header(req, 'x-api-key')
  if (key !== undefined && WARDEN_TOKEN.test(key)) return { token: key, headers: ['x-api-key'] }
  return { token: undefined, headers: [] }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}
