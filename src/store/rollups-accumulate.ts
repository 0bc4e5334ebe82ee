// The SQLite writer thread's rollups in memory: the rows each batch inserted (after its
// commit) are added to per-minute counts, and the next fold writes those counts (minute
// rows, and hour and day rows summed from them) instead of reading the rows back in SQL.
// The counts are used only when they cover exactly the rows past the fold's marks: the
// first row counted follows the mark, the last is the newest row, none in between was
// written by anyone else, and no decision past the mark was corrected since (a correction
// there moves the `corrections` generation). Otherwise the fold reads the rows in SQL as
// before, so a count is never lost or doubled. Plain JavaScript source, run on the thread.

import { SQLITE_ROLLUP_SQL } from './rollups-write.js'

/** The statements the accumulator needs (plain data: it crosses to the writer's thread). */
export const ACCUMULATE_SQL = {
  upsertDecision: SQLITE_ROLLUP_SQL.decisions,
  upsertHook: SQLITE_ROLLUP_SQL.hooks,
  generation: "select coalesce((select value from rollup_state where key = 'corrections'), 0)",
}

/**
 * `makeAccumulator(db, statements, bounds)`: `add(decisions, executions)` after a batch's
 * commit (each entry `[row, rowid]`), `covers(key, from, to, generation)` and
 * `flush(key, minuteSince)` inside a fold, `reset()` after it.
 */
export const ACCUMULATE_SOURCE = `function makeAccumulator(db, s, bounds) {
  const MINUTE = 60000
  const HOUR = 3600000
  const DAY = 86400000
  const upsertDecision = db.prepare(s.upsertDecision)
  const upsertHook = db.prepare(s.upsertHook)
  const generationOf = db.prepare(s.generation).pluck()
  const OUTCOME = { allow: 1, deny: 2, modify: 3, ask: 4 }
  const part = () => ({ first: 0, last: 0, count: 0, rows: new Map() })
  let state
  function reset() {
    state = { generation: undefined, stale: false, decisions: part(), executions: part() }
  }
  reset()
  function entry(map, key, head, width) {
    let e = map.get(key)
    if (!e) {
      e = { head, c: new Array(width).fill(0) }
      map.set(key, e)
    }
    return e.c
  }
  function track(p, rowid) {
    if (p.count === 0) p.first = rowid
    else if (rowid !== p.last + 1) state.stale = true
    p.last = rowid
    p.count++
  }
  function countDecision(map, dim, tenant, bucket, item, outcome) {
    const c = entry(map, dim + '\\u0000' + tenant + '\\u0000' + bucket + '\\u0000' + item, [dim, tenant, bucket, item], 5)
    c[0]++
    if (outcome !== undefined) c[outcome]++
  }
  function latency(ms) {
    for (let i = 0; i < bounds.length; i++) if (ms <= bounds[i]) return i
    return bounds.length
  }
  /** Read inside the batch's transaction: the generation the batch was written under. */
  function generation() {
    return Number(generationOf.get())
  }
  function add(decisions, executions, gen) {
    if (state.generation === undefined) state.generation = gen
    else if (state.generation !== gen) state.stale = true
    const d = state.decisions
    for (const [row, rowid] of decisions) {
      track(d, rowid)
      const bucket = row.createdAt - (row.createdAt % MINUTE)
      const outcome = OUTCOME[row.decision]
      countDecision(d.rows, '', row.tenant, bucket, '', outcome)
      if (row.tool != null) countDecision(d.rows, 'tool', row.tenant, bucket, row.tool, outcome)
      if (row.agentId != null) countDecision(d.rows, 'agent', row.tenant, bucket, row.agentId, outcome)
      if (row.sessionId != null && row.decision === 'deny')
        countDecision(d.rows, 'session', row.tenant, bucket, row.sessionId, outcome)
    }
    const x = state.executions
    for (const [row, rowid] of executions) {
      track(x, rowid)
      if (row.decision === 'skipped') continue
      const bucket = row.createdAt - (row.createdAt % MINUTE)
      const c = entry(x.rows, row.tenant + '\\u0000' + bucket + '\\u0000' + row.hookRef, [row.tenant, bucket, row.hookRef], 8 + bounds.length + 1)
      c[0]++
      if (row.mode === 'shadow') {
        c[6]++
        if (row.decision === 'deny') c[7]++
      } else if (row.decision === 'deny') c[1]++
      else if (row.decision === 'ask') c[2]++
      else if (row.decision === 'modify') c[3]++
      if (row.errorKind === 'timeout') c[5]++
      else if (row.errorKind != null) c[4]++
      c[8 + latency(row.durationMs)]++
    }
  }
  function covers(key, from, to, gen) {
    const p = state[key]
    return !state.stale && state.generation === gen && p.count > 0 && p.first === from + 1 && p.last === to && p.count === to - from
  }
  /** The minute counts summed into a coarser grain (the bucket is head[bucketAt]). */
  function coarser(rows, span, bucketAt) {
    const out = new Map()
    for (const { head, c } of rows.values()) {
      const h = head.slice()
      h[bucketAt] = h[bucketAt] - (h[bucketAt] % span)
      const key = h.join('\\u0000')
      const e = out.get(key)
      if (!e) out.set(key, { head: h, c: c.slice() })
      else for (let i = 0; i < c.length; i++) e.c[i] += c[i]
    }
    return out
  }
  function flush(key, minuteSince) {
    const rows = state[key].rows
    const upsert = key === 'decisions' ? upsertDecision : upsertHook
    const bucketAt = key === 'decisions' ? 2 : 1
    for (const { head, c } of rows.values()) if (head[bucketAt] >= minuteSince) upsert.run(MINUTE, ...head, ...c)
    for (const span of [HOUR, DAY]) for (const { head, c } of coarser(rows, span, bucketAt).values()) upsert.run(span, ...head, ...c)
  }
  return { add, covers, flush, reset, generation }
}`
