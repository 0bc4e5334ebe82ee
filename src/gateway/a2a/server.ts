// The A2A gateway's HTTP server: the upstream's agent card (rewritten to the gateway and
// checked as `a2a.card`) at the well-known paths, the JSON-RPC and HTTP+JSON interfaces the
// card lists (same paths as upstream), `/healthz` and, when given, `/metrics`. Bodies are
// bounded; the caller's tenant comes from `X-Warden-Tenant` or the token, its agent and
// user from `X-Warden-Agent` / `X-Warden-User`.

import type { IncomingMessage, ServerResponse } from 'node:http'
import Fastify, { type FastifyInstance } from 'fastify'
import { type Engine, type EventContext, errorMessage } from '../../core/index.js'
import {
  answeredRefusal,
  type InFlightLimiter,
  inFlightLimiterFor,
  limitInFlight,
} from '../../inflight/index.js'
import {
  type CallerPrincipal,
  callerTenant,
  doorRefusalBody,
  doorRefusalHeaders,
  FrontDoor,
  gatewayRefusal,
  type Resolver,
} from '../../net/index.js'
import { CARD_PATHS, CardSource, rewriteCard, type UpstreamCard } from './card.js'
import { A2aChecks } from './checks.js'
import { discardBody, discardBound } from './drain.js'
import type { ForwardDeps } from './forward.js'
import { handleJsonRpc, writeRpcRefusal } from './jsonrpc.js'
import { A2A_DEFAULTS, type A2aLimits } from './limits.js'
import type { Caller, Target } from './payload.js'
import { PushUrlPolicy } from './push-policy.js'
import { handleRest, writeRestRefusal } from './rest.js'
import { Upstream, UpstreamError } from './upstream.js'
import { invalid, RPC_INVALID_REQUEST, refusedBy, upstreamFailure } from './wire.js'

/** How to run the gateway. */
export interface A2aGatewayOptions {
  engine: Engine
  /** The upstream agent's base URL (its card is at `/.well-known/agent-card.json` below it). */
  upstream: URL
  /** Added to every event's context. */
  context?: EventContext
  limits?: Partial<A2aLimits>
  /** `network.allow`: special-purpose addresses push-notification URLs may use. */
  networkAllow?: readonly string[]
  /** How push-notification hosts are resolved (default: the system resolver). */
  resolver?: Resolver
  host?: string
  port?: number
  /** The URL clients reach the gateway at, put in the card (default: the listening address). */
  publicUrl?: URL
  /** Checks callers' tokens; a principal's tenant pins the tenant. Without it, `authorization` is forwarded upstream. */
  authenticate?: (
    authorization: string | undefined,
  ) => Promise<{ principal: CallerPrincipal } | { error: string }>
  /** `server.allowedHosts`: Host names accepted besides the loopback names. */
  allowedHosts?: readonly string[]
  /** Served on GET /metrics when given. */
  metrics?: { render(): Promise<string>; contentType: string }
  /** Limits on requests and body bytes in flight. Default: from `limits`, else the machine's. */
  inFlight?: InFlightLimiter
  log?: (line: string) => void
}

/** A running gateway. */
export interface A2aGateway {
  url: URL
  /** Streams being relayed now. */
  openStreams(): number
  close(): Promise<void>
}

const NAME_RULE = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/

/**
 * Starts the gateway (the upstream card is fetched on first use, so a down upstream does
 * not stop it from starting).
 * @throws Error when the address cannot be listened on.
 */
export async function startA2aGateway(options: A2aGatewayOptions): Promise<A2aGateway> {
  const limits: A2aLimits = { ...A2A_DEFAULTS, ...options.limits }
  const log = options.log ?? (() => undefined)
  const upstream = new Upstream(limits.upstreamTimeoutMs, limits.maxEventBytes)
  const cards = new CardSource(upstream, options.upstream, limits.cardTtlMs, log)
  const checks = new A2aChecks({
    engine: options.engine,
    ...(options.context ? { context: options.context } : {}),
    pushPolicy: new PushUrlPolicy(options.networkAllow ?? [], options.resolver),
    limits,
    log,
  })
  const deps: ForwardDeps = { checks, upstream, limits, log, streams: new Set() }
  const target: Target = { name: 'unknown', url: options.upstream.href }
  let publicUrl = options.publicUrl
  const forwardAuthorization = options.authenticate === undefined

  const app: FastifyInstance = Fastify({
    logger: false,
    bodyLimit: limits.maxBodyBytes,
    forceCloseConnections: true,
  })
  // The front door (Host, Origin, Sec-Fetch-Site, no token in the URL, JSON bodies), before
  // the limits in flight: a refused request takes no place.
  const door = new FrontDoor({
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    allowedHostsSetting: 'server.allowedHosts (--allowed-host)',
    queryToken: { refuse: options.authenticate !== undefined },
  })
  app.addHook('onRequest', (request, reply, done) => {
    const refusal = gatewayRefusal(door, request.method, request.url, request.headers)
    if (refusal === undefined) return done()
    reply.code(refusal.status).headers(doorRefusalHeaders(refusal)).send(doorRefusalBody(refusal))
  })
  limitInFlight(
    app,
    options.inFlight ??
      inFlightLimiterFor(limits, 'a2a', { bytes: limits.maxBodyBytes, setting: 'a2a.maxBodyBytes' }),
  )
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
  app.setErrorHandler(async (error, request, reply) => {
    if (answeredRefusal(error, reply)) return reply
    const status = (error as { statusCode?: number }).statusCode ?? 500
    const message =
      status === 413
        ? `the body is over the limit of ${limits.maxBodyBytes} bytes (a2a.maxBodyBytes)`
        : status < 500
          ? errorMessage(error)
          : 'the gateway failed'
    if (status >= 500) log(`${request.method} ${request.url}: ${errorMessage(error)}`)
    // The client is still sending: read its upload (bounded) so it sees this answer.
    if (status === 413) await discardBody(request.raw, discardBound(limits.maxBodyBytes))
    return reply
      .code(status)
      .send({ jsonrpc: '2.0', id: null, error: { code: RPC_INVALID_REQUEST, message } })
  })
  app.get('/healthz', async () => ({ status: 'ok' }))
  if (options.metrics) {
    const metrics = options.metrics
    const authenticate = options.authenticate
    app.get('/metrics', async (request, reply) => {
      // Under server.auth: token, metrics need a token too (any role).
      const verdict = authenticate ? await authenticate(request.headers.authorization) : undefined
      if (verdict && 'error' in verdict) {
        const refusal = { status: 401, field: 'authorization', message: verdict.error } as const
        return reply.code(401).headers(doorRefusalHeaders(refusal)).send(doorRefusalBody(refusal))
      }
      return reply.header('content-type', metrics.contentType).send(await metrics.render())
    })
  }

  async function callerOf(req: IncomingMessage): Promise<Caller | { error: string; status: number }> {
    const caller: Caller = {}
    const tenant = header(req, 'x-warden-tenant')
    for (const [name, value] of [
      ['X-Warden-Tenant', tenant],
      ['X-Warden-Agent', header(req, 'x-warden-agent')],
      ['X-Warden-User', header(req, 'x-warden-user')],
    ] as const) {
      if (value !== undefined && !NAME_RULE.test(value)) {
        return {
          error: `${name} must be 1-128 letters, digits or . _ : @ / - (starting with a letter or digit)`,
          status: 400,
        }
      }
    }
    if (tenant !== undefined) caller.tenant = tenant
    const agent = header(req, 'x-warden-agent')
    if (agent !== undefined) caller.agent = agent
    const user = header(req, 'x-warden-user')
    if (user !== undefined) caller.user = user
    if (options.authenticate) {
      const verdict = await options.authenticate(req.headers.authorization)
      if ('error' in verdict) return { error: verdict.error, status: 401 }
      const decided = callerTenant(verdict.principal, tenant)
      if ('status' in decided) return { error: decided.message, status: decided.status }
      if (decided.tenant !== undefined) caller.tenant = decided.tenant
    }
    return caller
  }

  async function currentCard(): Promise<UpstreamCard> {
    const last = cards.last()
    if (!last) return cards.get()
    cards.get().catch((error: unknown) => log(`agent card refresh: ${errorMessage(error)}`))
    return last
  }

  async function serveCard(res: ServerResponse, caller: Caller): Promise<void> {
    const card = await cards.get()
    const served = rewriteCard(card.card, publicUrl as URL)
    const checked = await checks.card(
      served,
      {
        ...options.context,
        ...(caller.tenant ? { tenantId: caller.tenant } : {}),
        agent: { id: card.name, name: card.name },
      },
      { ...target, name: card.name },
    )
    if (!checked.ok) return writeRestRefusal(res, checked.refusal)
    res
      .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache' })
      .end(JSON.stringify(rewriteCard(checked.value as typeof card.card, publicUrl as URL)))
  }

  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: '/*',
    handler: async (request, reply) => {
      reply.hijack()
      const req = request.raw
      const res = reply.raw
      const url = new URL(request.url, 'http://gateway')
      const isCard = (CARD_PATHS as readonly string[]).includes(url.pathname)
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
      try {
        const caller = await callerOf(req)
        if ('error' in caller)
          return writeRestRefusal(res, { ...refusedBy(caller.error, caller.status), kind: 'invalid' })
        if (isCard && request.method === 'GET') return await serveCard(res, caller)
        const card = await currentCard()
        const callTarget: Target = { ...target, name: card.name }
        const path = url.pathname.replace(/\/+$/, '') || '/'
        const rpc = card.interfaces.find((i) => i.binding === 'JSONRPC' && i.path === path)
        if (rpc && request.method === 'POST') {
          return await handleJsonRpc(deps, body, rpc.url, caller, callTarget, forwardAuthorization, req, res)
        }
        const rest = card.interfaces
          .filter(
            (i) =>
              i.binding === 'HTTP+JSON' &&
              (path === i.path || path.startsWith(i.path === '/' ? '/' : `${i.path}/`)),
          )
          .sort((a, b) => b.path.length - a.path.length)[0]
        if (rest) {
          const subpath = rest.path === '/' ? url.pathname : url.pathname.slice(rest.path.length)
          return await handleRest(
            deps,
            rest.url,
            subpath,
            url,
            body,
            caller,
            callTarget,
            forwardAuthorization,
            req,
            res,
          )
        }
        const known = card.interfaces.map((i) => `${i.binding} at ${i.path}`).join(', ') || 'none'
        writeRestRefusal(
          res,
          invalid(
            -32601,
            `nothing is served at ${request.method} ${url.pathname.slice(0, 100)}; the agent's interfaces: ${known}`,
            404,
          ),
        )
      } catch (error) {
        const refusal =
          error instanceof UpstreamError
            ? upstreamFailure(error.kind, error.message)
            : upstreamFailure('unreachable', `the gateway failed: ${errorMessage(error)}`)
        log(`${request.method} ${url.pathname}: ${refusal.message}`)
        if (res.headersSent) res.end()
        else if (isCard || request.method !== 'POST') writeRestRefusal(res, refusal)
        else writeRpcRefusal(res, null, refusal)
      }
    },
  })

  const host = options.host ?? '127.0.0.1'
  await app.listen({ port: options.port ?? 0, host })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  door.bind(host, port)
  const shown = host.includes(':') ? `[${host}]` : host
  const url = new URL(`http://${shown}:${port}/`)
  publicUrl ??= url
  return {
    url,
    openStreams: () => deps.streams.size,
    async close() {
      await app.close()
      await Promise.allSettled([...deps.streams])
      await upstream.close()
    },
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}
