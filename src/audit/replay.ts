// Replay: re-runs a recorded event against today's hooks and compares the two outcomes,
// naming the hooks whose part changed (a different verdict, a new version, added or
// removed). The engine used for a replay must not record, so history is never rewritten.

import type { Decision, Engine, HookTrace, JsonObject } from '../core/index.js'
import type { DecisionDetail, Store } from '../store/index.js'

/** How one hook took part, then and now. */
export interface HookComparison {
  hook: string
  old?: { outcome: string; version: number; reason?: string }
  new?: { outcome: string; version: number; reason?: string }
  /** The verdict differs, or the hook was added or removed. */
  changed: boolean
}

/** A recorded decision next to today's. */
export interface ReplayResult {
  decisionId: string
  event: string
  tenant: string
  recordedAt: number
  old: { decision: string; reason: string }
  new: Decision
  /** True when today's decision differs from the recorded one. */
  differs: boolean
  hooks: HookComparison[]
}

function executed(outcome: string | undefined): boolean {
  return outcome !== undefined && outcome !== 'skipped'
}

function compareHooks(recorded: DecisionDetail, trace: HookTrace[]): HookComparison[] {
  const byName = new Map<string, HookComparison>()
  for (const e of recorded.executions) {
    byName.set(e.hookName, {
      hook: e.hookName,
      old: { outcome: e.decision, version: e.hookVersion, ...(e.reason ? { reason: e.reason } : {}) },
      changed: false,
    })
  }
  for (const t of trace) {
    const entry = byName.get(t.hook) ?? { hook: t.hook, changed: false }
    entry.new = { outcome: t.outcome, version: t.version, ...(t.reason ? { reason: t.reason } : {}) }
    byName.set(t.hook, entry)
  }
  for (const entry of byName.values()) {
    const before = entry.old?.outcome
    const after = entry.new?.outcome
    entry.changed = executed(before) || executed(after) ? before !== after : false
  }
  return [...byName.values()]
}

/**
 * Re-runs a recorded decision's event on an engine (one without a recorder).
 * @param tenant limits the lookup to one tenant's decisions.
 * @returns undefined when no such decision is visible.
 */
export async function replayDecision(
  store: Store,
  engine: Engine,
  id: string,
  tenant?: string,
): Promise<ReplayResult | undefined> {
  const recorded = await store.getDecision(id, tenant)
  if (!recorded) return undefined
  const input = (recorded.input ?? {}) as { event?: string; payload?: JsonObject; context?: JsonObject }
  const now = await engine.dispatch({
    event: input.event ?? recorded.event,
    payload: input.payload ?? {},
    context: input.context ?? {},
  })
  if (!now.blocking) await engine.drain()
  return {
    decisionId: recorded.id,
    event: recorded.event,
    tenant: recorded.tenant,
    recordedAt: recorded.createdAt,
    old: { decision: recorded.decision, reason: recorded.reason },
    new: now,
    differs: now.decision !== recorded.decision,
    hooks: compareHooks(recorded, now.trace),
  }
}

function cell(side: HookComparison['old']): string {
  if (!side) return '(absent)'
  return `${side.outcome} v${side.version}`
}

/** The replay as text: old and new decision side by side, then the hooks that changed. */
export function formatReplay(result: ReplayResult): string {
  const width = Math.max(24, result.old.decision.length + 2)
  const lines = [
    `decision ${result.decisionId} (${result.event}${result.tenant ? `, tenant ${result.tenant}` : ''}, recorded ${new Date(result.recordedAt).toISOString()})`,
    '',
    `${'recorded'.padEnd(width)}today`,
    `${result.old.decision.padEnd(width)}${result.new.decision}`,
    `  old reason: ${result.old.reason}`,
    `  new reason: ${result.new.reason}`,
    '',
  ]
  const changed = result.hooks.filter((h) => h.changed)
  if (changed.length === 0) {
    lines.push(
      result.differs ? 'the outcome changed, but no hook verdict did' : 'no hook changed its verdict',
    )
  } else {
    lines.push('hooks that changed the outcome:')
    for (const h of changed) lines.push(`  ${h.hook.padEnd(28)} ${cell(h.old).padEnd(18)} -> ${cell(h.new)}`)
  }
  lines.push('', result.differs ? 'the decision is different today' : 'the decision is the same today')
  return `${lines.join('\n')}\n`
}
