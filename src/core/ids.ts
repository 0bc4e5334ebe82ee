// Decision ids: a random per-engine prefix and a sequence number, `<16 hex>-<n>`. Turning
// a fresh number into a string on every dispatch is a large share of a dispatch that runs
// no hook, so the last three digits come from a precomputed table and the rest is rebuilt
// only once every thousand ids. The ids read exactly as `prefix + n`.

const SMALL: readonly string[] = Array.from({ length: 1000 }, (_, i) => String(i))
const PADDED: readonly string[] = SMALL.map((s) => s.padStart(3, '0'))

/** Hands out the ids of one engine's decisions. */
export class DecisionIds {
  private readonly prefix: string
  /** `prefix` plus the thousands of the current sequence number; unused below 1000. */
  private head: string
  private thousands = 0
  private low = 0

  /** @param prefix what every id starts with (random, so ids from engines do not collide). */
  constructor(prefix: string) {
    this.prefix = prefix
    this.head = prefix
  }

  /** The next id: the prefix and the sequence number 1, 2, 3, ... */
  next(): string {
    let low = this.low + 1
    if (low === 1000) {
      low = 0
      this.thousands += 1
      this.head = this.prefix + this.thousands
    }
    this.low = low
    return this.thousands === 0 ? this.prefix + (SMALL[low] as string) : this.head + (PADDED[low] as string)
  }
}

/** A fresh random id prefix: 16 hex characters and a dash. */
export function randomIdPrefix(): string {
  return `${globalThis.crypto.randomUUID().replaceAll('-', '').slice(0, 16)}-`
}
