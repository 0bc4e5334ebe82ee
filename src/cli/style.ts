// How the CLI looks on a terminal: colour when stdout is a terminal and NO_COLOR is not
// set (none when piped, so scripts read plain text), aligned tables, and a progress line
// for long operations that redraws itself on a terminal and stays silent otherwise.

import type { CliIo } from './io.js'

/** Text styles; each is the identity when colour is off. */
export interface Style {
  enabled: boolean
  red(text: string): string
  green(text: string): string
  yellow(text: string): string
  cyan(text: string): string
  dim(text: string): string
  bold(text: string): string
}

const plain = (text: string) => text

/** Whether to colour: a terminal on stdout, and neither NO_COLOR nor TERM=dumb. */
export function colourWanted(io: Pick<CliIo, 'env' | 'isTTY'>): boolean {
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false
  if (io.env.FORCE_COLOR !== undefined && io.env.FORCE_COLOR !== '0') return true
  return io.isTTY === true && io.env.TERM !== 'dumb'
}

/** The styles for this run's output. */
export function styleFor(io: Pick<CliIo, 'env' | 'isTTY'>): Style {
  const enabled = colourWanted(io)
  const sgr = (open: number, close: number) =>
    enabled ? (text: string) => `\u001b[${open}m${text}\u001b[${close}m` : plain
  return {
    enabled,
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    cyan: sgr(36, 39),
    dim: sgr(2, 22),
    bold: sgr(1, 22),
  }
}

/** A decision kind in its colour: deny red, allow green, modify yellow, ask cyan. */
export function decisionColour(style: Style, decision: string): string {
  if (decision === 'deny') return style.red(decision)
  if (decision === 'allow') return style.green(decision)
  if (decision === 'modify') return style.yellow(decision)
  if (decision === 'ask') return style.cyan(decision)
  return decision
}

const ANSI = /\u001b\[[0-9;]*m/g

/** Visible width of a string (ANSI escapes do not count). */
export function visibleWidth(text: string): number {
  return text.replace(ANSI, '').length
}

/**
 * Lays rows out as aligned columns under a header. The last column is cut to fit `width`
 * (when given) with an ellipsis; cells may carry colour.
 */
export function formatTable(
  header: string[],
  rows: string[][],
  options: { width?: number; style?: Style } = {},
) {
  const all = [header, ...rows]
  const widths = header.map((_, column) => Math.max(...all.map((row) => visibleWidth(row[column] ?? ''))))
  const last = header.length - 1
  const fixed = widths.slice(0, last).reduce((sum, w) => sum + w + 2, 0)
  const room = options.width ? Math.max(20, options.width - fixed) : Number.POSITIVE_INFINITY
  const line = (row: string[]) =>
    row
      .map((cell, column) => {
        if (column === last) {
          const width = visibleWidth(cell)
          return width > room ? `${cell.replace(ANSI, '').slice(0, room - 1)}…` : cell
        }
        return cell + ' '.repeat((widths[column] ?? 0) - visibleWidth(cell))
      })
      .join('  ')
      .trimEnd()
  const bold = options.style?.bold ?? plain
  return `${bold(line(header))}\n${rows.map(line).join('\n')}\n`
}

/** A progress line for long operations. */
export interface Progress {
  /** Counts one more item done, with what it was. */
  tick(label?: string): void
  /** Clears the line. */
  done(): void
}

/**
 * Progress on stderr: "label 12/80 name", redrawn in place on a terminal at most every
 * 100 ms. When stderr is not a terminal nothing is written.
 */
export function progress(
  io: Pick<CliIo, 'stderr' | 'isTTY' | 'env'>,
  total: number,
  label: string,
): Progress {
  const live = io.isTTY === true && io.env.TERM !== 'dumb' && total > 1
  let count = 0
  let drawn = 0
  return {
    tick(item) {
      count++
      if (!live) return
      const now = Date.now()
      if (now - drawn < 100 && count < total) return
      drawn = now
      io.stderr(`\r\u001b[2K${label} ${count}/${total}${item ? ` ${item}` : ''}`)
    },
    done() {
      if (live && drawn > 0) io.stderr('\r\u001b[2K')
    },
  }
}
