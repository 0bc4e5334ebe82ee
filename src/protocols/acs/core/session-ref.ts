// The key of every ACS structure: one tenant's session. Two tenants' sessions of the same id
// never meet, in memory or in the store.

/** One tenant's session: what every ACS structure is keyed by. */
export interface SessionRef {
  /** The tenant ('' for a Guardian without tenants). */
  tenant: string
  session: string
}

/** The key of a tenant's session state (length-prefixed, so no two tenants' keys meet). */
export function tenantKey(tenant: string | undefined, key: string): string {
  const name = tenant ?? ''
  return `${name.length}:${name}${key}`
}

/** The map key of a session reference. */
export const refKey = (ref: SessionRef): string => tenantKey(ref.tenant, ref.session)
