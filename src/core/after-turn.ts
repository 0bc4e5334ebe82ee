// Work handed over while a decision is answered, done once the answer has left: items are
// kept (up to a bound) and handed on together after the current turn of the event loop,
// so that what comes after a decision (OCSF events, notifications) never delays it.

/** Items handed on together after the turn they arrived in, at most `max` waiting. */
export class AfterTurnQueue<T> {
  private items: T[] = []
  private scheduled = false

  constructor(
    private readonly max: number,
    private readonly handle: (items: T[]) => void,
  ) {}

  /** Keeps an item for after this turn; false when `max` are already waiting (it is not kept). */
  push(item: T): boolean {
    if (this.items.length >= this.max) return false
    this.items.push(item)
    if (!this.scheduled) {
      this.scheduled = true
      setImmediate(() => this.flush())
    }
    return true
  }

  /** Hands on what waits now (at the end of the turn, or at once when closing). */
  flush(): void {
    this.scheduled = false
    if (this.items.length === 0) return
    const items = this.items
    this.items = []
    this.handle(items)
  }
}
