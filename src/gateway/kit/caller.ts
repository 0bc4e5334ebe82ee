// Who calls a gateway: `X-Warden-Tenant`, `X-Warden-Agent` and `X-Warden-User`, each checked
// against one name rule, and, with token auth, the caller's token verified and its tenant
// pinning the request's (a token bound to a tenant cannot name another).

import type { IncomingMessage } from 'node:http'
import { type CallerPrincipal, callerTenant } from '../../net/index.js'

/** Verifies a caller's request; a principal's tenant pins the tenant. */
export type RequestAuthenticator = (
  req: IncomingMessage,
) => Promise<{ principal: CallerPrincipal } | { error: string }>

/** The caller of one request, as its headers and token say. */
export interface CallerIdentity {
  /** The tenant the request runs as (pinned by the token when there is one). */
  tenant?: string
  agent?: string
  user?: string
  /** True when a token was verified: the tenant is then the token's decision, even when absent. */
  authenticated: boolean
}

/** Why a caller is refused: the HTTP status, the header at fault and a message. */
export interface CallerRefusal {
  status: number
  code: string
  message: string
}

const NAME_RULE = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/

/**
 * The caller of a request, or why it is refused (400 for a malformed name, 401 for a bad
 * token, 403 for a role or tenant the token may not use).
 */
export async function callerIdentity(
  req: IncomingMessage,
  authenticate: RequestAuthenticator | undefined,
): Promise<CallerIdentity | CallerRefusal> {
  const identity = headerIdentity(req)
  if (!authenticate || 'status' in identity) return identity
  const tenant = identity.tenant
  const verdict = await authenticate(req)
  if ('error' in verdict) return { status: 401, code: 'authorization', message: verdict.error }
  const decided = callerTenant(verdict.principal, tenant)
  if ('status' in decided) return { status: decided.status, code: decided.field, message: decided.message }
  identity.authenticated = true
  if (decided.tenant !== undefined) identity.tenant = decided.tenant
  else delete identity.tenant
  return identity
}

/**
 * The caller as the request's headers name it, without token auth (synchronous), or why the
 * headers are refused (400 for a malformed name).
 */
export function headerIdentity(req: IncomingMessage): CallerIdentity | CallerRefusal {
  const tenant = requestHeader(req, 'x-warden-tenant')
  const agent = requestHeader(req, 'x-warden-agent')
  const user = requestHeader(req, 'x-warden-user')
  for (const [name, value] of [
    ['X-Warden-Tenant', tenant],
    ['X-Warden-Agent', agent],
    ['X-Warden-User', user],
  ] as const) {
    if (value !== undefined && !NAME_RULE.test(value)) {
      return {
        status: 400,
        code: 'invalid_request',
        message: `${name} must be 1-128 letters, digits or . _ : @ / - (starting with a letter or digit)`,
      }
    }
  }
  const identity: CallerIdentity = { authenticated: false }
  if (tenant !== undefined) identity.tenant = tenant
  if (agent !== undefined) identity.agent = agent
  if (user !== undefined) identity.user = user
  return identity
}

/** The first value of a request header. */
export function requestHeader(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}
