// The closed world of one call: each typed item of a request, an answer or a stream is
// looked up in its API's table (see chat-tables.ts, anthropic-tables.ts). A type the table
// maps is checked or inert; one it lists as running on the model's side (a server tool
// whose call Warden cannot see before it runs) and any type it does not know is refused,
// naming the type and the `llm.allowUnknownTypes` key that lets it through; the keys the
// operator let through are kept for the call's audit.

import {
  classifyItem,
  type ItemRule,
  type ItemTable,
  type ItemVerdict,
  itemKey,
  tableEntries,
  type UnknownTypePolicy,
} from '../kit/index.js'
import type { ApiErrorInfo } from './api.js'

/** The setting that lets named unknown types through. */
export const LLM_TYPES_SETTING = 'llm.allowUnknownTypes'

/** The policy when the operator lets nothing through. */
export const LLM_REFUSE_UNKNOWN: UnknownTypePolicy = { setting: LLM_TYPES_SETTING, allowed: new Set() }

/** A table of one place, with the types known to run on the model's side. */
export interface LlmItemTable extends ItemTable {
  /** Types Warden knows but cannot check (a server tool runs before Warden sees its call): refused unless let through (type → why). */
  unlessLetThrough?: Readonly<Record<string, string>>
}

/** One row of the documentation: a type and what happens to it. */
export interface TypeRow {
  key: string
  type: string
  what: string
}

/** Every type a table knows, as the documentation lists it. */
export function tableRows(table: LlmItemTable): TypeRow[] {
  const rows = tableEntries(table).map(({ key, type, rule }) => ({ key, type, what: ruleText(rule) }))
  for (const [type, note] of Object.entries(table.unlessLetThrough ?? {}))
    rows.push({ key: itemKey(table, type), type, what: `refused unless let through: ${note}` })
  return rows.sort((a, b) => a.type.localeCompare(b.type))
}

function ruleText(rule: ItemRule): string {
  if (rule.kind === 'checked') return `checked as \`${rule.event}\`: ${rule.note}`
  if (rule.kind === 'inert') return `passed: ${rule.note}`
  return `refused: ${rule.note}`
}

/** The types of one call: the first refusal and the let-throughs. */
export class TypeCheck {
  private refused: ApiErrorInfo | undefined
  private readonly through = new Set<string>()

  /**
   * @param status the status of a refusal: 400 for a request, 502 for an answer
   */
  constructor(
    private readonly policy: UnknownTypePolicy = LLM_REFUSE_UNKNOWN,
    private readonly status = 400,
  ) {}

  /** Looks `type` up in `table`; false when refused (the first refusal is kept). */
  allows(table: LlmItemTable, type: unknown): boolean {
    return this.verdict(table, type).kind !== 'refused'
  }

  /** What to do with `type` in `table` (refusals and let-throughs are kept). */
  verdict(table: LlmItemTable, type: unknown): ItemVerdict {
    if (typeof type === 'string' && this.through.has(itemKey(table, type)))
      return { kind: 'let-through', key: itemKey(table, type) }
    const upstream =
      typeof type === 'string' && table.unlessLetThrough && Object.hasOwn(table.unlessLetThrough, type)
        ? table.unlessLetThrough[type]
        : undefined
    const verdict = classifyItem(table, type, this.policy)
    if (verdict.kind === 'let-through') this.through.add(verdict.key)
    if (verdict.kind !== 'refused') return verdict
    const reason =
      upstream === undefined
        ? verdict.reason
        : `${table.protocol} ${table.place} type "${String(type)}" is refused: ${upstream} (an operator can let it through with ${this.policy.setting}: ["${verdict.key}"])`
    this.refuse(reason)
    return { ...verdict, reason }
  }

  /** Refuses the call for `reason` (the first reason is kept). */
  refuse(reason: string): void {
    this.refused ??= { status: this.status, code: 'unsupported_type', message: `Warden refused: ${reason}` }
  }

  /** The refusal, if any. */
  refusal(): ApiErrorInfo | undefined {
    return this.refused
  }

  /** The keys let through so far. */
  letThrough(): string[] {
    return [...this.through]
  }
}

/** The documentation's list of `tables`: one Markdown table per place, every type and what happens to it. */
export function renderTypeTables(tables: readonly LlmItemTable[]): string {
  const out: string[] = []
  for (const table of tables) {
    out.push(
      `**${table.place}** (\`${table.protocol}/${table.key}/…\`)`,
      '',
      '| type | what happens |',
      '|---|---|',
    )
    for (const row of tableRows(table)) out.push(`| \`${row.type}\` | ${row.what.replace(/\|/g, '\\|')} |`)
    out.push(
      `| any other | refused unless \`${LLM_TYPES_SETTING}\` lists \`${table.protocol}/${table.key}/TYPE\` |`,
      '',
    )
  }
  return out.join('\n').trimEnd()
}
