// `warden audit verify --session ID`: recomputes an ACS session's hash chain from the store
// (§8.2), checks each entry against the audit record of its decision (a record that is
// missing or says otherwise fails, naming the entry), and, given the head and the count the
// agent recorded (--expect-head, --expect-count), catches a chain truncated or recomputed
// after the fact. Every problem is reported, not only the first. Exit 0 intact, 2 altered,
// 1 error.

import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { type ChainEntry, verifyChain } from '../protocols/acs/index.js'
import { openAcsLedger } from '../server/index.js'
import { loadConfig } from '../sources/index.js'
import { openStore, redactLocation, resolveDatabaseLocation } from '../store/index.js'
import { parseArgs } from './args.js'
import type { CliIo } from './io.js'

const HELP = `usage: warden audit verify --session ID [--tenant T] [--expect-head HASH] [--expect-count N]
                          [--db URL] [--config warden.yaml]

Recomputes the ACS session chain (entry_hash = SHA-256(JCS(entry) || previous_hash)) and
checks every entry's decision against its audit record; a missing record fails. With
--expect-head (the last chain_hash the agent received) and --expect-count (the entries it
expects), a chain that was truncated, extended or recomputed fails too. Sessions are kept
per tenant: --tenant names the session's tenant (none for requests without one). Sessions are kept
per tenant: --tenant names the session's tenant (none for requests without one). Exit 0 when intact,
2 when the record was altered (naming every entry that does not verify), 1 on error.

example:
  warden audit verify --session 7c0e9f1a-2b1d-4c55-9a0e-3f1f0c1d2e3f --db .warden/warden.db
`

/** Why the chain does not end where the agent saw it end, or undefined when it does. */
function expectationProblem(
  entries: readonly ChainEntry[],
  head: string | null,
  expected: { head?: string; count?: number },
): string | undefined {
  if (expected.count !== undefined && entries.length !== expected.count) {
    return `the chain holds ${entries.length} entries but ${expected.count} were expected (${entries.length < expected.count ? 'entries were removed' : 'entries were added'})`
  }
  if (expected.head !== undefined && head !== expected.head) {
    const at = entries.findIndex((e) => e.entry_hash === expected.head)
    return at < 0
      ? `the chain ends at ${head ?? 'nothing'}, and the expected head ${expected.head} is not in it: the chain was rewritten or truncated`
      : `the expected head is entry ${at + 1}, and ${entries.length - at - 1} entries follow it`
  }
  return undefined
}

/** Parses the expectations, or says which one is malformed. */
function expectations(values: {
  'expect-head'?: string
  'expect-count'?: string
}): { head?: string; count?: number } | string {
  const head = values['expect-head']
  if (head !== undefined && !/^[0-9a-f]{64}$/.test(head)) {
    return '--expect-head must be a chain_hash: 64 lowercase hex characters'
  }
  const raw = values['expect-count']
  const count = raw === undefined ? undefined : Number(raw)
  if (count !== undefined && (!/^\d{1,9}$/.test(raw ?? '') || !Number.isSafeInteger(count))) {
    return '--expect-count must be a whole number of entries, e.g. 4'
  }
  return { ...(head !== undefined ? { head } : {}), ...(count !== undefined ? { count } : {}) }
}

/** Runs `warden audit <subcommand>`. */
export async function run(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args
  if (sub === '--help' || sub === '-h' || sub === undefined) {
    io.stdout(HELP)
    return sub === undefined ? 1 : 0
  }
  if (sub !== 'verify') {
    io.stderr(
      `warden audit: unknown subcommand "${sub.slice(0, 40)}"; use "warden audit verify --session ID"\n`,
    )
    return 1
  }
  let values: {
    session?: string
    tenant?: string
    db?: string
    config?: string
    help?: boolean
    'expect-head'?: string
    'expect-count'?: string
  }
  try {
    values = parseArgs({
      args: rest,
      options: {
        session: { type: 'string' },
        tenant: { type: 'string' },
        db: { type: 'string' },
        config: { type: 'string' },
        'expect-head': { type: 'string' },
        'expect-count': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values
  } catch (error) {
    io.stderr(`warden audit verify: ${(error as Error).message}\n\n${HELP}`)
    return 1
  }
  if (values.help) {
    io.stdout(HELP)
    return 0
  }
  if (!values.session) {
    io.stderr(`warden audit verify: --session ID is required\n\n${HELP}`)
    return 1
  }
  const expected = expectations(values)
  if (typeof expected === 'string') {
    io.stderr(`warden audit verify: ${expected}\n\n${HELP}`)
    return 1
  }
  let location: string
  try {
    const path = values.config ?? (existsSync(resolve(io.cwd, 'warden.yaml')) ? 'warden.yaml' : undefined)
    const config = path ? await loadConfig(resolve(io.cwd, path)) : undefined
    location = resolveDatabaseLocation({
      flag: values.db,
      env: io.env,
      config: config?.raw.db as string | undefined,
    })
    if (!/^postgres(ql)?:\/\//i.test(location)) location = resolve(io.cwd, location.replace(/^sqlite:/i, ''))
  } catch (error) {
    io.stderr(`warden audit verify: ${(error as Error).message}\n`)
    return 1
  }
  let store: Awaited<ReturnType<typeof openStore>> | undefined
  const ledger = { current: undefined as ReturnType<typeof openAcsLedger> | undefined }
  try {
    store = await openStore(location, { cwd: io.cwd })
    ledger.current = openAcsLedger(location)
    const entries = await ledger.current.entries({ tenant: values.tenant ?? '', session: values.session })
    if (entries.length === 0) {
      io.stderr(
        `warden audit verify: no ACS chain for session ${values.session} in ${redactLocation(location)}\n`,
      )
      return 1
    }
    const verdict = verifyChain(entries)
    const problems = verdict.ok ? [] : verdict.problems.map((p) => `${p.problem} (entry ${p.entryId})`)
    const short = expectationProblem(entries, verdict.head, expected)
    if (short) problems.push(short)
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i] as (typeof entries)[number]
      const recorded = await store.getDecision(entry.decision_id)
      if (!recorded) {
        problems.push(
          `entry ${i + 1} (${entry.step_type}, step ${entry.step_id}) chained decision "${entry.recorded_decision}" but its audit record ${entry.decision_id} is missing`,
        )
      } else if (recorded.decision !== entry.recorded_decision) {
        problems.push(
          `entry ${i + 1} (${entry.step_type}) chained decision "${entry.recorded_decision}" but audit record ${entry.decision_id} now says "${recorded.decision}"`,
        )
      }
    }
    if (problems.length > 0) {
      for (const problem of problems) io.stdout(`ALTERED: session ${values.session}, ${problem}\n`)
      io.stdout(
        `${problems.length} problem${problems.length === 1 ? '' : 's'} in ${entries.length} entries\n`,
      )
      return 2
    }
    io.stdout(`OK: session ${values.session}: ${entries.length} entries verify; head ${verdict.head}\n`)
    return 0
  } catch (error) {
    io.stderr(`warden audit verify: ${(error as Error).message}\n`)
    return 1
  } finally {
    await ledger.current?.close()
    await store?.close()
  }
}
