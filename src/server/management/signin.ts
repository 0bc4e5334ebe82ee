// One-time sign-in links for the UI, as Jupyter prints one at start: `warden serve` prints
// `http://host:port/#signin=<code>` on its first start (no admin token yet). The code sits
// in the URL fragment, so browsers never send it to a server or put it in a Referer; the UI
// takes it out of the address bar and trades it on `POST /signin` for a new admin access
// token, which it keeps as if the operator had pasted one. A code is 256 random bits, kept
// only as its SHA-256 and in this process's memory, works once (taken before anything is
// awaited, so two requests racing with it get one token between them) and expires after
// 15 minutes. It is printed to the server's standard output and nowhere else.

import { createHash, randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { Store } from '../../store/index.js'
import { createAccessToken } from './tokens.js'

/** How long a sign-in link works, by default. */
export const SIGNIN_LINK_TTL_MS = 15 * 60_000

/** The URL fragment parameter that carries the code. */
export const SIGNIN_FRAGMENT = 'signin'

const CODE_SHAPE = /^[A-Za-z0-9_-]{43}$/

/** What a redeemed link gave, or why it gave nothing. */
export type Redeemed = { token: string; tokenId: string } | { status: 400 | 401; error: string }

const hashOf = (code: string) => createHash('sha256').update(code).digest('hex')

/** The live sign-in links of this process. */
export class SignInLinks {
  /** hash → expiry, for codes not yet used. */
  private readonly live = new Map<string, number>()
  /** hash → expiry, for codes already used (to say so, until they would have expired). */
  private readonly used = new Map<string, number>()

  constructor(
    private readonly store: Store,
    private readonly options: { ttlMs?: number; now?: () => number } = {},
  ) {}

  private now(): number {
    return this.options.now?.() ?? Date.now()
  }

  /** Makes a new code; put it in the fragment of the UI's URL. */
  issue(): string {
    const code = randomBytes(32).toString('base64url')
    this.live.set(hashOf(code), this.now() + (this.options.ttlMs ?? SIGNIN_LINK_TTL_MS))
    return code
  }

  /** Whether the store has no admin token that is still valid (a first start). */
  async firstStart(): Promise<boolean> {
    const tokens = await this.store.listTokens()
    return !tokens.some((t) => t.role === 'admin' && t.revokedAt === undefined)
  }

  /**
   * Trades a code for a new admin access token, once.
   * @returns the token, or the HTTP status and a message safe to send back.
   */
  async redeem(code: unknown): Promise<Redeemed> {
    if (typeof code !== 'string' || !CODE_SHAPE.test(code)) {
      return { status: 400, error: 'send {"code": "<the code after #signin= in the link>"}' }
    }
    const now = this.now()
    for (const [hash, expires] of this.used) if (expires <= now) this.used.delete(hash)
    const hash = hashOf(code)
    const expires = this.live.get(hash)
    this.live.delete(hash)
    if (expires === undefined) {
      return {
        status: 401,
        error: this.used.has(hash)
          ? 'this sign-in link was already used; sign in with an access token from "warden tokens create"'
          : 'this sign-in link is not valid; sign in with an access token from "warden tokens create"',
      }
    }
    this.used.set(hash, expires)
    if (expires <= now) {
      return {
        status: 401,
        error:
          'this sign-in link has expired; restart warden serve for a new one, or sign in with an access token from "warden tokens create"',
      }
    }
    const created = await createAccessToken(this.store, {
      name: `sign-in link ${new Date(now).toISOString().slice(0, 16).replace('T', ' ')}`,
      role: 'admin',
    })
    return { token: created.token, tokenId: created.id }
  }
}

/** Registers `POST /signin` (JSON `{code}` → `{token}`), never cached. */
export function signInRoute(app: FastifyInstance, links: SignInLinks): void {
  app.post('/signin', { bodyLimit: 1024 }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const code = (request.body as { code?: unknown } | null | undefined)?.code
    const result = await links.redeem(code)
    if ('error' in result) return reply.code(result.status).send({ error: result.error })
    return reply.send({ token: result.token })
  })
}
