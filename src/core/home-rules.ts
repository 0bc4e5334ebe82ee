// Blocking rules per home system: a hook written in GoClaw's, loom's or AI Harness's format
// keeps the rule its home applies on its event (whether a block counts), even where
// Warden's event rule differs. The loaders set `blocks` on such hooks; the chain applies it.

import type { EventName } from './catalog.js'
import type { HookTrace, Verdict } from './decision.js'

/** The systems whose per-event blocking rules a hook may keep. */
export type HomeSystem = 'goclaw' | 'loom' | 'harness'

/**
 * Events whose blocking rule at home differs from Warden's, per system: `false` where the
 * home only observes (Warden's event blocks), `true` where the home blocks (Warden's event
 * does not). Keys are the names as the home spells them, or canonical names.
 */
const HOME_RULES: Record<HomeSystem, Record<string, boolean>> = {
  // GoClaw: post_tool_use and stop run async and always allow.
  goclaw: { post_tool_use: false, stop: false, 'tool.post': false, 'agent.stop': false },
  // loom: tool.post reports a result already produced; model.pre injects context.
  loom: { 'tool.post': false, 'model.pre': false },
  // AI Harness: delegation.post_verify is its own blocking event (subagent.verify).
  harness: {},
}

/**
 * The `blocks` a hook in a home system's format gets on an event, or undefined when the
 * home follows Warden's rule there.
 * @param event the event as the hook file spells it (alias or canonical name)
 */
export function homeBlocking(system: HomeSystem, event: string): boolean | undefined {
  return HOME_RULES[system][event]
}

/** The home rule a hook whose handler has `dialect: 'loom'` (fn or command) keeps on a canonical event. */
export function loomDialectBlocking(event: EventName): boolean | undefined {
  return HOME_RULES.loom[event]
}

/**
 * A verdict of a hook that only observes on its event: a deny or an ask is recorded in the
 * reason but lets the action go ahead; its added context and any modify still apply.
 */
export function observedVerdict(verdict: Verdict, event: EventName): Verdict {
  if (verdict.type !== 'deny' && verdict.type !== 'ask') return verdict
  const said = verdict.reason ? `: ${verdict.reason}` : ''
  const observed: Verdict = {
    type: 'allow',
    reason: `${event} ${OBSERVED_MARK} ${verdict.type}${said}`,
  }
  if (verdict.additionalContext) observed.additionalContext = verdict.additionalContext
  if (verdict.redact) observed.redact = verdict.redact
  return observed
}

const OBSERVED_MARK = "only observes for this hook (its home system's rule); it answered"

/**
 * What an observing hook answered, read back from the reason {@link observedVerdict} gave
 * its trace entry: the deny or ask and its reason, or undefined for any other reason.
 */
export function observedAnswer(
  event: string,
  reason: string | undefined,
): { type: 'deny' | 'ask'; reason: string } | undefined {
  const head = `${event} ${OBSERVED_MARK} `
  if (!reason?.startsWith(head)) return undefined
  const rest = reason.slice(head.length)
  const type = rest.startsWith('deny') ? 'deny' : rest.startsWith('ask') ? 'ask' : undefined
  if (!type) return undefined
  return { type, reason: rest.slice(type.length).replace(/^: /, '') }
}

/** Whether a selected hook blocks at home on an event that does not: its caller must wait. */
export function blocksAtHome(hook: { spec: { blocks?: boolean } }): boolean {
  return hook.spec.blocks === true
}

/**
 * A refusal of Warden's own, before or outside the chain (depth cap, payload cap, a record
 * that cannot be written, a closed engine), as a trace step marked `warden`: no hook of the
 * chain decided it.
 */
export function wardenRefusal(reason: string): HookTrace {
  return {
    id: 'warden',
    hook: 'warden',
    handler: 'warden',
    version: 1,
    outcome: 'deny',
    reason,
    durationMs: 0,
    warden: true,
  }
}

/**
 * AI Harness's order on a sub-agent's end: `delegation.post` (subagent.stop), then
 * `delegation.post_verify` (subagent.verify), whose decision the caller gets.
 * @param verify dispatches subagent.verify for the input; undefined when it has no hooks.
 */
export function thenVerify<D extends { event: string }, I>(
  decision: D | Promise<D>,
  input: I,
  verify: (input: I) => D | Promise<D> | undefined,
): D | Promise<D> {
  if (decision instanceof Promise)
    return decision.then((done) => (done.event === 'subagent.stop' ? (verify(input) ?? done) : done))
  return decision.event === 'subagent.stop' ? (verify(input) ?? decision) : decision
}

/** The hooks of a blocking event that run in the background (`background: true`), or undefined when none does. */
export function backgroundHooks<T extends { spec: { background?: boolean } }>(
  hooks: readonly T[],
): readonly T[] | undefined {
  if (!hooks.some((hook) => hook.spec.background === true)) return undefined
  return hooks.filter((hook) => hook.spec.background === true)
}

/** The hooks the caller waits for: all but those in the background. */
export function heldHooks<T extends { spec: { background?: boolean } }>(hooks: readonly T[]): readonly T[] {
  return hooks.filter((hook) => hook.spec.background !== true)
}
