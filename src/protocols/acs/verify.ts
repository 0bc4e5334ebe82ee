// Verifies a session's stored chain (§8.2): every entry's hash recomputed from its content
// and the previous hash, and every link pointing at the entry before it. Says where it broke.

import { entryHash } from './crypto.js'
import type { ChainEntry } from './ledger.js'

/** What {@link verifyChain} found. */
export type ChainVerdict =
  | { ok: true; entries: number; head: string | null }
  | { ok: false; entries: number; index: number; entryId: string; problem: string }

/** Recomputes the chain of a session's entries, oldest first. */
export function verifyChain(entries: readonly ChainEntry[]): ChainVerdict {
  let previous: string | null = null
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index] as ChainEntry
    const fail = (problem: string): ChainVerdict => ({
      ok: false,
      entries: entries.length,
      index,
      entryId: entry.entry_id,
      problem,
    })
    if (entry.previous_hash !== previous) {
      return fail(
        `entry ${index + 1} links to ${entry.previous_hash ?? 'nothing'} but the entry before it hashes to ${previous ?? 'nothing'} (an entry was removed, added or reordered)`,
      )
    }
    const recomputed = entryHash(entry as unknown as Record<string, unknown>, previous)
    if (recomputed !== entry.entry_hash) {
      return fail(
        `entry ${index + 1} (${entry.step_type}, step ${entry.step_id}) does not hash to its stored entry_hash: its content was altered`,
      )
    }
    previous = entry.entry_hash
  }
  return { ok: true, entries: entries.length, head: previous }
}
