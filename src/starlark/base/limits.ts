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
