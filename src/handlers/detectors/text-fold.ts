// Reading text through invisible characters: zero-width spaces and joiners, soft hyphens,
// bidi controls, variation selectors and Unicode tag characters are dropped, and full-width
// ASCII is folded to ASCII, so `ghp_ab\u200bcd…` reads as the key it is. Each character of
// the folded text remembers where it came from, so findings map back to the original spans.

/** Ranges of code points a reader does not see (inclusive). */
const INVISIBLE: readonly [number, number][] = [
  [0xad, 0xad],
  [0x34f, 0x34f],
  [0x61c, 0x61c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xe0000, 0xe0fff],
]

/** True for a code point a reader does not see. */
export function isInvisible(code: number): boolean {
  for (const [low, high] of INVISIBLE) if (code >= low && code <= high) return true
  return false
}

/** Text as read, and for each of its characters the index in the original (plus the end). */
export interface FoldedText {
  text: string
  /** `from[i]` is where folded character `i` came from; undefined when nothing was folded. */
  from: number[] | undefined
  /** True when invisible characters were dropped. */
  hidden: boolean
}

/** Drops invisible characters and folds full-width ASCII; plain ASCII comes back as is. */
export function foldInvisible(text: string): FoldedText {
  if (!/[^\x00-\x7f]/.test(text)) return { text, from: undefined, hidden: false }
  let out = ''
  const from: number[] = []
  let hidden = false
  for (let i = 0; i < text.length; i++) {
    const code = text.codePointAt(i) as number
    const width = code > 0xffff ? 2 : 1
    if (code > 0x7f && isInvisible(code)) {
      hidden = true
    } else if (code >= 0xff01 && code <= 0xff5e) {
      out += String.fromCharCode(code - 0xfee0)
      from.push(i)
    } else {
      out += text.slice(i, i + width)
      from.push(i)
      if (width === 2) from.push(i + 1)
    }
    i += width - 1
  }
  from.push(text.length)
  return { text: out, from, hidden }
}

/** Maps an index of the folded text back to the original text. */
export function originalIndex(folded: FoldedText, index: number, length: number): number {
  return folded.from ? (folded.from[index] ?? length) : index
}
