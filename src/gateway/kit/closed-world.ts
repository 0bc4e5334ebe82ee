// The closed-world item registry every gateway models its protocol with. A protocol declares,
// per place where typed items stand (a request's input items, a message's content blocks, an
// answer's output items, a stream's events, an MCP method…), what Warden does with each type
// it knows: check it as an event, pass it as inert (it carries no text, tool call or tool
// result), or refuse it. A type that is not in the table is refused, naming the type and the
// setting that lets it through; an operator who lets a named type through is told so through
// `onLetThrough`, which the gateway records in its audit and security log.

/** What a gateway does with one item type. */
export type ItemRule =
  /** Mapped to an event and checked; `event` names it, `field` what the hooks see. */
  | { kind: 'checked'; event: string; note: string }
  /** Carries no text, tool call or tool result a hook could check (a role marker, usage…). */
  | { kind: 'inert'; note: string }
  /** Refused even when listed in the setting: Warden cannot check it, and says why. */
  | { kind: 'refused'; note: string }

/** The table of one place in one protocol. */
export interface ItemTable {
  /** The protocol, as operators name it in settings: `openai.chat`, `anthropic.messages`, `mcp`… */
  protocol: string
  /** Where the items stand, in words: `request item`, `content block`, `stream event`… */
  place: string
  /** The short name of the place used in setting keys: `input`, `content`, `output`, `event`. */
  key: string
  rules: Readonly<Record<string, ItemRule>>
}

/** What to do with an item, as the registry decided it. */
export type ItemVerdict =
  | { kind: 'checked'; event: string }
  | { kind: 'inert' }
  /** Unknown, but let through by the operator's setting (already reported). */
  | { kind: 'let-through'; key: string }
  | { kind: 'refused'; reason: string; key: string }

/** Where a gateway's operator lets named unknown types through, and who hears of it. */
export interface UnknownTypePolicy {
  /** The setting's name, quoted in refusals: `llm.allowUnknownTypes`. */
  setting: string
  /** Keys (`protocol/place/type`) the operator lets through unchecked. */
  allowed: ReadonlySet<string>
  /** Called each time an unknown type is let through (for the audit and security log). */
  onLetThrough?: (key: string, table: ItemTable) => void
}

/** A policy that lets nothing unknown through. */
export const REFUSE_UNKNOWN: UnknownTypePolicy = { setting: 'allowUnknownTypes', allowed: new Set() }

/** The setting key of `type` in `table`: `openai.responses/output/web_search_call`. */
export function itemKey(table: ItemTable, type: string): string {
  return `${table.protocol}/${table.key}/${type}`
}

const SHOWN_TYPE = 64

/**
 * Decides what to do with an item of `type` (`undefined` when the item has no readable type)
 * in `table`, under the operator's `policy`.
 */
export function classifyItem(
  table: ItemTable,
  type: unknown,
  policy: UnknownTypePolicy = REFUSE_UNKNOWN,
): ItemVerdict {
  if (typeof type !== 'string' || type.length === 0) {
    const key = itemKey(table, '?')
    return {
      kind: 'refused',
      key,
      reason: `a ${table.place} in ${table.protocol} has no readable type (${describeType(type)}); Warden refuses what it cannot check`,
    }
  }
  const rule = Object.hasOwn(table.rules, type) ? table.rules[type] : undefined
  const key = itemKey(table, type)
  if (rule?.kind === 'checked') return { kind: 'checked', event: rule.event }
  if (rule?.kind === 'inert') return { kind: 'inert' }
  if (rule?.kind === 'refused') {
    return {
      kind: 'refused',
      key,
      reason: `${table.protocol} ${table.place} type "${shown(type)}" is refused: ${rule.note}`,
    }
  }
  if (policy.allowed.has(key)) {
    policy.onLetThrough?.(key, table)
    return { kind: 'let-through', key }
  }
  return {
    kind: 'refused',
    key,
    reason: `unknown ${table.protocol} ${table.place} type "${shown(type)}": Warden refuses what it does not check (an operator can let it through unchecked with ${policy.setting}: ["${shown(key)}"])`,
  }
}

/**
 * The first refusal among `types` (each item's type), or undefined when every one is checked,
 * inert or let through.
 */
export function firstRefusal(
  table: ItemTable,
  types: Iterable<unknown>,
  policy: UnknownTypePolicy = REFUSE_UNKNOWN,
): Extract<ItemVerdict, { kind: 'refused' }> | undefined {
  for (const type of types) {
    const verdict = classifyItem(table, type, policy)
    if (verdict.kind === 'refused') return verdict
  }
  return undefined
}

/** Every `protocol/place/type` key a table declares, with its rule (for docs and corpus tests). */
export function tableEntries(table: ItemTable): Array<{ key: string; type: string; rule: ItemRule }> {
  return Object.entries(table.rules).map(([type, rule]) => ({ key: itemKey(table, type), type, rule }))
}

/**
 * The policy for `setting` from the operator's list, checking each entry is a
 * `protocol/place/type` key of one of `tables` (a typo would otherwise let nothing through
 * silently, or be mistaken for a rule).
 * @throws Error naming the entry that is not a key of any table.
 */
export function unknownTypePolicy(
  setting: string,
  entries: readonly string[],
  tables: readonly ItemTable[],
  onLetThrough?: UnknownTypePolicy['onLetThrough'],
): UnknownTypePolicy {
  for (const entry of entries) {
    const match = /^([^/]+)\/([^/]+)\/(.+)$/.exec(entry)
    const table = match && tables.find((t) => t.protocol === match[1] && t.key === match[2])
    if (!match || !table) {
      const places = [...new Set(tables.map((t) => `${t.protocol}/${t.key}`))].join(', ')
      throw new Error(`${setting}: "${shown(entry)}" is not protocol/place/type (places: ${places})`)
    }
    const known = Object.hasOwn(table.rules, match[3] as string) ? table.rules[match[3] as string] : undefined
    if (known?.kind === 'refused') {
      throw new Error(`${setting}: "${shown(entry)}" cannot be let through: ${known.note}`)
    }
  }
  const policy: UnknownTypePolicy = { setting, allowed: new Set(entries) }
  if (onLetThrough) policy.onLetThrough = onLetThrough
  return policy
}

function shown(text: string): string {
  const cut = text.length > SHOWN_TYPE ? `${text.slice(0, SHOWN_TYPE)}…` : text
  return cut.replace(/[^\x20-\x7e]/g, '?')
}

function describeType(type: unknown): string {
  if (type === undefined) return 'no type field'
  if (type === null) return 'type is null'
  if (typeof type === 'string') return 'an empty type'
  return `type is ${Array.isArray(type) ? 'an array' : typeof type}`
}
