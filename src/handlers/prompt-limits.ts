// What keeps the LLM judge cheap and bounded: a decision cache keyed by hook version and
// input hash (TTL 60 s), a cap on judge calls per turn (5), and a monthly token budget per
// tenant. All in memory and bounded in size; the token ledger is an interface so a store
// can keep it across restarts and instances.

import { createHash } from 'node:crypto'
import type { Verdict } from '../core/index.js'

/** Default lifetime of a cached judge decision. */
export const JUDGE_CACHE_TTL_MS = 60_000
/** Default judge calls allowed per turn. */
export const JUDGE_CALLS_PER_TURN = 5
/** Default monthly token budget per tenant. */
export const JUDGE_MONTHLY_TOKENS = 1_000_000

const MAX_ENTRIES = 10_000

/** Tokens used per tenant per month. May be backed by the store. */
export interface TokenLedger {
  used(tenant: string, month: string): number | Promise<number>
  add(tenant: string, month: string, tokens: number): void | Promise<void>
}

/** An in-memory token ledger. */
export function memoryTokenLedger(): TokenLedger {
  const totals = new Map<string, number>()
  return {
    used: (tenant, month) => totals.get(`${tenant}\n${month}`) ?? 0,
    add(tenant, month, tokens) {
      const key = `${tenant}\n${month}`
      totals.set(key, (totals.get(key) ?? 0) + tokens)
    },
  }
}

/** The month a time falls in, as `YYYY-MM` (UTC). */
export function monthOf(time: number): string {
  return new Date(time).toISOString().slice(0, 7)
}

/** A stable JSON text: object keys sorted at every level. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** The cache key of one judged call: hook id and version, event, and a hash of the tenant, tool name and input (a verdict is never served across tenants). */
export function judgeCacheKey(
  hookId: string,
  version: number,
  event: string,
  toolName: string,
  input: unknown,
  tenant = '',
): string {
  const hash = createHash('sha256').update(canonicalJson({ tenant, toolName, input })).digest('base64url')
  return `${hookId}@${version}|${event}|${hash}`
}

/** A bounded map whose entries expire. */
export class DecisionCache {
  private readonly entries = new Map<string, { verdict: Verdict; expires: number }>()
  constructor(
    private readonly ttlMs: number = JUDGE_CACHE_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): Verdict | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    if (entry.expires <= this.now()) {
      this.entries.delete(key)
      return undefined
    }
    return entry.verdict
  }

  set(key: string, verdict: Verdict): void {
    if (this.ttlMs <= 0) return
    this.entries.delete(key)
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next()
      if (!oldest.done) this.entries.delete(oldest.value)
    }
    this.entries.set(key, { verdict, expires: this.now() + this.ttlMs })
  }
}

/** Counts judge calls per turn and refuses those beyond the cap. */
export class TurnCounter {
  private readonly counts = new Map<string, number>()
  constructor(private readonly cap: number = JUDGE_CALLS_PER_TURN) {}

  /** Takes one call from the turn's allowance; false when the turn has none left. */
  take(turnKey: string): boolean {
    const used = this.counts.get(turnKey) ?? 0
    if (used >= this.cap) return false
    if (!this.counts.has(turnKey) && this.counts.size >= MAX_ENTRIES) {
      const oldest = this.counts.keys().next()
      if (!oldest.done) this.counts.delete(oldest.value)
    }
    this.counts.set(turnKey, used + 1)
    return true
  }

  get limit(): number {
    return this.cap
  }
}

/** How the judge handler's budget failures start (the security log tells them apart by it). */
export const BUDGET_FAILURE_PREFIX = {
  precheck: 'the judge budget could not be checked: ',
  deduct: 'the judge tokens could not be counted: ',
} as const
