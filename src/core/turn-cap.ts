// A hook's cap on runs per turn (`maxInvocationsPerTurn`, GoClaw's
// `max_invocations_per_turn`): counts the runs of one hook per turn and refuses those
// beyond the cap. A turn is the context's `turnId` within its session and tenant (two
// sessions, or two tenants, that both call their turn "t-1" count apart), else the session
// within its tenant; without either the cap cannot apply. Memory is bounded: turns idle longer than
// the TTL are forgotten, and past the size limit the least recently used turn goes first.

import type { CheckedEvent } from './events.js'
import type { HookSpec } from './hook.js'

/** How long an idle turn is remembered, in ms. */
export const TURN_CAP_TTL_MS = 60 * 60 * 1000

/** How many turns one hook remembers at most. */
export const TURN_CAP_MAX_TURNS = 10_000

/** Bounds of a {@link TurnCap}. */
export interface TurnCapOptions {
  ttlMs?: number
  maxTurns?: number
  now?: () => number
}

/** The run counts of one hook per turn. */
export class TurnCap {
  /** Insertion order is recency order: a turn is moved to the end when it is used. */
  private readonly turns = new Map<string, { runs: number; seen: number }>()
  private readonly ttlMs: number
  private readonly maxTurns: number
  private readonly now: () => number

  constructor(
    readonly cap: number,
    options: TurnCapOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? TURN_CAP_TTL_MS
    this.maxTurns = options.maxTurns ?? TURN_CAP_MAX_TURNS
    this.now = options.now ?? Date.now
  }

  /**
   * Counts one run in the turn.
   * @returns the runs the turn already had when the cap is reached (the run must not
   *   happen), undefined when the run may go ahead.
   */
  take(turn: string): number | undefined {
    const now = this.now()
    this.forgetIdle(now)
    const entry = this.turns.get(turn)
    if (entry) {
      this.turns.delete(turn)
      entry.seen = now
      this.turns.set(turn, entry)
      if (entry.runs >= this.cap) return entry.runs
      entry.runs++
      return undefined
    }
    if (this.turns.size >= this.maxTurns) {
      const oldest = this.turns.keys().next()
      if (!oldest.done) this.turns.delete(oldest.value)
    }
    this.turns.set(turn, { runs: 1, seen: now })
    return undefined
  }

  /** Turns remembered now (for tests and metrics). */
  get size(): number {
    return this.turns.size
  }

  /** Drops turns idle longer than the TTL; they are the oldest, so it stops at a fresh one. */
  private forgetIdle(now: number): void {
    for (const [key, entry] of this.turns) {
      if (now - entry.seen < this.ttlMs) return
      this.turns.delete(key)
    }
  }
}

/** The turn an event belongs to, within its tenant and session; undefined when it names none. */
export function turnKeyOf(event: CheckedEvent): string | undefined {
  const context = event.context
  const turn = context.turnId
  const session = typeof context.session?.id === 'string' ? context.session.id : ''
  const tenant = typeof context.tenantId === 'string' ? context.tenantId : ''
  if (typeof turn === 'string' && turn !== '')
    return `${tenant.length}:${tenant}${session.length}:${session}turn:${turn}`
  if (session !== '') return `${tenant.length}:${tenant}${session.length}:${session}session`
  return undefined
}

/**
 * Why a hook may not run again in this event's turn, or undefined when it may (or when
 * the event names no turn). Counts the run when it is allowed.
 */
export function turnCapRefusal(cap: TurnCap, hook: HookSpec, event: CheckedEvent): string | undefined {
  const key = turnKeyOf(event)
  if (key === undefined) return undefined
  const runs = cap.take(key)
  if (runs === undefined) return undefined
  const context = event.context
  const turn =
    typeof context.turnId === 'string' && context.turnId !== ''
      ? `turn "${context.turnId}"`
      : `session "${context.session?.id}"`
  return `hook "${hook.name}" already ran ${runs} times in ${turn}, its cap (maxInvocationsPerTurn: ${cap.cap})`
}
