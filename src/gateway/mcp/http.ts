// The Streamable HTTP gateway: listens (on loopback by default) for MCP clients and opens,
// per client session, a session to the upstream server; every message between the two is
// checked by the same bridge as in stdio mode. The kit's door pins the request target to a
// plain path and refuses browser navigations; the upstream is always the configured URL.

import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { errorMessage } from '../../core/index.js'
import {
  admitNodeRequest,
  type BodyFailure,
  type InFlightLimiter,
  inFlightLimiterFor,
  readCountedBody,
  writeRefusal,
} from '../../inflight/index.js'
import {
  type CallerPrincipal,
  callerTenant,
  FrontDoor,
  gatewayRefusal,
  writeDoorRefusal,
} from '../../net/index.js'
import { navigationRefusal, targetRefusal } from '../kit/index.js'
import { McpBridge } from './bridge.js'
import type { McpChecksOptions } from './checks.js'

/** How to run the HTTP gateway. */
export interface HttpGatewayOptions extends McpChecksOptions {
  /** The upstream MCP endpoint, e.g. http://127.0.0.1:3001/mcp. */
  upstream: URL
  /** The address to listen on. Default 127.0.0.1. */
  host?: string
  /** The port to listen on; 0 picks a free one. Default 0. */
  port?: number
  /** The path clients post to. Default /mcp. */
  path?: string
  /** Sessions open at once before new ones are refused. Default 100. */
  maxSessions?: number
  /** Largest request body, in bytes. Default 4 MiB. */
  maxRequestBytes?: number
  /** Limits on requests and body bytes in flight. Default: derived from the machine. */
  inFlight?: InFlightLimiter
  /** `server.allowedHosts`: Host names accepted besides the loopback names. */
  allowedHosts?: readonly string[]
  /**
   * Checks callers' tokens (`server.auth: token`): only roles that may ask for decisions
   * pass, a token's tenant pins the session's, and a session answers only the token that opened it.
   */
  authenticate?: (
    authorization: string | undefined,
  ) => Promise<{ principal: CallerPrincipal & { tokenId?: string } } | { error: string }>
}

/** A running HTTP gateway. */
export interface HttpGateway {
  /** The URL clients connect to. */
  url: URL
  /** Open sessions. */
  sessions(): number
  close(): Promise<void>
}

interface Session {
  transport: StreamableHTTPServerTransport
  bridge: McpBridge
  /** Who opened it (the token, else the tenant), with token auth. */
  owner?: string
}

/** Defaults of {@link HttpGatewayOptions}. */
export const HTTP_GATEWAY_DEFAULTS = { maxRequestBytes: 4 * 1024 * 1024 } as const

/** Who a verified caller is and which tenant its session runs as. */
interface Caller {
  owner: string
  tenant: string | undefined
}

/**
 * Starts the HTTP gateway.
 * @throws Error when the address cannot be listened on.
 */
export async function startHttpGateway(options: HttpGatewayOptions): Promise<HttpGateway> {
  const host = options.host ?? '127.0.0.1'
  const path = options.path ?? '/mcp'
  const maxSessions = options.maxSessions ?? 100
  const log = options.log ?? (() => undefined)
  const maxRequestBytes = options.maxRequestBytes ?? HTTP_GATEWAY_DEFAULTS.maxRequestBytes
  const inFlight =
    options.inFlight ??
    inFlightLimiterFor(
      {},
      { maxInFlight: 'maxInFlight', maxInFlightBytes: 'maxInFlightBytes' },
      { bytes: maxRequestBytes, setting: 'maxRequestBytes' },
    )
  const sessions = new Map<string, Session>()
  const door = new FrontDoor({
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    allowedHostsSetting: 'server.allowedHosts (--allowed-host)',
    queryToken: { refuse: options.authenticate !== undefined },
  })

  /** With token auth: the verified caller, or undefined once refused. */
  async function callerOf(req: IncomingMessage, res: ServerResponse): Promise<Caller | undefined | null> {
    if (!options.authenticate) return null
    const verdict = await options.authenticate(req.headers.authorization)
    if ('error' in verdict) {
      writeDoorRefusal(res, { status: 401, field: 'authorization', message: verdict.error })
      return undefined
    }
    const named = req.headers['x-warden-tenant']
    const decided = callerTenant(verdict.principal, typeof named === 'string' ? named : undefined)
    if ('status' in decided) {
      writeDoorRefusal(res, decided)
      return undefined
    }
    const { tokenId, tenant } = verdict.principal
    return { owner: tokenId ?? `tenant:${tenant ?? ''}`, tenant: decided.tenant }
  }

  async function openSession(
    req: IncomingMessage,
    res: ServerResponse,
    caller: Caller | null,
    body: unknown,
  ): Promise<void> {
    if (sessions.size >= maxSessions) {
      return reply(res, 503, `too many sessions open (${maxSessions}); close one and retry`)
    }
    const upstream = new StreamableHTTPClientTransport(options.upstream)
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: maxRequestBytes,
      onsessioninitialized: (id) => {
        sessions.set(id, session)
      },
    })
    const context =
      caller?.tenant !== undefined ? { ...options.context, tenantId: caller.tenant } : options.context
    const bridge = new McpBridge({
      ...options,
      ...(context ? { context } : {}),
      client: transport,
      server: upstream,
    })
    const session: Session = { transport, bridge, ...(caller ? { owner: caller.owner } : {}) }
    void bridge.closed.then(async () => {
      if (transport.sessionId) sessions.delete(transport.sessionId)
      await upstream.terminateSession().catch(() => undefined)
    })
    await bridge.start()
    await transport.handleRequest(req, res, body)
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refusal =
      targetRefusal(req.url ?? '') ??
      gatewayRefusal(door, req.method ?? 'GET', req.url ?? '/', req.headers) ??
      navigationRefusal(req.headers)
    if (refusal) return writeDoorRefusal(res, refusal)
    const url = new URL(req.url ?? '/', 'http://gateway')
    if (url.pathname !== path) return reply(res, 404, `not found; MCP clients connect to ${path}`)
    const caller = await callerOf(req, res)
    if (caller === undefined) return
    // A body is read here, counted against the limits in flight, and handed over parsed.
    const ticket = admitNodeRequest(inFlight, req, res, maxRequestBytes)
    if (!ticket) return
    let body: unknown
    if (ticket !== 'free') {
      const read = await readCountedBody(req, ticket, maxRequestBytes)
      if (!Buffer.isBuffer(read)) return refuseBody(res, read)
      if (read.length > 0) {
        try {
          body = JSON.parse(read.toString('utf8'))
        } catch {
          return reply(res, 400, 'Parse error: Invalid JSON', -32700)
        }
      }
    }
    const sessionId = req.headers['mcp-session-id']
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId)
      if (!session || session.owner !== caller?.owner) {
        return reply(res, 404, 'session not found; initialize a new session', -32001)
      }
      return session.transport.handleRequest(req, res, body)
    }
    if (req.method !== 'POST') return reply(res, 400, 'no session: send an initialize request first')
    return openSession(req, res, caller, body)
  }

  const server: Server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      log(`http: ${errorMessage(error)}`)
      if (!res.headersSent) reply(res, 500, 'the gateway failed to handle the request')
      else res.end()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  door.bind(host, port)
  if (!door.isLoopback() && !options.authenticate) {
    log(
      `listening on ${host}, not loopback: set server.auth: token or put authentication in front of this gateway`,
    )
  }
  const shownHost = host.includes(':') ? `[${host}]` : host
  return {
    url: new URL(`http://${shownHost}:${port}${path}`),
    sessions: () => sessions.size,
    async close() {
      await Promise.allSettled([...sessions.values()].map((s) => s.bridge.close('the gateway is stopping')))
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Answers a body that could not be read: too big (413), over the bytes in flight (503). */
function refuseBody(res: ServerResponse, failure: BodyFailure): void {
  if ('refusal' in failure) writeRefusal(res, failure.refusal, true)
  else if ('tooLarge' in failure) {
    res.setHeader('connection', 'close')
    reply(res, 413, `the body is over the limit of ${failure.tooLarge} bytes`)
  } else res.destroy()
}

function reply(res: ServerResponse, status: number, message: string, code = -32000): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }))
}
