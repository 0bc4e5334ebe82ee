// Decisions whose audit record was refused (the queue was full, or the writer closed) are
// never written anywhere, so they are made visible elsewhere: each one is counted at once
// (the metrics) and a warning is given at most once per interval, summing up the refusals
// since the last one, so an overloaded store cannot also flood the log.

import type { AuditDrop } from './writer.js'

/** The refusals since the last warning. */
export interface DropSummary {
  /** Records refused. */
  dropped: number
  /** Of those, blocking decisions (the engine denied them). */
  denied: number
  /** Refusals per event. */
  events: Record<string, number>
  /** Refusals per cause. */
  causes: Partial<Record<AuditDrop['cause'], number>>
  /** Decisions waiting to be written at the last refusal. */
  queueDepth: number
}

/** Options of {@link createDropReporter}. */
export interface DropReporterOptions {
  /** Called for every refusal (e.g. a metrics counter). */
  count?: (drop: AuditDrop) => void
  /** Given the summary: at the first refusal, then at most once per interval. */
  warn: (summary: DropSummary) => void
  /** Shortest time between two warnings, in ms. Default 1000. */
  intervalMs?: number
}

/** A running reporter. */
export interface DropReporter {
  drop(drop: AuditDrop): void
  /** Gives the warning still held back, if any, and stops the timer. */
  close(): void
}

function empty(): DropSummary {
  return { dropped: 0, denied: 0, events: {}, causes: {}, queueDepth: 0 }
}

/** The message a summary is logged with: what happened and what to do. */
export function describeDrops(summary: DropSummary): string {
  const full = summary.causes['queue-full'] ?? 0
  const why =
    full > 0
      ? `the audit queue is full (${summary.queueDepth} waiting to be written); check that the database keeps up or raise audit.maxQueue`
      : 'the audit writer is closed'
  return `${summary.dropped} decision(s) could not be recorded, ${summary.denied} of them blocking and therefore denied: ${why}`
}

/** Creates a reporter that counts every refusal and warns at most once per interval. */
export function createDropReporter(options: DropReporterOptions): DropReporter {
  const intervalMs = Math.max(1, options.intervalMs ?? 1000)
  let held = empty()
  let timer: ReturnType<typeof setTimeout> | undefined

  function give(): void {
    if (held.dropped === 0) {
      timer = undefined
      return
    }
    const summary = held
    held = empty()
    options.warn(summary)
    timer = setTimeout(give, intervalMs)
    timer.unref?.()
  }

  return {
    drop(drop) {
      options.count?.(drop)
      held.dropped += 1
      if (drop.blocking) held.denied += 1
      held.events[drop.event] = (held.events[drop.event] ?? 0) + 1
      held.causes[drop.cause] = (held.causes[drop.cause] ?? 0) + 1
      held.queueDepth = drop.queueDepth
      if (!timer) give()
    },
    close() {
      if (timer) clearTimeout(timer)
      timer = undefined
      if (held.dropped > 0) {
        const summary = held
        held = empty()
        options.warn(summary)
      }
    },
  }
}
