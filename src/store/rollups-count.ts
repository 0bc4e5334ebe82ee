// Counting for the overview's rollups, in plain JavaScript source: the SQLite writer's
// thread runs the same text (audit-thread.ts), and this module compiles it once for the
// calling thread (the PostgreSQL writer, `:memory:` SQLite, corrections, the benchmark).
//
// A writer counts the rows a batch actually wrote per minute and tenant (`rollupCounter`)
// and stores those counts as one pending row in the batch's own transaction; a fold later
// compacts the hours and days that are over (`rollupCompaction`), sums the pending rows
// (`rollupGrains`: minute rows, and hour and day rows only for hours and days already
// compacted), adds them to the rollup tables and deletes them in one transaction, so each
// row is counted exactly once whoever folds it, and a batch costs one insert instead of an
// upsert per key and grain. Text values are stored with any NUL as U+FFFD, as the audit
// rows on PostgreSQL.

import type { AuditBatch, DecisionRow, ExecutionRow } from './types.js'

/** A decision row's fields the counts read. */
export type CountedDecision = Pick<DecisionRow, 'tenant' | 'decision' | 'createdAt'> &
  Partial<Pick<DecisionRow, 'tool' | 'agentId' | 'sessionId'>>

/**
 * One batch's counts, an entry per minute and tenant: `[minute, tenant, [total, allow, deny,
 * modify, ask], tools, agents, sessions, hooks]`, where tools, agents and sessions are flat
 * lists of a name followed by its five counts, and hooks of a name followed by its runs,
 * denials, asks, modifications, errors, timeouts, shadow runs, shadow denials and the 14
 * buckets of its latency histogram.
 */
export type PendingCounts = unknown[][]

/** Counts rows as they are written; `take` hands the counts over and starts again. */
export interface RollupCounter {
  /** Adds a decision (`sign` -1 takes one away, as a correction does). */
  decision(row: CountedDecision, sign: number): void
  execution(row: ExecutionRow): void
  /** The counts so far (undefined when none), emptied. */
  take(): PendingCounts | undefined
}

/** Rollup rows to add, in the column order of the upserts (span first). */
export interface GrainRows {
  decisions: unknown[][]
  hooks: unknown[][]
}

/**
 * The source: `rollupCounter(bounds)`, `rollupGrains(pendings, spans, minuteSince, marks)`,
 * `rollupCompaction(now, marks)` and `makeRollupFold(db, s, cache)` (a better-sqlite3 fold).
 */
export const ROLLUP_COUNT_SOURCE = `
function rollupTenant() {
  return { all: [0, 0, 0, 0, 0], tool: new Map(), agent: new Map(), session: new Map(), hook: new Map() }
}

function rollupCounter(bounds) {
  let minutes = new Map()
  let lastMinute = -1
  let lastTenants
  const clean = (s) => (s.indexOf('\\u0000') === -1 ? s : s.split('\\u0000').join('\\ufffd'))
  const outcomeAt = (decision) =>
    decision === 'allow' ? 1 : decision === 'deny' ? 2 : decision === 'modify' ? 3 : decision === 'ask' ? 4 : 0
  function tenantAt(createdAt, name) {
    const minute = createdAt - (createdAt % 60000)
    let tenants = minute === lastMinute ? lastTenants : minutes.get(minute)
    if (tenants === undefined) {
      tenants = new Map()
      minutes.set(minute, tenants)
    }
    lastMinute = minute
    lastTenants = tenants
    const tenant = clean(name)
    let counts = tenants.get(tenant)
    if (counts === undefined) {
      counts = rollupTenant()
      tenants.set(tenant, counts)
    }
    return counts
  }
  function bump(map, name, at, sign) {
    const item = clean(name)
    let c = map.get(item)
    if (c === undefined) {
      c = [0, 0, 0, 0, 0]
      map.set(item, c)
    }
    c[0] += sign
    if (at > 0) c[at] += sign
  }
  function flat(map) {
    const out = []
    for (const [name, counts] of map) out.push(name, ...counts)
    return out
  }
  return {
    decision(row, sign) {
      const t = tenantAt(row.createdAt, row.tenant)
      const at = outcomeAt(row.decision)
      t.all[0] += sign
      if (at > 0) t.all[at] += sign
      if (row.tool) bump(t.tool, row.tool, at, sign)
      if (row.agentId) bump(t.agent, row.agentId, at, sign)
      // Sessions are many: only their denials are counted.
      if (row.sessionId && row.decision === 'deny') bump(t.session, row.sessionId, at, sign)
    },
    execution(row) {
      if (row.decision === 'skipped') return
      const t = tenantAt(row.createdAt, row.tenant)
      const hook = clean(row.hookRef)
      let c = t.hook.get(hook)
      if (c === undefined) {
        c = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        t.hook.set(hook, c)
      }
      c[0]++
      if (row.mode === 'shadow') {
        c[6]++
        if (row.decision === 'deny') c[7]++
      } else if (row.decision === 'deny') c[1]++
      else if (row.decision === 'ask') c[2]++
      else if (row.decision === 'modify') c[3]++
      if (row.errorKind === 'timeout') c[5]++
      else if (row.errorKind) c[4]++
      let bucket = 0
      while (bucket < bounds.length && !(row.durationMs <= bounds[bucket])) bucket++
      c[8 + bucket]++
    },
    take() {
      if (minutes.size === 0) return undefined
      const out = []
      for (const [minute, tenants] of minutes) {
        for (const [tenant, t] of tenants) {
          out.push([minute, tenant, t.all, flat(t.tool), flat(t.agent), flat(t.session), flat(t.hook)])
        }
      }
      minutes = new Map()
      lastMinute = -1
      lastTenants = undefined
      return out
    },
  }
}

function rollupGrains(pendings, spans, minuteSince, marks) {
  const hours = marks ? marks.hours : Infinity
  const days = marks ? marks.days : Infinity
  const DECISION_WIDTH = 5
  const HOOK_WIDTH = 22
  function addCounts(into, from, at) {
    for (let i = 0; i < into.length; i++) into[i] += from[at + i]
  }
  function addFlat(map, flat, width) {
    for (let i = 0; i < flat.length; i += width + 1) {
      const name = flat[i]
      let c = map.get(name)
      if (c === undefined) {
        c = new Array(width).fill(0)
        map.set(name, c)
      }
      addCounts(c, flat, i + 1)
    }
  }
  function addMaps(into, from) {
    for (const [name, counts] of from) {
      const c = into.get(name)
      if (c === undefined) into.set(name, counts.slice())
      else addCounts(c, counts, 0)
    }
  }
  function tenantIn(buckets, bucket, tenant) {
    let tenants = buckets.get(bucket)
    if (tenants === undefined) {
      tenants = new Map()
      buckets.set(bucket, tenants)
    }
    let t = tenants.get(tenant)
    if (t === undefined) {
      t = rollupTenant()
      tenants.set(tenant, t)
    }
    return t
  }
  const nonZero = (counts) => counts.some((n) => n !== 0)
  // Summed per minute first (each pending entry read once), then rolled up per span.
  const minutes = new Map()
  for (const pending of pendings) {
    for (const [minute, tenant, all, tool, agent, session, hook] of pending) {
      const t = tenantIn(minutes, minute, tenant)
      addCounts(t.all, all, 0)
      addFlat(t.tool, tool, DECISION_WIDTH)
      addFlat(t.agent, agent, DECISION_WIDTH)
      addFlat(t.session, session, DECISION_WIDTH)
      addFlat(t.hook, hook, HOOK_WIDTH)
    }
  }
  const decisions = []
  const hooks = []
  for (const span of spans) {
    let buckets = minutes
    if (span !== 60000) {
      buckets = new Map()
      // Hour rows are written for hours already compacted (the rest are minute rows until
      // they are), day rows for days already compacted.
      const closed = span === 3600000 ? hours : Math.min(hours, days)
      for (const [minute, tenants] of minutes) {
        if (!(minute < closed)) continue
        for (const [tenant, t] of tenants) {
          const into = tenantIn(buckets, minute - (minute % span), tenant)
          addCounts(into.all, t.all, 0)
          addMaps(into.tool, t.tool)
          addMaps(into.agent, t.agent)
          addMaps(into.session, t.session)
          addMaps(into.hook, t.hook)
        }
      }
    }
    for (const [bucket, tenants] of buckets) {
      if (span === 60000 && bucket < minuteSince && bucket < hours) continue
      for (const [tenant, t] of tenants) {
        // A correction that moved a count and took it back leaves zeros: not written.
        if (nonZero(t.all)) decisions.push([span, '', tenant, bucket, '', ...t.all])
        for (const dim of ['tool', 'agent', 'session']) {
          for (const [item, c] of t[dim]) if (nonZero(c)) decisions.push([span, dim, tenant, bucket, item, ...c])
        }
        for (const [hook, c] of t.hook) if (nonZero(c)) hooks.push([span, tenant, bucket, hook, ...c])
      }
    }
  }
  return { decisions, hooks }
}

/**
 * The compaction due at \`now\` for the marks \`{hours, days}\` (hours before \`hours\` have hour
 * rows, days before \`days\` day rows; the rest are read from finer rows): the steps
 * \`[statement, from, to]\` and the marks after them. Hours are compacted once they are over,
 * days once all their hours are, so \`days\` never passes \`hours\`.
 */
function rollupCompaction(now, marks) {
  const steps = []
  let { hours, days } = marks
  const hoursTo = now - (now % 3600000)
  if (hoursTo > hours) {
    steps.push(['hoursFromMinutes', hours, hoursTo])
    hours = hoursTo
  }
  const daysTo = hours - (hours % 86400000)
  if (daysTo > days) {
    steps.push(['daysFromHours', days, daysTo])
    days = daysTo
  }
  return { steps, marks: { hours, days } }
}

function makeRollupFold(db, s, cache) {
  const pendingIds = db.prepare(s.pendingIds).pluck()
  const pendingCounts = db.prepare(s.pendingCounts).pluck()
  const dropPending = db.prepare(s.dropPending)
  const upsertDecisions = db.prepare(s.upsertDecisions)
  const upsertHooks = db.prepare(s.upsertHooks)
  const readMarks = db.prepare(s.marks)
  const setMark = db.prepare(s.setMark)
  const compact = {}
  for (const name of Object.keys(s.compact)) compact[name] = s.compact[name].map((sql) => db.prepare(sql))
  const pruneDecisions = db.prepare(s.pruneDecisions)
  const pruneHooks = db.prepare(s.pruneHooks)
  let prunedHour = 0
  const fold = db.transaction(() => {
    const now = Date.now()
    const minuteSince = now - s.retentionMs
    const stored = new Map(readMarks.all().map((r) => [r.key, Number(r.value)]))
    let marks
    if (stored.has('hours') && stored.has('days')) {
      const due = rollupCompaction(now, { hours: stored.get('hours'), days: stored.get('days') })
      for (const [name, from, to] of due.steps) for (const statement of compact[name]) statement.run(from, to)
      if (due.marks.hours !== stored.get('hours')) setMark.run('hours', due.marks.hours)
      if (due.marks.days !== stored.get('days')) setMark.run('days', due.marks.days)
      marks = due.marks
    }
    const ids = pendingIds.all()
    if (ids.length > 0) {
      const pendings = ids.map((id) => (cache && cache.get(id)) || JSON.parse(pendingCounts.get(id)))
      const rows = rollupGrains(pendings, s.spans, minuteSince, marks)
      for (const row of rows.decisions) upsertDecisions.run(row)
      for (const row of rows.hooks) upsertHooks.run(row)
      dropPending.run(ids[ids.length - 1])
    }
    const hour = Math.floor(now / 3600000)
    if (hour !== prunedHour) {
      prunedHour = hour
      // Minute rows not compacted yet are kept whatever their age.
      const before = marks ? Math.min(minuteSince, marks.hours) : minuteSince
      for (const dim of s.dimensions) pruneDecisions.run(dim, before)
      pruneHooks.run(before)
    }
  })
  return () => {
    fold.immediate()
    if (cache) cache.clear()
  }
}
`

/** Where compaction stands: hour rows exist for hours before `hours`, day rows for days before `days`. */
export interface RollupMarks {
  hours: number
  days: number
}

/** A compaction step: the statements of `name` over the buckets [from, to). */
export type CompactionStep = [name: 'hoursFromMinutes' | 'daysFromHours', from: number, to: number]

interface Compiled {
  rollupCounter(bounds: readonly number[]): RollupCounter
  rollupGrains(
    pendings: readonly PendingCounts[],
    spans: readonly number[],
    minuteSince: number,
    marks?: RollupMarks,
  ): GrainRows
  rollupCompaction(now: number, marks: RollupMarks): { steps: CompactionStep[]; marks: RollupMarks }
  makeRollupFold(db: unknown, statements: unknown, cache?: Map<number, PendingCounts>): () => void
}

/** The source compiled once for this thread. */
export const rollupCode = new Function(
  `${ROLLUP_COUNT_SOURCE}\nreturn { rollupCounter, rollupGrains, rollupCompaction, makeRollupFold }`,
)() as Compiled

/** Counts the decisions and executions of a batch: its pending counts, undefined when none. */
export function countBatch(
  counter: RollupCounter,
  batch: Pick<AuditBatch, 'decisions' | 'executions'>,
): PendingCounts | undefined {
  for (const row of batch.decisions) counter.decision(row, 1)
  for (const row of batch.executions) counter.execution(row)
  return counter.take()
}
