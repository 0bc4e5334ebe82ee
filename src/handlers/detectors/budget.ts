// The bounds every content detector holds while it scans one string: the most characters it
// reads and a work budget that grows linearly with the input. Reaching either is a finding of
// its own (`scan-limit`), never a silent pass, and an exception inside a scan becomes such a
// finding too, so a detector never throws and never lets unread input through.

import { DEFAULT_MAX_SCAN_CHARS, type Finding, SCAN_LIMIT_KIND, type ScanContext } from './types.js'

/** Work units a scan may spend per character of input, on top of {@link BASE_WORK}. */
export const WORK_PER_CHAR = 64
/** Work units every scan may spend whatever its length. */
export const BASE_WORK = 100_000

/** Counts the work one scan does; `charge` answers false once the budget is spent. */
export class WorkBudget {
  spent = 0
  constructor(readonly limit: number) {}

  /** Adds `units` of work; false when the budget is now exceeded. */
  charge(units: number): boolean {
    this.spent += units
    return this.spent <= this.limit
  }

  /** True once more work was charged than the budget allows. */
  get exhausted(): boolean {
    return this.spent > this.limit
  }
}

/** The budget of a scan of `length` characters (or the one the context sets). */
export function budgetFor(length: number, context?: ScanContext, perChar = WORK_PER_CHAR): WorkBudget {
  return new WorkBudget(context?.budget ?? BASE_WORK + perChar * length)
}

/** A finding that covers the whole text and says which bound was reached. */
export function limitFinding(text: string, detail: string): Finding {
  return { kind: SCAN_LIMIT_KIND, start: 0, end: text.length, detail }
}

/**
 * Wraps a detector's scan in its bounds: text longer than `maxChars` is not read, a budget
 * (`perChar` units per character) spent before the end and any exception are answered with
 * a `scan-limit` finding (the findings made before it are kept).
 */
export function bounded(
  name: string,
  scan: (
    text: string,
    budget: WorkBudget,
    key: string | undefined,
    context: ScanContext | undefined,
  ) => Finding[],
  perChar = WORK_PER_CHAR,
): (text: string, key?: string, context?: ScanContext) => Finding[] {
  return (text, key, context) => {
    const maxChars = context?.maxChars ?? DEFAULT_MAX_SCAN_CHARS
    if (text.length > maxChars)
      return [
        limitFinding(text, `${name} detector did not read ${text.length} characters, more than ${maxChars}`),
      ]
    const budget = budgetFor(text.length, context, perChar)
    let findings: Finding[]
    try {
      findings = scan(text, budget, key, context)
    } catch (error) {
      const cause = error instanceof Error ? error.message.slice(0, 200) : 'unknown error'
      return [limitFinding(text, `${name} detector could not read this text (${cause})`)]
    }
    if (budget.exhausted)
      findings.push(
        limitFinding(
          text,
          `${name} detector stopped at its work budget (${budget.limit} units) before the end`,
        ),
      )
    return findings
  }
}
