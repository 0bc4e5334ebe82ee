// Execution limits and the per-execution Thread that counts steps, call depth and wall time.

import { limitError } from './errors.js'
import type { Pos } from './pos.js'

/** Resource limits for one execution (a module run or a host call). */
export interface Limits {
  /** Loop iterations, calls and comprehension iterations allowed. */
  maxSteps: number
  /** Longest string a program may build, in UTF-16 code units. */
  maxStringLength: number
  /** Most elements a list, tuple or dict may hold. */
  maxCollectionLength: number
  /** Deepest chain of nested Starlark calls. */
  maxCallDepth: number
  /** Deepest nesting of expressions and blocks the parser accepts. */
  maxNestingDepth: number
  /** Largest integer magnitude, in bits. */
  maxIntBits: number
  /** Wall-clock budget in milliseconds, checked every few hundred steps. */
  maxWallTimeMs: number
}

/** The limits used when an execution does not set its own. */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  maxSteps: 1_000_000,
  maxStringLength: 10 * 1024 * 1024,
  maxCollectionLength: 1_000_000,
  maxCallDepth: 200,
  maxNestingDepth: 200,
  maxIntBits: 65_536,
  maxWallTimeMs: 1000,
})

/** Merges partial limits over the defaults. */
export function resolveLimits(limits?: Partial<Limits>): Limits {
  if (limits === undefined) return { ...DEFAULT_LIMITS }
  const merged: Limits = { ...DEFAULT_LIMITS }
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof Limits)[]) {
    const value = limits[key]
    if (typeof value === 'number' && value >= 0) merged[key] = value
  }
  return merged
}

const WALL_CHECK_INTERVAL = 256
/**
 * Units of work (characters, or list elements weighted by {@link ITEM_WORK}) that count as
 * one step: a builtin or operator that handles a large value is charged before it runs, so
 * the step and wall-time checks see the work a single call does, not just the call.
 */
export const WORK_PER_STEP = 1024
/** Work units charged per element of a list, tuple or dict. */
export const ITEM_WORK = 8
/** Calls on at least this much work are timed, and refused when they would pass the deadline. */
export const TIMED_WORK = 64 * 1024
/** Assumed cost of a unit of work, in milliseconds, until a call of that kind has been timed. */
const DEFAULT_MS_PER_UNIT = 50e-6
/**
 * Milliseconds per unit of work measured for each kind of call (by name), averaged over the
 * recent timed calls of every execution: only a pace, no value of any program.
 */
const paces = new Map<string, number>()
/** How much slower than its measured pace a call is assumed it may run. */
const PACE_MARGIN = 1.25
/** Most kinds of call whose pace is kept. */
const MAX_PACES = 256
// The clock starts at this step, so that short calls never read it.
const FIRST_CHECK = 32

/**
 * The state of one execution: step counter, call depth, limits, print callback and
 * host data. Host builtins receive it as their third argument.
 */
export class Thread {
  readonly limits: Limits
  readonly print: (message: string) => void
  /** Free slot for the host (e.g. the event being handled). */
  readonly hostData: unknown
  steps = 0
  depth = 0
  /** Position of the call being made, set just before each call (builtins may read it). */
  site: Pos | null = null
  /** Step count at which {@link checkpoint} runs next. */
  nextCheck: number
  /** Wall-clock deadline; set at the first checkpoint so that short calls never read the clock. */
  private deadline = 0
  /** Work charged that has not yet made a whole step. */
  private work = 0

  constructor(limits: Limits, print?: (message: string) => void, hostData?: unknown) {
    this.limits = limits
    this.print = print ?? (() => {})
    this.hostData = hostData
    this.nextCheck = Math.min(limits.maxSteps + 1, FIRST_CHECK)
  }

  /** Counts one step; cheap enough to call on every loop iteration. */
  step(): void {
    if (++this.steps >= this.nextCheck) this.checkpoint()
  }

  /**
   * Charges `units` of work (see {@link WORK_PER_STEP}) before a builtin or operator does it,
   * so a limit is hit before the work, not only at the next loop iteration.
   */
  charge(units: number): void {
    const work = this.work + units
    if (work < WORK_PER_STEP) {
      this.work = work
      return
    }
    const steps = Math.floor(work / WORK_PER_STEP)
    this.work = work - steps * WORK_PER_STEP
    this.steps += steps
    if (this.steps >= this.nextCheck) this.checkpoint()
  }

  /**
   * Before a call that works on `units` (a builtin, a method): from {@link TIMED_WORK} up,
   * refuses it when, at the pace measured for calls named `name`, it would end past
   * the wall-time deadline, so that one large call cannot overrun the limit.
   * @returns the start time to pass to {@link endWork}, or 0 when the call is not timed.
   */
  beginWork(name: string, units: number): number {
    if (units < TIMED_WORK || this.limits.maxWallTimeMs <= 0) return 0
    const now = performance.now()
    if (this.deadline === 0) this.deadline = Date.now() + this.limits.maxWallTimeMs
    const expected = units * (paces.get(name) ?? DEFAULT_MS_PER_UNIT) * PACE_MARGIN
    const left = this.deadline - Date.now()
    if (expected > left) {
      throw limitError(
        `wall time limit exceeded (limit maxWallTimeMs = ${this.limits.maxWallTimeMs} ms): ${name} on ${units} characters or elements would take about ${Math.ceil(expected)} ms, ${Math.max(0, Math.floor(left))} ms are left`,
      )
    }
    return now
  }

  /** After a call {@link beginWork} timed: records its pace for the next call of that kind. */
  endWork(name: string, units: number, started: number): void {
    if (started === 0) return
    const pace = (performance.now() - started) / units
    const known = paces.get(name)
    if (known === undefined && paces.size >= MAX_PACES) paces.clear()
    // A slower call counts at once (the machine got busier); a faster one only halfway.
    paces.set(name, known === undefined ? pace : Math.max(pace, (known + pace) / 2))
  }

  /** Runs every few hundred steps: enforces the step and wall-time limits. */
  checkpoint(): void {
    if (this.steps > this.limits.maxSteps) {
      throw limitError(`execution step limit exceeded (limit maxSteps = ${this.limits.maxSteps})`)
    }
    const now = Date.now()
    if (this.deadline === 0) {
      this.deadline =
        this.limits.maxWallTimeMs > 0 ? now + this.limits.maxWallTimeMs : Number.POSITIVE_INFINITY
    } else if (now > this.deadline) {
      throw limitError(`wall time limit exceeded (limit maxWallTimeMs = ${this.limits.maxWallTimeMs} ms)`)
    }
    this.nextCheck = Math.min(this.limits.maxSteps + 1, this.steps + WALL_CHECK_INTERVAL)
  }

  /** Throws a limit error if a string of `length` would be too long. */
  checkString(length: number): void {
    if (length > this.limits.maxStringLength) {
      throw limitError(
        `string too long: ${length} characters (limit maxStringLength = ${this.limits.maxStringLength})`,
      )
    }
  }

  /** Throws a limit error if a collection of `length` elements would be too long. */
  checkCollection(length: number): void {
    if (length > this.limits.maxCollectionLength) {
      throw limitError(
        `collection too large: ${length} elements (limit maxCollectionLength = ${this.limits.maxCollectionLength})`,
      )
    }
  }
}
