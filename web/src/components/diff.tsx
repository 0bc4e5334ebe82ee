// A side-by-side diff of two JSON values: both pretty-printed with their keys sorted (so
// that a reordered object is not a change), then a line diff (longest common subsequence
// between the common head and tail) shown in two aligned columns.

/** JSON pretty-printed with every object's keys in sorted order. */
export function stableJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort)
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {}
      for (const key of Object.keys(v).sort()) out[key] = sort((v as Record<string, unknown>)[key])
      return out
    }
    return v
  }
  return JSON.stringify(sort(value), null, 2) ?? 'undefined'
}

export type DiffOp = { kind: 'same' | 'del' | 'add'; text: string }

/** Past this many cells (middle lines × middle lines) the middle is shown as replaced. */
const MAX_CELLS = 4_000_000

/** The line diff of `a` into `b`: unchanged, removed and added lines in order. */
export function diffLines(a: string[], b: string[]): DiffOp[] {
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++
  const x = a.slice(head, a.length - tail)
  const y = b.slice(head, b.length - tail)
  const ops: DiffOp[] = a.slice(0, head).map((text) => ({ kind: 'same', text }))
  const n = x.length
  const m = y.length
  if (n * m > MAX_CELLS) {
    for (const text of x) ops.push({ kind: 'del', text })
    for (const text of y) ops.push({ kind: 'add', text })
  } else {
    // lcs[i][j]: the LCS length of x[i..] and y[j..], in one flat array.
    const w = m + 1
    const lcs = new Uint32Array((n + 1) * w)
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * w + j] =
          x[i] === y[j]
            ? (lcs[(i + 1) * w + j + 1] ?? 0) + 1
            : Math.max(lcs[(i + 1) * w + j] ?? 0, lcs[i * w + j + 1] ?? 0)
      }
    }
    let i = 0
    let j = 0
    while (i < n && j < m) {
      if (x[i] === y[j]) {
        ops.push({ kind: 'same', text: x[i++] as string })
        j++
      } else if ((lcs[(i + 1) * w + j] ?? 0) >= (lcs[i * w + j + 1] ?? 0)) {
        ops.push({ kind: 'del', text: x[i++] as string })
      } else {
        ops.push({ kind: 'add', text: y[j++] as string })
      }
    }
    while (i < n) ops.push({ kind: 'del', text: x[i++] as string })
    while (j < m) ops.push({ kind: 'add', text: y[j++] as string })
  }
  for (const text of a.slice(a.length - tail)) ops.push({ kind: 'same', text })
  return ops
}

type Cell = { n: number; text: string; kind: 'same' | 'del' | 'add' } | undefined

/** The ops as rows of two columns: a run of removals beside the run of additions after it. */
export function sideBySide(ops: DiffOp[]): [Cell, Cell][] {
  const rows: [Cell, Cell][] = []
  let left = 0
  let right = 0
  let k = 0
  while (k < ops.length) {
    const op = ops[k] as DiffOp
    if (op.kind === 'same') {
      rows.push([
        { n: ++left, text: op.text, kind: 'same' },
        { n: ++right, text: op.text, kind: 'same' },
      ])
      k++
      continue
    }
    const dels: string[] = []
    const adds: string[] = []
    while (k < ops.length && (ops[k] as DiffOp).kind !== 'same') {
      const change = ops[k++] as DiffOp
      ;(change.kind === 'del' ? dels : adds).push(change.text)
    }
    for (let r = 0; r < Math.max(dels.length, adds.length); r++) {
      const del = dels[r]
      const add = adds[r]
      rows.push([
        del === undefined ? undefined : { n: ++left, text: del, kind: 'del' },
        add === undefined ? undefined : { n: ++right, text: add, kind: 'add' },
      ])
    }
  }
  return rows
}

const SPOKEN = { same: '', del: 'removed: ', add: 'added: ' }
const MARK = { same: ' ', del: '−', add: '+' }

function Side({ cell }: { cell: Cell }) {
  if (!cell) return <td class="diff-cell diff-pad" colSpan={2} />
  return (
    <>
      <td class={`diff-n diff-${cell.kind}`} aria-hidden="true">
        {cell.n}
      </td>
      <td class={`diff-cell diff-${cell.kind}`}>
        <span class="diff-mark" aria-hidden="true">
          {MARK[cell.kind]}
        </span>
        {cell.kind !== 'same' && <span class="visually-hidden">{SPOKEN[cell.kind]}</span>}
        {cell.text}
      </td>
    </>
  )
}

/** Two JSON values side by side, what changed highlighted. */
export function JsonDiff({
  before,
  after,
  beforeLabel = 'Input',
  afterLabel = 'Output',
  label = 'Input diff',
}: {
  before: unknown
  after: unknown
  beforeLabel?: string
  afterLabel?: string
  label?: string
}) {
  const ops = diffLines(stableJson(before).split('\n'), stableJson(after).split('\n'))
  const rows = sideBySide(ops)
  const removed = ops.filter((op) => op.kind === 'del').length
  const added = ops.filter((op) => op.kind === 'add').length
  return (
    <figure class="diff" aria-label={label}>
      <figcaption class="diff-legend">
        <span class="diff-key diff-del">− removed from {beforeLabel.toLowerCase()}</span>
        <span class="diff-key diff-add">+ added in {afterLabel.toLowerCase()}</span>
        <span class="hint">
          {removed === 0 && added === 0
            ? 'No difference.'
            : `${removed} line${removed === 1 ? '' : 's'} removed, ${added} added.`}
        </span>
      </figcaption>
      <div class="diff-scroll">
        <table class="diff-table">
          <thead>
            <tr>
              <th scope="col" colSpan={2}>
                {beforeLabel}
              </th>
              <th scope="col" colSpan={2}>
                {afterLabel}
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([left, right], i) => (
              <tr key={i}>
                <Side cell={left} />
                <Side cell={right} />
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  )
}
