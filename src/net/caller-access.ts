// Who may ask for decisions, and for which tenant: the one rule `POST /aos`, `POST /acs`,
// `warden a2a` and the MCP HTTP gateway share under `server.auth: token`. Only the roles
// meant to ask for decisions (`agent`, `admin`) may call them; a token bound to a tenant
// pins the request's tenant (an `X-Warden-Tenant` naming another is refused); a master
// token (no tenant) may name any tenant with `X-Warden-Tenant`.

import type { DoorRefusal } from './front-door.js'

/** The roles that may call the data plane (ask for decisions). */
export const DATA_PLANE_ROLES: ReadonlySet<string> = new Set(['agent', 'admin'])

/** The verified caller, as the token authority describes it. */
export interface CallerPrincipal {
  /** The token's role; a principal without one (an embedder's own check) is not limited by role. */
  role?: string
  /** Absent for a master token. */
  tenant?: string
}

/**
 * The tenant a verified caller's request runs as, or why it is refused (403 naming the
 * role or the tenant).
 * @param tenantHeader the request's `X-Warden-Tenant`, if any
 */
export function callerTenant(
  principal: CallerPrincipal,
  tenantHeader: string | undefined,
): { tenant: string | undefined } | DoorRefusal {
  if (principal.role !== undefined && !DATA_PLANE_ROLES.has(principal.role)) {
    return {
      status: 403,
      field: 'authorization',
      message: `a token with role "${principal.role}" may not ask for decisions; use a token with role "agent" (warden tokens create --role agent)`,
    }
  }
  const own = principal.tenant
  if (own === undefined) return { tenant: tenantHeader }
  if (tenantHeader !== undefined && tenantHeader !== own) {
    return {
      status: 403,
      field: 'x-warden-tenant',
      message: `this token belongs to tenant "${own}"; X-Warden-Tenant cannot name another tenant`,
    }
  }
  return { tenant: own }
}
