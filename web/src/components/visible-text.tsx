// Text an approver must be able to trust, shown as a code review tool shows it: runs of
// spaces as `·` (long runs counted), tabs as `→`, line breaks as `↵`, other control,
// invisible and look-alike space characters as their code point, and bidirectional controls
// (which reorder what is read) as flagged code points. JSON is shown with every key
// and string so marked, wrapped, quotes and backslashes escaped so a value cannot pose as
// structure.

import type { ComponentChildren } from 'preact'

/** What was made visible, for the notice above the text. */
export interface Findings {
  /** Runs of two or more spaces, and the longest. */
  spaceRuns: number
  longestRun: number
  /** Line breaks and tabs inside values. */
  breaks: number
  tabs: number
  /** Other control characters. */
  controls: number
  /** Invisible, formatting and look-alike space characters. */
  invisible: number
  /** Bidirectional controls: the code points seen. */
  bidi: string[]
}

/** An empty tally. */
export function noFindings(): Findings {
  return { spaceRuns: 0, longestRun: 0, breaks: 0, tabs: 0, controls: 0, invisible: 0, bidi: [] }
}

function isBidi(cp: number): boolean {
  return (
    cp === 0x61c ||
    cp === 0x200e ||
    cp === 0x200f ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2066 && cp <= 0x2069)
  )
}

/** Characters that show as nothing, or as a space that is not one: format characters, other spaces, fillers. */
const INVISIBLE = /[\p{Cf}\p{Zs}\p{Zl}\p{Zp}\u115f\u1160\u3164\uffa0]/u

/** The combining grapheme joiner and variation selectors, which join what is next to them. */
function isJoiner(cp: number): boolean {
  return cp === 0x34f || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef)
}

function codePoint(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`
}

function mark(kind: string, text: string, title: string, key: number): ComponentChildren {
  return (
    <span key={key} class={`vis vis-${kind}`} title={title}>
      {text}
    </span>
  )
}

/**
 * The nodes that show TEXT with its hidden characters visible, tallying them in FOUND.
 * With `quoted`, `"` and `\` are escaped as in JSON.
 */
export function visibleNodes(text: string, found: Findings, quoted = false): ComponentChildren[] {
  const out: ComponentChildren[] = []
  let plain = ''
  const flush = () => {
    if (plain) out.push(plain)
    plain = ''
  }
  const chars = Array.from(text)
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] as string
    const cp = ch.codePointAt(0) ?? 0
    if (ch === ' ') {
      let end = i + 1
      while (chars[end] === ' ') end++
      const run = end - i
      if (run === 1) {
        plain += ' '
        continue
      }
      flush()
      found.spaceRuns++
      found.longestRun = Math.max(found.longestRun, run)
      out.push(mark('space', run <= 8 ? '·'.repeat(run) : `·×${run}`, `${run} spaces`, out.length))
      i = end - 1
    } else if (quoted && (ch === '"' || ch === '\\')) {
      plain += `\\${ch}`
    } else if (cp === 0x0a) {
      flush()
      found.breaks++
      out.push(mark('ctl', '↵', 'line break', out.length), '\n')
    } else if (cp === 0x09) {
      flush()
      found.tabs++
      out.push(mark('ctl', '→', 'tab', out.length))
    } else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) {
      flush()
      found.controls++
      out.push(mark('ctl', `⟨${codePoint(cp)}⟩`, `control character ${codePoint(cp)}`, out.length))
    } else if (isBidi(cp)) {
      flush()
      if (!found.bidi.includes(codePoint(cp))) found.bidi.push(codePoint(cp))
      out.push(mark('bidi', `⟨${codePoint(cp)}⟩`, `bidirectional control ${codePoint(cp)}`, out.length))
    } else if (INVISIBLE.test(ch) || isJoiner(cp)) {
      flush()
      found.invisible++
      out.push(mark('inv', `⟨${codePoint(cp)}⟩`, `invisible character ${codePoint(cp)}`, out.length))
    } else {
      plain += ch
    }
  }
  flush()
  return out
}

/** Pretty JSON whose keys and strings show their hidden characters. */
function jsonNodes(value: unknown, indent: string, found: Findings): ComponentChildren[] {
  if (typeof value === 'string') return ['"', ...visibleNodes(value, found, true), '"']
  if (Array.isArray(value)) {
    if (value.length === 0) return ['[]']
    const inner = `${indent}  `
    const out: ComponentChildren[] = ['[\n']
    value.forEach((item, i) => {
      out.push(inner, ...jsonNodes(item, inner, found), i < value.length - 1 ? ',\n' : '\n')
    })
    out.push(`${indent}]`)
    return out
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
    if (entries.length === 0) return ['{}']
    const inner = `${indent}  `
    const out: ComponentChildren[] = ['{\n']
    entries.forEach(([key, item], i) => {
      out.push(inner, '"', ...visibleNodes(key, found, true), '": ')
      out.push(...jsonNodes(item, inner, found), i < entries.length - 1 ? ',\n' : '\n')
    })
    out.push(`${indent}}`)
    return out
  }
  return [value === undefined ? 'null' : JSON.stringify(value)]
}

/** Renders VALUE as JSON with hidden characters visible; FOUND is filled in. */
export function visibleJson(value: unknown, found: Findings): ComponentChildren[] {
  return jsonNodes(value, '', found)
}

/** A sentence listing what was made visible, or undefined when nothing was. */
export function describeFindings(found: Findings): string | undefined {
  const parts: string[] = []
  const count = (n: number, one: string, many: string) => (n === 1 ? `1 ${one}` : `${n} ${many}`)
  if (found.spaceRuns > 0)
    parts.push(`${count(found.spaceRuns, 'run', 'runs')} of spaces (longest ${found.longestRun}) as ·`)
  if (found.breaks > 0) parts.push(`${count(found.breaks, 'line break', 'line breaks')} as ↵`)
  if (found.tabs > 0) parts.push(`${count(found.tabs, 'tab', 'tabs')} as →`)
  if (found.controls > 0) parts.push(count(found.controls, 'control character', 'control characters'))
  if (found.invisible > 0) parts.push(count(found.invisible, 'invisible character', 'invisible characters'))
  return parts.length > 0 ? `Shown visibly: ${parts.join(', ')}.` : undefined
}
