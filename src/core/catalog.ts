// The event catalog: every canonical event name, whether callers wait for its decision,
// and every alias other hook systems use for it (AOS methods, Claude Code, GoClaw, loom,
// AI Harness). Resolving a name is a single map lookup; an unknown name is an error that
// suggests the closest known names.

import { WardenError } from './errors.js'

/** Canonical event names known to Warden (plus any `custom.*` / `meta.*` name). */
export const CANONICAL_EVENTS = [
  'agent.trigger',
  'user.message',
  'agent.response',
  'system.message',
  'tool.pre',
  'tool.post',
  'memory.retrieve',
  'memory.store',
  'knowledge.retrieve',
  'mcp.outbound',
  'mcp.inbound',
  'mcp.resource.read',
  'mcp.resource.read.post',
  'mcp.prompt.get',
  'mcp.prompt.get.post',
  'mcp.sampling',
  'mcp.sampling.post',
  'mcp.elicitation',
  'mcp.elicitation.post',
  'a2a.send',
  'a2a.stream',
  'a2a.cancel',
  'a2a.get',
  'a2a.pushConfig.get',
  'a2a.pushConfig.set',
  'a2a.resubscribe',
  'a2a.list',
  'a2a.pushConfig.list',
  'a2a.pushConfig.delete',
  'a2a.card',
  'a2a.response',
  'model.pre',
  'model.post',
  'subagent.start',
  'subagent.stop',
  'subagent.verify',
  'agent.stop',
  'session.start',
  'session.end',
  'error',
  'turn.begin',
  'turn.finish',
  'compact.pre',
  'compact.post',
  'skill.register',
  'skill.load',
  'skill.unload',
] as const

/** A canonical event name from the catalog. */
export type CatalogEventName = (typeof CANONICAL_EVENTS)[number]

/** Any canonical event name: a catalog name, or an embedder's `custom.*` / `meta.*` name. */
export type EventName = CatalogEventName | `custom.${string}` | `meta.${string}`

/** What the catalog knows about one canonical event. */
export interface EventInfo {
  name: CatalogEventName
  /** Whether the caller waits for the chain's decision. */
  blocking: boolean
  /** Other names for the event, by hook system. */
  aliases: { system: AliasSystem; name: string }[]
  /** The Claude Code `hook_event_name`, where Claude Code has one. */
  claudeName?: string
}

export type AliasSystem = 'aos' | 'claude' | 'goclaw' | 'loom' | 'harness' | 'acs'

interface CatalogRow {
  blocking: boolean
  aos?: string[]
  claude?: string
  goclaw?: string
  loom?: string[]
  harness?: string[]
  acs?: string[]
}

const ROWS: Record<CatalogEventName, CatalogRow> = {
  'agent.trigger': { blocking: true, aos: ['steps/agentTrigger'] },
  'user.message': {
    blocking: true,
    aos: ['steps/message#user'],
    claude: 'UserPromptSubmit',
    goclaw: 'user_prompt_submit',
    loom: ['user.prompt.submit'],
    harness: ['turn.start'],
  },
  'agent.response': { blocking: true, aos: ['steps/message#agent'], harness: ['turn.end'] },
  'system.message': { blocking: true, aos: ['steps/message#system'] },
  'tool.pre': {
    blocking: true,
    aos: ['steps/toolCallRequest'],
    claude: 'PreToolUse',
    goclaw: 'pre_tool_use',
    loom: ['tool.pre'],
  },
  'tool.post': {
    blocking: true,
    aos: ['steps/toolCallResult'],
    claude: 'PostToolUse',
    goclaw: 'post_tool_use',
    loom: ['tool.post'],
  },
  'memory.retrieve': { blocking: true, aos: ['steps/memoryContextRetrieval'] },
  'memory.store': { blocking: true, aos: ['steps/memoryStore'] },
  'knowledge.retrieve': { blocking: true, aos: ['steps/knowledgeRetrieval'] },
  'mcp.outbound': { blocking: true, aos: ['protocols/MCP#outbound'] },
  'mcp.inbound': { blocking: true, aos: ['protocols/MCP#inbound'] },
  // MCP features a gateway checks: the request, then its answer (`.post`).
  'mcp.resource.read': { blocking: true },
  'mcp.resource.read.post': { blocking: true },
  'mcp.prompt.get': { blocking: true },
  'mcp.prompt.get.post': { blocking: true },
  'mcp.sampling': { blocking: true },
  'mcp.sampling.post': { blocking: true },
  'mcp.elicitation': { blocking: true },
  'mcp.elicitation.post': { blocking: true },
  'a2a.send': { blocking: true, aos: ['message/send'] },
  'a2a.stream': { blocking: true, aos: ['message/stream'] },
  'a2a.cancel': { blocking: true, aos: ['tasks/cancel'] },
  'a2a.get': { blocking: true, aos: ['tasks/get'] },
  'a2a.pushConfig.get': { blocking: true, aos: ['tasks/pushNotificationConfig/get'] },
  'a2a.pushConfig.set': { blocking: true, aos: ['tasks/pushNotificationConfig/set'] },
  'a2a.resubscribe': { blocking: true, aos: ['tasks/resubscribe'] },
  'a2a.list': { blocking: true, aos: ['tasks/list'] },
  'a2a.pushConfig.list': { blocking: true, aos: ['tasks/pushNotificationConfig/list'] },
  'a2a.pushConfig.delete': { blocking: true, aos: ['tasks/pushNotificationConfig/delete'] },
  'a2a.card': { blocking: true },
  'a2a.response': { blocking: true },
  'model.pre': { blocking: true, loom: ['model.pre'], harness: ['completion.pre'] },
  'model.post': { blocking: false, loom: ['model.post'], harness: ['completion.post'] },
  'subagent.start': {
    blocking: true,
    claude: 'SubagentStart',
    goclaw: 'subagent_start',
    harness: ['delegation.pre'],
  },
  'subagent.stop': {
    blocking: false,
    claude: 'SubagentStop',
    goclaw: 'subagent_stop',
    harness: ['delegation.post'],
  },
  // AI Harness's delegation.post_verify: its own event, run after subagent.stop's chain (the
  // engine dispatches it when it has hooks); its block() denies.
  'subagent.verify': { blocking: true, harness: ['delegation.post_verify'] },
  'agent.stop': { blocking: true, claude: 'Stop', goclaw: 'stop', harness: ['agent.stop'] },
  'session.start': {
    blocking: false,
    claude: 'SessionStart',
    goclaw: 'session_start',
    loom: ['session.start'],
  },
  'session.end': { blocking: false, claude: 'SessionEnd', goclaw: 'session_end', loom: ['session.end'] },
  error: { blocking: false, claude: 'StopFailure', loom: ['error'] },
  // ACS turn boundaries. AI Harness already spells `turn.start`/`turn.end` for the user's
  // message and the agent's answer (aliases above), so these take other canonical names.
  'turn.begin': { blocking: true, acs: ['steps/turnStart'] },
  'turn.finish': { blocking: false, acs: ['steps/turnEnd'] },
  'compact.pre': { blocking: true, acs: ['steps/preCompact'] },
  'compact.post': { blocking: true, acs: ['steps/postCompact'] },
  'skill.register': { blocking: true, acs: ['steps/skillRegister'] },
  'skill.load': { blocking: true, acs: ['steps/skillLoad'] },
  'skill.unload': { blocking: false, acs: ['steps/skillUnload'] },
}

function buildCatalog(): { infos: Map<CatalogEventName, EventInfo>; lookup: Map<string, CatalogEventName> } {
  const infos = new Map<CatalogEventName, EventInfo>()
  const lookup = new Map<string, CatalogEventName>()
  for (const name of CANONICAL_EVENTS) {
    const row = ROWS[name]
    const aliases: EventInfo['aliases'] = []
    for (const a of row.aos ?? []) aliases.push({ system: 'aos', name: a })
    if (row.claude) aliases.push({ system: 'claude', name: row.claude })
    if (row.goclaw) aliases.push({ system: 'goclaw', name: row.goclaw })
    for (const a of row.loom ?? []) aliases.push({ system: 'loom', name: a })
    for (const a of row.harness ?? []) aliases.push({ system: 'harness', name: a })
    for (const a of row.acs ?? []) aliases.push({ system: 'acs', name: a })
    const info: EventInfo = { name, blocking: row.blocking, aliases }
    if (row.claude) info.claudeName = row.claude
    infos.set(name, info)
    lookup.set(name, name)
    for (const alias of aliases) lookup.set(alias.name, name)
  }
  // Spelling variants people type: role-qualified AOS names with a colon or slash.
  for (const role of ['user', 'agent', 'system'] as const) {
    const target = role === 'user' ? 'user.message' : role === 'agent' ? 'agent.response' : 'system.message'
    lookup.set(`steps/message:${role}`, target)
    lookup.set(`steps/message/${role}`, target)
  }
  return { infos, lookup }
}

const { infos: INFOS, lookup: LOOKUP } = buildCatalog()

/** Every name the catalog accepts (canonical names and aliases). */
export function knownEventNames(): string[] {
  return [...LOOKUP.keys()]
}

/** Whether `name` is an embedder-defined event (`custom.*` or `meta.*`). */
export function isOpenEventName(name: string): name is `custom.${string}` | `meta.${string}` {
  return (name.startsWith('custom.') || name.startsWith('meta.')) && name.length > name.indexOf('.') + 1
}

/**
 * Resolves a canonical name or any alias to the canonical name, or undefined when unknown.
 * `steps/message` alone is ambiguous (its role decides) and resolves to undefined.
 */
export function lookupEventName(name: string): EventName | undefined {
  const found = LOOKUP.get(name)
  if (found) return found
  if (isOpenEventName(name)) return name
  return undefined
}

/**
 * Resolves a canonical name or any alias to the canonical name.
 * @throws WardenError `unknown-event` naming the closest known names.
 */
export function resolveEventName(name: string): EventName {
  const found = lookupEventName(name)
  if (found) return found
  const hint = suggestEventNames(name)
  const suggestion = hint.length > 0 ? ` Did you mean ${hint.map((h) => `"${h}"`).join(' or ')}?` : ''
  throw new WardenError(
    'unknown-event',
    `unknown event "${name}".${suggestion} Use a canonical name such as "tool.pre", an alias such as "PreToolUse", or "custom.<name>".`,
  )
}

/** Catalog facts for a canonical event; `custom.*` and `meta.*` events block. */
export function eventInfo(name: EventName): EventInfo {
  const info = INFOS.get(name as CatalogEventName)
  if (info) return info
  return { name: name as CatalogEventName, blocking: true, aliases: [] }
}

/** Whether callers wait for the decision on this event. */
export function isBlockingEvent(name: EventName): boolean {
  return INFOS.get(name as CatalogEventName)?.blocking ?? true
}

/** The closest known names to `name` (edit distance, case-insensitive), best first. */
export function suggestEventNames(name: string, max = 3): string[] {
  const lower = name.toLowerCase()
  const scored: { name: string; score: number }[] = []
  for (const candidate of LOOKUP.keys()) {
    const distance = editDistance(lower, candidate.toLowerCase())
    const limit = Math.max(2, Math.floor(candidate.length / 3))
    if (distance <= limit) scored.push({ name: candidate, score: distance })
  }
  scored.sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
  return scored.slice(0, max).map((s) => s.name)
}

/** Levenshtein distance between two strings. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost)
    }
    previous = current
  }
  return previous[b.length] ?? 0
}
