// Command rules for the shell detector's allowlist mode, in Claude Code's permission syntax:
// `git status` (exactly that), `npm run test:*` or `npm run test *` (that and any further
// words), `git * main` (`*` alone stands for any words), `docker*` (`*` inside a word is any
// characters). `Bash(…)` around a rule is accepted, so Claude Code lists can be copied.
// Words are matched after the shell reader removed quotes; a word whose value it could not
// know matches only a `*`.

import { starMatches } from './shell-glob.js'
import { type ShellReading, spend } from './shell-syntax.js'

/** One rule, read. */
export interface CommandRule {
  /** The rule as written (for reasons). */
  text: string
  /** The words to match; `*` alone stands for any number of words. */
  words: string[]
  /** Any further words are accepted (`:*` or a final `*`). */
  tail: boolean
  /** Words of the rule that are not `*` alone: a command needs at least as many. */
  literals: number
}

/** Rules by the program they name (a rule starting with a wildcard matches any program). */
export interface RuleIndex {
  byProgram: Map<string, CommandRule[]>
  anyProgram: CommandRule[]
  size: number
}

/** The text of a rule without `Bash(…)`; undefined for a rule about another tool. */
export function bashRuleText(rule: string): string | undefined {
  const text = rule.trim()
  if (text === 'Bash' || text === 'Bash(*)' || text === 'Bash()') return '*'
  const match = /^Bash\((.*)\)$/s.exec(text)
  if (match) return (match[1] as string).trim() || '*'
  if (/^[A-Za-z_]+\(.*\)$/s.test(text) || /^[A-Z][A-Za-z]*$/.test(text) || text.startsWith('mcp__'))
    return undefined
  return text
}

/** Reads one rule (`git status`, `npm run:*`, `Bash(git diff *)`). */
export function compileRule(rule: string): CommandRule {
  const text = bashRuleText(rule) ?? rule.trim()
  let body = text
  let tail = false
  if (body.endsWith(':*')) {
    body = body.slice(0, -2)
    tail = true
  }
  const words = body.split(/\s+/).filter(Boolean)
  // A final `*` (alone, or glued to the last word) also accepts nothing after it.
  if (words[words.length - 1] === '*') {
    words.pop()
    tail = true
  } else if (words.length > 0 && (words[words.length - 1] as string).endsWith('*')) tail = true
  return { text: rule.trim(), words, tail, literals: words.filter((w) => w !== '*').length }
}

/** Indexes rules by the program they name. */
export function indexRules(rules: readonly string[]): RuleIndex {
  const index: RuleIndex = { byProgram: new Map(), anyProgram: [], size: rules.length }
  for (const text of rules) {
    const rule = compileRule(text)
    const first = rule.words[0]
    if (first === undefined || first.includes('*')) index.anyProgram.push(rule)
    else {
      const list = index.byProgram.get(first) ?? []
      list.push(rule)
      index.byProgram.set(first, list)
    }
  }
  return index
}

/** A command's words as the rules see them. */
export interface CommandWords {
  words: readonly string[]
  /** Per word: its value could not be known. */
  dynamic: readonly boolean[]
  /** More words may come from stdin (`xargs`): only a rule open at its end accepts it. */
  open: boolean
}

function wordMatches(pattern: string, word: string, dynamic: boolean): boolean {
  if (dynamic) return false
  return pattern.includes('*') ? starMatches(pattern, word) : pattern === word
}

/**
 * True when the rule accepts the command. A `*` word takes any run of words (dynamic ones
 * too); the last pattern word with `*` in it also takes the rest when the rule is open.
 */
export function ruleMatches(rule: CommandRule, command: CommandWords): boolean {
  const { words, dynamic } = command
  const pattern = rule.words
  const m = pattern.length
  if (rule.literals > words.length) return false
  // reach[j]: the first j pattern words can match the words read so far (two rows, reused).
  let reach = row(0, m)
  let next = row(1, m)
  reach[0] = 1
  for (let j = 0; j < m && pattern[j] === '*'; j++) reach[j + 1] = 1
  for (let i = 0; i < words.length; i++) {
    // Once the whole of an open rule matched, any further words are accepted.
    if (rule.tail && reach[m] === 1) return true
    next.fill(0, 0, m + 1)
    const word = words[i] as string
    let alive = false
    for (let j = 0; j < m; j++) {
      if (reach[j] !== 1) continue
      const p = pattern[j] as string
      if (p === '*') next[j] = 1
      if (p === '*' || wordMatches(p, word, dynamic[i] === true)) next[j + 1] = 1
    }
    for (let j = 0; j < m; j++) if (next[j] === 1 && pattern[j] === '*') next[j + 1] = 1
    for (let j = 0; j <= m && !alive; j++) alive = next[j] === 1
    if (!alive) return false
    const swap = reach
    reach = next
    next = swap
  }
  if (rule.tail && reach[m] === 1) return true
  return !command.open && reach[m] === 1
}

const ROWS: Uint8Array[] = [new Uint8Array(64), new Uint8Array(64)]

/** A scratch row of at least `m + 1` cells, cleared. */
function row(which: 0 | 1, m: number): Uint8Array {
  let cells = ROWS[which] as Uint8Array
  if (cells.length < m + 1) {
    cells = new Uint8Array(m + 1)
    ROWS[which] = cells
  }
  cells.fill(0, 0, m + 1)
  return cells
}

/**
 * The first rule of the index that accepts the command (`program` is the name as written).
 * Each rule tried spends the command's length from the reading's work budget; once it is
 * spent no rule is found (and the reading records the bound).
 */
export function findRule(
  index: RuleIndex,
  program: string,
  command: CommandWords,
  reading?: ShellReading,
): CommandRule | undefined {
  const cost = command.words.length + 1
  for (const list of [index.byProgram.get(program) ?? [], index.anyProgram])
    for (const rule of list) {
      if (reading && !spend(reading, cost)) return undefined
      if (ruleMatches(rule, command)) return rule
    }
  return undefined
}

/**
 * Shell builtins that run nothing and change nothing outside the shell itself: allowed in
 * allowlist mode without a rule (deny rules still apply). `eval`, `trap` and the wrappers'
 * commands are read and checked in their turn.
 */
export const SAFE_BUILTINS = new Set(
  'cd pwd echo printf true false : test [ [[ export unset set shift exit return local declare readonly read wait eval trap break continue'.split(
    ' ',
  ),
)
