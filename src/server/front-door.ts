// The front door of `warden serve` on Fastify: every request (`/aos`, `/acs`, `/healthz`,
// `/metrics`, the `/ws` upgrade, the UI) passes the shared checks of `net`'s FrontDoor
// (Host, Origin, Sec-Fetch-Site, no token in the URL but on `/ws`); the decision endpoints
// also require a JSON body and, under `server.auth: token`, a token of a role that may ask
// for decisions, whose tenant rule is the same for all of them.

import type { IncomingHttpHeaders } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import {
  type CallerPrincipal,
  callerTenant,
  type DoorRefusal,
  FrontDoor,
  jsonBodyRefusal,
} from '../net/index.js'
import { errorResponse, RPC_ERRORS, rpcError } from '../protocols/aos/index.js'

/** Checks a request's `Authorization` header (`server.auth: token`). */
export type Authenticate = (
  authorization: string | undefined,
  query: unknown,
) => Promise<{ principal: CallerPrincipal } | { error: string }>

/** The one path where a token may travel in the URL: the browser's WebSocket upgrade. */
const QUERY_TOKEN_PATHS = ['/ws']

/** Sends a refusal as a JSON-RPC error with its status. */
export function sendRefusal(reply: FastifyReply, refusal: DoorRefusal): FastifyReply {
  const rpc = rpcError(RPC_ERRORS.invalidRequest, refusal.field, refusal.message)
  if (refusal.status === 401) reply.header('www-authenticate', 'Bearer')
  return reply
    .code(refusal.status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify(errorResponse(null, rpc)))
}

/**
 * Adds the front door to every route of the app. The Host rule follows the address the
 * server listens on, read at the first request.
 * @returns the door, for routes served before the app (the data plane) to check with
 */
export function installFrontDoor(
  app: FastifyInstance,
  options: { allowedHosts?: readonly string[] | undefined; tokenAuth: boolean },
): FrontDoor {
  const door = new FrontDoor({
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    queryToken: { refuse: options.tokenAuth, exceptPaths: QUERY_TOKEN_PATHS },
  })
  app.addHook('onRequest', (request, reply, done) => {
    if (!door.isBound()) {
      const address = app.server.address()
      if (address !== null && typeof address === 'object') door.bind(address.address, address.port)
    }
    const refusal = door.check(request.method, request.url, request.headers)
    if (refusal === undefined) return done()
    sendRefusal(reply, refusal)
  })
  return door
}

/**
 * Refuses a decision request whose body is not declared JSON (415).
 * @returns true when the request was refused and answered.
 */
export function refusedBodyType(request: FastifyRequest, reply: FastifyReply): boolean {
  const refusal = jsonBodyRefusal(request.headers)
  if (refusal === undefined) return false
  sendRefusal(reply, refusal)
  return true
}

/**
 * The tenant a decision request runs as. Without authentication, `X-Warden-Tenant`; with
 * it, the token must be valid (401), of a role that may ask for decisions and, when bound
 * to a tenant, not name another (403). Used by every endpoint that decides.
 * @returns the tenant, or undefined after the refusal was sent.
 */
export async function decisionTenant(
  request: FastifyRequest,
  reply: FastifyReply,
  authenticate: Authenticate | undefined,
): Promise<{ tenant: string | undefined } | undefined> {
  const named = request.headers['x-warden-tenant']
  const header = typeof named === 'string' ? named : undefined
  if (!authenticate) return { tenant: header }
  const caller = await callerOf(request.headers, authenticate)
  if (!('status' in caller)) return caller
  sendRefusal(reply, caller)
  return undefined
}

/**
 * The tenant an authenticated decision request runs as, or why it is refused: 401 for a
 * bad token, 403 for a role that may not ask for decisions or a token bound to another
 * tenant than `X-Warden-Tenant` names.
 */
export async function callerOf(
  headers: IncomingHttpHeaders,
  authenticate: Authenticate,
): Promise<{ tenant: string | undefined } | DoorRefusal> {
  const named = headers['x-warden-tenant']
  const header = typeof named === 'string' ? named : undefined
  const verdict = await authenticate(headers.authorization, undefined)
  if ('error' in verdict) return { status: 401, field: 'authorization', message: verdict.error }
  return callerTenant(verdict.principal, header)
}

/** An `onRequest` hook that lets only callers with a valid token (any role) through. */
export function tokenRequired(authenticate: Authenticate): onRequestHookHandler {
  return async (request, reply) => {
    const verdict = await authenticate(request.headers.authorization, undefined)
    if ('error' in verdict) {
      return sendRefusal(reply, { status: 401, field: 'authorization', message: verdict.error })
    }
    return undefined
  }
}

/** Registers routes in a scope of their own where every request needs a valid token. */
export function withToken(
  authenticate: Authenticate,
  plugin: (scope: FastifyInstance) => void | Promise<void>,
): (app: FastifyInstance) => Promise<void> {
  return async (app) => {
    await app.register(async (scope) => {
      scope.addHook('onRequest', tokenRequired(authenticate))
      await plugin(scope)
    })
  }
}
