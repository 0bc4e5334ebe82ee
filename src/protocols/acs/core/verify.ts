// Verifies a session's stored chain (§8.2): every entry's hash recomputed from its content
// and the previous hash, and every link pointing at the entry before it. Says where it broke,
// every place it broke: checking goes on past a problem (from the entry's own stored hash),
// so a first break cannot hide later tampering.

import { entryHash } from './crypto.js'
import type { ChainEntry } from './ledger.js'

/** One place a chain does not verify. */
export interface ChainProblem {
  /** The entry's position, from 0. */
  index: number
  entryId: string
  problem: string
}

/** What {@link verifyChain} found. */
export type ChainVerdict =
  | { ok: true; entries: number; head: string | null }
  | ({ ok: false; entries: number; head: string | null; problems: ChainProblem[] } & ChainProblem)

/** Recomputes the chain of a session's entries, oldest first, and lists every problem. */
export function verifyChain(entries: readonly ChainEntry[]): ChainVerdict {
  let previous: string | null = null
  const problems: ChainProblem[] = []
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index] as ChainEntry
    const fail = (problem: string) => problems.push({ index, entryId: entry.entry_id, problem })
    if (entry.previous_hash !== previous) {
      fail(
        `entry ${index + 1} links to ${entry.previous_hash ?? 'nothing'} but the entry before it hashes to ${previous ?? 'nothing'} (an entry was removed, added or reordered)`,
      )
    }
    const recomputed = entryHash(entry as unknown as Record<string, unknown>, entry.previous_hash)
    if (recomputed !== entry.entry_hash) {
      fail(
        `entry ${index + 1} (${entry.step_type}, step ${entry.step_id}) does not hash to its stored entry_hash: its content was altered`,
      )
    }
    previous = entry.entry_hash
  }
  const first = problems[0]
  if (!first) return { ok: true, entries: entries.length, head: previous }
  return { ok: false, entries: entries.length, head: previous, problems, ...first }
}
