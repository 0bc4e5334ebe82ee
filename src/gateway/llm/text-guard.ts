// Streamed text, checked as it streams. The text so far is checked (`agent.response`) each
// time `checkEveryChars` new characters have come and at its end; after each check all
// of the checked (and possibly rewritten) text is released except its last
// `holdBackChars`, so a pattern cut across a check is seen whole before any of it goes
// out. A redaction is applied to what goes out; a rewrite that would change text already
// released ends the stream instead (the original is never sent in its place). With no hook
// on `agent.response`, text passes as it comes.

import type { ApiErrorInfo, StreamChecks } from './api.js'

/** What to release now, or the error that ends the stream. */
export type GuardStep = { ok: true; text: string } | { ok: false; error: ApiErrorInfo }

const NOTHING: GuardStep = { ok: true, text: '' }

/** One streamed text (a content block, a choice, an output part). */
export class TextGuard {
  /** Everything the upstream sent. */
  private original = ''
  /** What the client has been sent. */
  private released = ''
  /** Length of `original` at the last check. */
  private checked = 0

  constructor(private readonly checks: StreamChecks) {}

  /** All the upstream's text so far. */
  text(): string {
    return this.original
  }

  /** The text released so far. */
  out(): string {
    return this.released
  }

  /** Whether the released text differs from the upstream's so far (a redaction). */
  rewritten(): boolean {
    return this.released !== this.original.slice(0, this.released.length)
  }

  /** Takes a delta; returns what may be released now. */
  async push(delta: string): Promise<GuardStep> {
    this.original += delta
    if (!this.checks.checkText) {
      this.released += delta
      this.checked = this.original.length
      return { ok: true, text: delta }
    }
    if (this.original.length - this.checked < this.checks.every) return NOTHING
    return this.check(this.checks.holdBack)
  }

  /** The text ended: checks all of it and returns the rest to release. */
  async finish(): Promise<GuardStep> {
    if (!this.checks.checkText) return NOTHING
    if (this.original.length === this.checked && this.released.length === this.original.length) return NOTHING
    return this.check(0)
  }

  private async check(holdBack: number): Promise<GuardStep> {
    this.checked = this.original.length
    const checked = await this.checks.text(this.original)
    if (!checked.ok) return checked
    const candidate = checked.text
    if (!candidate.startsWith(this.released)) {
      return {
        ok: false,
        error: {
          status: 403,
          code: 'denied',
          message:
            'Warden ended the answer: a hook rewrote text that had already been sent (raise llm.stream.holdBackChars above the longest text a hook rewrites)',
        },
      }
    }
    const upTo = Math.max(this.released.length, candidate.length - holdBack)
    const release = candidate.slice(this.released.length, upTo)
    this.released += release
    return { ok: true, text: release }
  }
}
