// The A2A gateway's HTTP server: the upstream's agent card (rewritten to the gateway and
// checked as `a2a.card`) at the well-known paths, the JSON-RPC and HTTP+JSON interfaces the
// card lists (same paths as upstream), `/healthz` and, when given, `/metrics`. Bodies are
// bounded; the caller's tenant comes from `X-Warden-Tenant` or the token, its agent and
// user from `X-Warden-Agent` / `X-Warden-User`.

import type { IncomingMessage, ServerResponse } from 'node:http'
import { type Engine, type EventContext, errorMessage } from '../../core/index.js'
import type { InFlightLimiter } from '../../inflight/index.js'
import { type CallerPrincipal, doorRefusalBody, type Resolver } from '../../net/index.js'
import { callerIdentity, gatewayServer, Upstream, UpstreamError } from '../kit/index.js'
import { CARD_PATHS, CardSource, rewriteCard, type UpstreamCard } from './card.js'
import { A2aChecks } from './checks.js'
import type { ForwardDeps } from './forward.js'
import { handleJsonRpc, writeRpcRefusal } from './jsonrpc.js'
import { A2A_DEFAULTS, type A2aLimits } from './limits.js'
import type { Caller, Target } from './payload.js'
import { PushUrlPolicy } from './push-policy.js'
import { handleRest, writeRestRefusal } from './rest.js'
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

  const authenticate = options.authenticate
  const { app, listen } = gatewayServer({
    section: 'a2a',
    // Messages (every POST) are taken ahead of Fastify, behind the same door and limits.
    lane: { takes: (method) => method === 'POST', serve: (req, res, body) => serve(req, res, body) },
    limits,
    ...(options.inFlight ? { inFlight: options.inFlight } : {}),
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(authenticate ? { authenticate: (req) => authenticate(req.headers.authorization) } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    doorBody: (_url, refusal) => doorRefusalBody(refusal),
    errorBody: (_url, error) => ({
      jsonrpc: '2.0',
      id: null,
      error: { code: RPC_INVALID_REQUEST, message: error.message },
    }),
    log,
  })

  async function callerOf(req: IncomingMessage): Promise<Caller | { error: string; status: number }> {
    const identity = await callerIdentity(
      req,
      authenticate ? (request) => authenticate(request.headers.authorization) : undefined,
    )
    if ('status' in identity) return { error: identity.message, status: identity.status }
    const caller: Caller = {}
    if (identity.tenant !== undefined) caller.tenant = identity.tenant
    if (identity.agent !== undefined) caller.agent = identity.agent
    if (identity.user !== undefined) caller.user = identity.user
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

  /** Answers one request whose body was read (GET: empty). Never throws. */
  async function serve(req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> {
    const request = { method: req.method ?? 'GET', url: req.url ?? '/' }
    const url = new URL(request.url, 'http://gateway')
    const isCard = (CARD_PATHS as readonly string[]).includes(url.pathname)
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
  }

  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: '/*',
    handler: async (request, reply) => {
      reply.hijack()
      await serve(request.raw, reply.raw, Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0))
    },
  })

  const url = await listen(options.host, options.port)
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
