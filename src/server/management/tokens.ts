// Access tokens for the management API and `/aos`: `wdn_<id>_<secret>`, the store keeps
// only the SHA-256 of the secret. Verified tokens are cached in memory and the cache is
// dropped whenever any instance changes the tokens table, so a revocation reaches every
// instance within one change-feed tick.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Store, TokenRole, TokenRow } from '../../store/index.js'

/** The roles a token can have, most powerful first. */
export const TOKEN_ROLES: readonly TokenRole[] = ['admin', 'editor', 'approver', 'viewer', 'agent']

/** Who is calling: the verified token. */
export interface Principal {
  tokenId: string
  name: string
  role: TokenRole
  /** Absent for a master token (global hooks, every tenant). */
  tenant?: string
}

/** A freshly created token: the secret is shown once and never again. */
export interface CreatedToken {
  id: string
  token: string
  row: TokenRow
}

const TOKEN_SHAPE = /^wdn_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/**
 * Creates a token and stores its hash.
 * @throws Error naming the field when the name, tenant or role is not acceptable.
 */
export async function createAccessToken(
  store: Store,
  options: { name: string; tenant?: string | undefined; role?: TokenRole | undefined },
): Promise<CreatedToken> {
  const name = options.name.trim()
  if (name === '' || name.length > 128) throw new Error('--name must be 1 to 128 characters')
  const role = options.role ?? 'admin'
  if (!TOKEN_ROLES.includes(role)) {
    throw new Error(`--role must be one of ${TOKEN_ROLES.join(', ')} (got "${role}")`)
  }
  if (options.tenant !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/.test(options.tenant)) {
    throw new Error('--tenant must be a tenant id: letters, digits and . _ : @ - (at most 128)')
  }
  const id = randomBytes(8).toString('hex')
  const secret = randomBytes(32).toString('base64url')
  const row: TokenRow = { id, name, role, hash: sha256(secret), createdAt: Date.now() }
  if (options.tenant) row.tenant = options.tenant
  await store.createToken(row)
  return { id, token: `wdn_${id}_${secret}`, row }
}

/** The token id inside a token string, when it has the right shape. */
export function tokenIdOf(token: string): string | undefined {
  return TOKEN_SHAPE.exec(token)?.[1]
}

/** The principal a stored token row stands for. */
export function principalOf(row: TokenRow): Principal {
  const principal: Principal = { tokenId: row.id, name: row.name, role: row.role }
  if (row.tenant) principal.tenant = row.tenant
  return principal
}

/** Verifies tokens against the store, with a cache the change feed keeps honest. */
export class TokenAuthority {
  private readonly cache = new Map<string, Principal>()
  private readonly listeners = new Set<() => void>()
  private readonly unwatch: () => void

  constructor(private readonly store: Store) {
    this.unwatch = store.watch((kind) => {
      if (kind !== 'tokens') return
      this.cache.clear()
      for (const listener of [...this.listeners]) listener()
    })
  }

  /**
   * The principal of a token, or why it is refused.
   * @returns `{principal}` or `{error}` with a message safe to send back.
   */
  async verify(token: string | undefined): Promise<{ principal: Principal } | { error: string }> {
    if (token === undefined || token === '') {
      return { error: 'an access token is required: send "Authorization: Bearer <token>"' }
    }
    const cached = this.cache.get(token)
    if (cached) return { principal: cached }
    const match = TOKEN_SHAPE.exec(token)
    if (!match) return { error: 'the access token is malformed' }
    const [, id, secret] = match as unknown as [string, string, string]
    const row = await this.store.getToken(id)
    const expected = row ? Buffer.from(row.hash, 'hex') : Buffer.alloc(32)
    const given = Buffer.from(sha256(secret), 'hex')
    const same = expected.length === given.length && timingSafeEqual(expected, given)
    if (!row || !same) return { error: 'the access token is not valid' }
    if (row.revokedAt !== undefined) return { error: 'the access token has been revoked' }
    const principal = principalOf(row)
    if (this.cache.size > 10_000) this.cache.clear()
    this.cache.set(token, principal)
    return { principal }
  }

  /** Calls `listener` whenever tokens change (to re-check open connections). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  close(): void {
    this.unwatch()
    this.listeners.clear()
  }
}

/** The token in an `Authorization: Bearer …` header, or a `token` query parameter. */
export function tokenFromRequest(authorization: string | undefined, query: unknown): string | undefined {
  if (authorization) {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    return bearer ? bearer[1] : authorization.trim()
  }
  if (typeof query === 'object' && query !== null) {
    const value = (query as { token?: unknown }).token
    if (typeof value === 'string') return value
  }
  return undefined
}
