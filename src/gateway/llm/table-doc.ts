// The closed-world tables as Markdown, for the gateway's page in docs/: one table per place,
// every type with what happens to it, and the types refused unless an operator lets them
// through. The docs hold this text between markers; a test checks it matches the tables.

import { type ItemTable, tableEntries } from '../kit/index.js'

/** What a rule does, in words. */
function what(rule: ReturnType<typeof tableEntries>[number]['rule']): string {
  if (rule.kind === 'checked') return `checked as \`${rule.event}\``
  if (rule.kind === 'inert') return 'passed (nothing to check)'
  return 'always refused'
}

/**
 * The Markdown listing of `tables`: each type, what happens to it and why; then the types of
 * `unchecked` (by table key), refused unless let through by name with `setting`.
 */
export function tablesMarkdown(
  tables: readonly ItemTable[],
  unchecked: Readonly<Record<string, Readonly<Record<string, string>>>>,
  setting: string,
): string {
  const out: string[] = []
  for (const table of tables) {
    out.push(`#### ${table.place} (\`${table.protocol}/${table.key}/…\`)`, '')
    out.push('| type | what happens | note |', '|---|---|---|')
    for (const { type, rule } of tableEntries(table))
      out.push(`| \`${type}\` | ${what(rule)} | ${rule.note} |`)
    for (const [type, note] of Object.entries(unchecked[table.key] ?? {}))
      out.push(`| \`${type}\` | refused unless let through with \`${setting}\` | ${note} |`)
    out.push(
      `| any other | refused, naming the type | \`${setting}: ["${table.protocol}/${table.key}/TYPE"]\` lets it through unchecked |`,
      '',
    )
  }
  return out.join('\n')
}
