// A small code editor for Starlark: the real input is a <textarea> (labelled, so screen
// readers and the keyboard work as with any field) laid over a <pre> that shows the same
// text highlighted, with line numbers beside it. Tab indents with spaces (Shift+Tab
// outdents; Esc then Tab leaves the editor), Enter keeps the indentation, and the line a
// script error names is marked, with the message under the editor.

import type { ComponentChildren } from 'preact'
import { useLayoutEffect, useMemo, useRef } from 'preact/hooks'

const INDENT = 4

const KEYWORDS = new Set([
  'and',
  'break',
  'continue',
  'def',
  'elif',
  'else',
  'for',
  'if',
  'in',
  'lambda',
  'load',
  'not',
  'or',
  'pass',
  'return',
  'while',
  // Python words Starlark reserves: shown as keywords, so a slip stands out.
  'as',
  'class',
  'del',
  'except',
  'finally',
  'from',
  'global',
  'import',
  'is',
  'nonlocal',
  'raise',
  'try',
  'with',
  'yield',
])

const CONSTANTS = new Set(['True', 'False', 'None'])

/** Warden's script builtins first, then Starlark's own. */
const BUILTINS = new Set([
  'allow',
  'block',
  'modify',
  'ask',
  'log',
  'context',
  'metrics',
  'cache',
  'http',
  'print',
  'len',
  'str',
  'int',
  'float',
  'bool',
  'list',
  'dict',
  'tuple',
  'range',
  'enumerate',
  'zip',
  'sorted',
  'reversed',
  'min',
  'max',
  'any',
  'all',
  'abs',
  'hasattr',
  'getattr',
  'type',
  'repr',
  'fail',
  'hash',
  'dir',
])

/** A comment, a string (maybe prefixed, maybe triple-quoted, maybe unterminated), a number or a name. */
const TOKEN =
  /(#[^\n]*)|((?:[rR][bB]?|[bB][rR]?)?(?:'''[\s\S]*?(?:'''|$)|"""[\s\S]*?(?:"""|$)|'(?:[^'\\\n]|\\[\s\S])*'?|"(?:[^"\\\n]|\\[\s\S])*"?))|(\b(?:0[xX][\da-fA-F]+|0[oO][0-7]+|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?))|([A-Za-z_]\w*)/g

/** A piece of text and its class ('' for plain text). */
type Piece = [cls: string, text: string]

/** The source as lines of highlighted pieces. */
export function highlight(source: string): Piece[][] {
  const pieces: Piece[] = []
  let at = 0
  let afterDef = false
  TOKEN.lastIndex = 0
  for (let m = TOKEN.exec(source); m; m = TOKEN.exec(source)) {
    if (m.index > at) pieces.push(['', source.slice(at, m.index)])
    const [text, comment, string, number, name] = m
    let cls = ''
    if (comment) cls = 'code-com'
    else if (string) cls = 'code-str'
    else if (number) cls = 'code-num'
    else if (name) {
      const attribute = source[m.index - 1] === '.'
      if (afterDef) cls = 'code-fn'
      else if (KEYWORDS.has(name)) cls = 'code-kw'
      else if (CONSTANTS.has(name)) cls = 'code-const'
      else if (!attribute && BUILTINS.has(name)) cls = 'code-bi'
      afterDef = name === 'def'
    }
    if (!name) afterDef = false
    pieces.push([cls, text])
    at = m.index + text.length
    if (text.length === 0) TOKEN.lastIndex++
  }
  if (at < source.length) pieces.push(['', source.slice(at)])

  const lines: Piece[][] = [[]]
  for (const [cls, text] of pieces) {
    const parts = text.split('\n')
    parts.forEach((part, i) => {
      if (i > 0) lines.push([])
      if (part) lines[lines.length - 1]!.push([cls, part])
    })
  }
  return lines
}

/** Replaces [from, to) with text, through the browser's editing so that undo still works. */
function replace(area: HTMLTextAreaElement, from: number, to: number, text: string): void {
  area.setSelectionRange(from, to)
  // execCommand keeps the undo history; where it is unavailable, edit the value directly.
  if (!document.execCommand('insertText', false, text)) {
    area.setRangeText(text, from, to, 'end')
    area.dispatchEvent(new Event('input', { bubbles: true }))
  }
}

/** Tab: spaces to the next indent stop, or the selected lines indented; Shift+Tab outdents. */
function indent(area: HTMLTextAreaElement, outdent: boolean): void {
  const { value, selectionStart: start, selectionEnd: end } = area
  const lineStart = value.lastIndexOf('\n', start - 1) + 1
  if (!outdent && start === end) {
    replace(area, start, end, ' '.repeat(INDENT - ((start - lineStart) % INDENT)))
    return
  }
  // The whole lines the selection touches (a selection ending at a line's start leaves it out).
  const last = end > start && value[end - 1] === '\n' ? end - 1 : end
  let blockEnd = value.indexOf('\n', last)
  if (blockEnd === -1) blockEnd = value.length
  const lines = value.slice(lineStart, blockEnd).split('\n')
  const changed = lines.map((line) =>
    outdent ? line.replace(new RegExp(`^ {1,${INDENT}}|^\\t`), '') : ' '.repeat(INDENT) + line,
  )
  const text = changed.join('\n')
  if (text === lines.join('\n')) return
  replace(area, lineStart, blockEnd, text)
  if (start === end) {
    const moved = changed[0]!.length - lines[0]!.length
    const caret = Math.max(lineStart, start + moved)
    area.setSelectionRange(caret, caret)
  } else area.setSelectionRange(lineStart, lineStart + text.length)
}

/** Enter: a new line with the indentation of this one (one stop more after a `:`). */
function newline(area: HTMLTextAreaElement): void {
  const { value, selectionStart: start, selectionEnd: end } = area
  const line = value.slice(value.lastIndexOf('\n', start - 1) + 1, start)
  let lead = /^[ \t]*/.exec(line)?.[0] ?? ''
  if (/:\s*(#.*)?$/.test(line)) lead += ' '.repeat(INDENT)
  replace(area, start, end, `\n${lead}`)
}

export interface CodeEditorProps {
  id: string
  label: ComponentChildren
  value: string
  onInput: (value: string) => void
  /** A line to mark (1-based), with `error` shown under the editor. */
  errorLine?: number | undefined
  error?: string | undefined
  hint?: ComponentChildren
  minRows?: number
  maxRows?: number
}

export function CodeEditor({
  id,
  label,
  value,
  onInput,
  errorLine,
  error,
  hint,
  minRows = 8,
  maxRows = 24,
}: CodeEditorProps) {
  const area = useRef<HTMLTextAreaElement>(null)
  const shown = useRef<HTMLPreElement>(null)
  const gutter = useRef<HTMLDivElement>(null)
  /** Set by Esc: the next Tab moves the focus instead of indenting. */
  const leaving = useRef(false)
  const lines = useMemo(() => highlight(value), [value])
  const rows = Math.min(maxRows, Math.max(minRows, lines.length + 1))
  const marked =
    errorLine !== undefined && errorLine >= 1 && errorLine <= lines.length ? errorLine : undefined

  const sync = () => {
    const a = area.current
    if (!a) return
    if (shown.current) {
      shown.current.scrollTop = a.scrollTop
      shown.current.scrollLeft = a.scrollLeft
    }
    if (gutter.current) gutter.current.scrollTop = a.scrollTop
  }
  // The highlighted copy grows after the textarea did: line them up again after each render.
  useLayoutEffect(sync)

  const onKeyDown = (e: KeyboardEvent) => {
    const a = e.currentTarget as HTMLTextAreaElement
    if (e.isComposing || e.ctrlKey || e.altKey || e.metaKey) return
    if (e.key === 'Escape') {
      leaving.current = true
      return
    }
    if (e.key === 'Tab') {
      if (leaving.current) {
        leaving.current = false
        return
      }
      e.preventDefault()
      indent(a, e.shiftKey)
      return
    }
    leaving.current = false
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault()
      newline(a)
    }
  }

  const goTo = (line: number) => {
    const a = area.current
    if (!a) return
    let at = 0
    for (let i = 1; i < line; i++) at = a.value.indexOf('\n', at) + 1
    a.focus()
    a.setSelectionRange(at, at)
    const lineHeight = Number.parseFloat(getComputedStyle(a).lineHeight) || 19.5
    a.scrollTop = Math.max(0, (line - 3) * lineHeight)
    sync()
  }

  const describedBy = [hint ? `${id}-hint` : '', error || marked ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ')

  return (
    <div class="form-field form-wide code-field">
      <label for={id}>{label}</label>
      <div class={marked ? 'code-editor code-has-error' : 'code-editor'} style={{ '--code-rows': rows }}>
        <div class="code-gutter" ref={gutter} aria-hidden="true">
          {lines.map((_, i) => (
            <div key={i} class={i + 1 === marked ? 'code-num-error' : undefined}>
              {i + 1}
            </div>
          ))}
          <div>&nbsp;</div>
        </div>
        <div class="code-area">
          <pre class="code-highlight" ref={shown} aria-hidden="true">
            {lines.map((pieces, i) => (
              <div key={i} class={i + 1 === marked ? 'code-line code-line-error' : 'code-line'}>
                {pieces.length === 0
                  ? ' '
                  : pieces.map(([cls, text], j) =>
                      cls ? (
                        <span key={j} class={cls}>
                          {text}
                        </span>
                      ) : (
                        text
                      ),
                    )}
              </div>
            ))}
            <div class="code-line"> </div>
          </pre>
          <textarea
            id={id}
            ref={area}
            class="code-input"
            value={value}
            wrap="off"
            spellcheck={false}
            autocomplete="off"
            autocapitalize="off"
            autocorrect="off"
            aria-invalid={error || marked ? 'true' : undefined}
            aria-describedby={describedBy || undefined}
            onInput={(e) => onInput((e.currentTarget as HTMLTextAreaElement).value)}
            onKeyDown={onKeyDown}
            onScroll={sync}
          />
        </div>
      </div>
      {hint && (
        <p id={`${id}-hint`} class="hint form-hint">
          {hint}
        </p>
      )}
      {(error || marked) && (
        <p id={`${id}-error`} class="field-error code-error">
          {marked && (
            <>
              <button type="button" class="link code-goto" onClick={() => goTo(marked)}>
                Line {marked}
              </button>
              {': '}
            </>
          )}
          {error ?? 'this line has an error'}
        </p>
      )}
    </div>
  )
}
