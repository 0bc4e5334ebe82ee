// Counts that are reported at most once a period per key: what was dropped (OCSF events,
// notification items) is counted as it happens, and a log line says how many since the
// last line, so that a dead endpoint makes one line every few seconds, not one per item.
// No clock of its own: the caller passes the time.

/** Per-key counts, each released at most once per `everyMs`. */
export class ThrottledCount {
  private readonly pending = new Map<string, { at: number; count: number }>()

  constructor(private readonly everyMs: number) {}

  /**
   * Adds `count` under `key`.
   * @returns the count gathered since the key was last released, when a release is due
   *   (the first time, or `everyMs` after the last one); undefined otherwise.
   */
  add(key: string, count: number, now: number): number | undefined {
    const last = this.pending.get(key) ?? { at: Number.NEGATIVE_INFINITY, count: 0 }
    last.count += count
    this.pending.set(key, last)
    if (now - last.at < this.everyMs) return undefined
    const total = last.count
    last.at = now
    last.count = 0
    return total
  }
}
