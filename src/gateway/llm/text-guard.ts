// Streamed text, checked as it streams, in linear time. Each time `checkEveryChars` new
// characters have come, a window is checked (`agent.response`): the text not yet released
// (the last check's hold-back) plus the new text, never the text from the start. After each
// check all of the window's checked (and possibly rewritten) text is released except its last
// `holdBackChars`, so a pattern no longer than the hold-back that is cut across two checks is
// seen whole before any of it goes out. At the end of the text, the whole text is checked
// once (hooks that need all of it get it there), and the rest is released. A redaction is
// applied to what goes out; a rewrite that would change text already released ends the
// stream instead (the original is never sent in its place); so does text past
// `llm.stream.maxTextChars`. Window checks are audited only when they deny; the end check is
// the answer's one decision and names the windows a hook changed. With no hook on
// `agent.response`, text passes as it comes.

import type { ApiErrorInfo, StreamChecks, WindowDecision } from './api.js'

/** What to release now, or the error that ends the stream. */
export type GuardStep = { ok: true; text: string } | { ok: false; error: ApiErrorInfo }

const NOTHING: GuardStep = { ok: true, text: '' }

/** A window a hook keeps rewriting at its end may grow to this many times its usual size. */
const WINDOW_GROWTH = 64

/** One streamed text (a content block, a choice, an output part). */
export class TextGuard {
  /** What the upstream sent, in pieces (joined once, at the end). */
  private readonly pieces: string[] = []
  private length = 0
  /** What the client has been sent, in pieces. */
  private readonly sent: string[] = []
  private joined: { original?: string; released?: string } = {}
  /** The upstream's text from the window's start: what the next check sees. */
  private window = ''
  /** What was released of the window so far (a rewrite must keep it). */
  private windowReleased = ''
  /** Where the window starts in the upstream's text. */
  private anchor = 0
  /** Length of the upstream's text at the last check. */
  private checked = 0
  private windows = 0
  private readonly decided: WindowDecision[] = []
  private changed = false

  constructor(private readonly checks: StreamChecks) {}

  /** All the upstream's text so far. */
  text(): string {
    this.joined.original ??= this.pieces.join('')
    return this.joined.original
  }

  /** The text released so far. */
  out(): string {
    this.joined.released ??= this.sent.join('')
    return this.joined.released
  }

  /** Whether a hook changed the text (what was released differs from the upstream's). */
  rewritten(): boolean {
    return this.changed
  }

  /** Takes a delta; returns what may be released now. */
  async push(delta: string): Promise<GuardStep> {
    this.pieces.push(delta)
    this.length += delta.length
    if (this.joined.original !== undefined || this.joined.released !== undefined) this.joined = {}
    if (!this.checks.checkText) {
      this.sent.push(delta)
      this.checked = this.length
      return { ok: true, text: delta }
    }
    this.window += delta
    const cap = this.checks.maxChars
    if (cap !== undefined && this.length > cap) return tooLong(cap)
    if (this.length - this.checked < this.checks.every) return NOTHING
    return this.checkWindow()
  }

  /** The text ended: checks all of it once and returns the rest to release. */
  async finish(): Promise<GuardStep> {
    if (!this.checks.checkText || this.length === 0) return NOTHING
    this.checked = this.length
    const whole = this.text()
    const released = this.out()
    const checked = await this.checks.text(whole, {
      offset: 0,
      final: true,
      windows: this.windows,
      decided: this.decided,
    })
    if (!checked.ok) return checked
    if (!checked.text.startsWith(released)) return rewroteSent()
    if (checked.text !== whole) this.changed = true
    return this.release(checked.text.slice(released.length))
  }

  /** Checks the window, releases all of it but the hold-back, and moves the window on. */
  private async checkWindow(): Promise<GuardStep> {
    this.checked = this.length
    const window = this.window
    const offset = this.anchor
    this.windows++
    const checked = await this.checks.text(window, { offset, final: false })
    if (!checked.ok) return checked
    const candidate = checked.text
    if (!candidate.startsWith(this.windowReleased)) return rewroteSent()
    if (candidate !== window) {
      this.changed = true
      this.decided.push({
        offset,
        chars: window.length,
        decision: checked.decision ?? 'modify',
        reason: checked.reason ?? '',
      })
    }
    const holdBack = this.checks.holdBack
    const upTo = Math.max(this.windowReleased.length, candidate.length - holdBack)
    const release = candidate.slice(this.windowReleased.length, upTo)
    const held = candidate.length - upTo
    if (candidate === window || commonSuffix(candidate, window, held) >= held) {
      // What is held is the upstream's own text: the next window starts there.
      this.anchor += window.length - held
      this.window = window.slice(window.length - held)
      this.windowReleased = ''
    } else {
      // A hook rewrote the held text: the next check sees this window again, grown.
      this.windowReleased += release
      const most = WINDOW_GROWTH * (this.checks.every + holdBack)
      if (this.window.length > most) return windowTooLong(most)
    }
    return this.release(release)
  }

  private release(text: string): GuardStep {
    if (text === '') return NOTHING
    this.sent.push(text)
    this.joined.released = undefined
    return { ok: true, text }
  }
}

/** How many characters `a` and `b` share at their ends, counting up to `most`. */
function commonSuffix(a: string, b: string, most: number): number {
  const limit = Math.min(most, a.length, b.length)
  let n = 0
  while (n < limit && a.charCodeAt(a.length - 1 - n) === b.charCodeAt(b.length - 1 - n)) n++
  return n
}

function rewroteSent(): GuardStep {
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

function tooLong(cap: number): GuardStep {
  return {
    ok: false,
    error: {
      status: 403,
      code: 'text_too_long',
      message: `Warden ended the answer: its streamed text passed ${cap} characters, the most Warden checks (llm.stream.maxTextChars)`,
    },
  }
}

function windowTooLong(most: number): GuardStep {
  return {
    ok: false,
    error: {
      status: 403,
      code: 'denied',
      message: `Warden ended the answer: a hook kept rewriting the held text for over ${most} characters (raise llm.stream.holdBackChars above the longest text a hook rewrites)`,
    },
  }
}
