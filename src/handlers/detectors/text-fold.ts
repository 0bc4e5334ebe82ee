// Reading text through invisible characters: zero-width spaces and joiners, soft hyphens,
// bidi controls, variation selectors and Unicode tag characters are dropped, and full-width
// ASCII is folded to ASCII, so `ghp_ab\u200bcd…` reads as the key it is. Each character of
// the folded text remembers where it came from, so findings map back to the original spans.

/** Characters a reader does not see. */
const INVISIBLE =
  /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]/

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
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
  if (!/[^\x00-\x7f]/.test(text)) return { text, from: undefined, hidden: false }
  let out = ''
  const from: number[] = []
  let hidden = false
  for (let i = 0; i < text.length; i++) {
    const code = text.codePointAt(i) as number
    const width = code > 0xffff ? 2 : 1
    if ((code >= 0xe0000 && code <= 0xe0fff) || INVISIBLE.test(String.fromCharCode(code))) {
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
