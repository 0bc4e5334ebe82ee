// §8.2 and §8.6 on a real database: the ACS ledger on SQLite and PostgreSQL (migration
// 0004_acs) shares replay memory between two Guardians, and `warden audit verify --session`
// proves a session's record intact or says where it was altered.

import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAuditWriter } from '../../src/audit/index.js'
import { run as audit } from '../../src/cli/audit-verify.js'
import type { CliIo } from '../../src/cli/io.js'
import type { JsonObject } from '../../src/core/index.js'
import { createEngine } from '../../src/index.js'
import { acsRequest, clientHello, createAcsService, settingsWith } from '../../src/protocols/acs/index.js'
import { openAcsLedger } from '../../src/server/acs-ledger.js'
import { openStore } from '../../src/store/index.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'
import { KEY } from './helper.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-acs-audit-'))
let pg: TestDatabase | undefined
beforeAll(async () => {
  pg = await postgresForTests()
})
afterAll(async () => {
  await pg?.release()
  rmSync(dir, { recursive: true, force: true })
})

function cliIo() {
  const out = { stdout: '', stderr: '' }
  const io: CliIo = {
    stdout: (t) => {
      out.stdout += t
    },
    stderr: (t) => {
      out.stderr += t
    },
    readStdin: async () => '',
    cwd: dir,
    env: {},
  }
  return { io, out }
}

/** Runs a short signed session through a Guardian recording to the store; returns its id. */
async function session(location: string, options: { mismatch?: boolean } = {}): Promise<string> {
  const store = await openStore(location, { cwd: dir })
  const writer = createAuditWriter(store, { mode: 'sync' })
  const ledger = openAcsLedger(location)
  const engine = createEngine({
    hooks: [
      {
        name: 'no-rm',
        event: 'tool.pre',
        handler: { type: 'fn', fn: () => ({ decision: 'deny', reason: 'no' }) },
      },
    ],
    recorder: writer,
  })
  const service = createAcsService({
    engine,
    ledger,
    settings: settingsWith({ keys: [{ ...KEY }] }),
    onAnswerChanged: (correction) => writer.correct(correction),
  })
  const sessionId = randomUUID()
  await service.handle(clientHello(sessionId, {}, { key: KEY }))
  if (options.mismatch) {
    // Any agent can send a wrong chain_hash: the step is denied, and record and chain agree.
    const wrong = acsRequest(
      'steps/turnStart',
      {},
      { sessionId, key: KEY, params: { chain_hash: 'f'.repeat(64) } },
    )
    const reply = (await service.handle(wrong)) as { result: JsonObject }
    expect(reply.result.reason_codes).toEqual(['chain_mismatch'])
  }
  for (const method of ['steps/sessionStart', 'steps/toolCallRequest', 'steps/sessionEnd']) {
    const payload: JsonObject =
      method === 'steps/toolCallRequest' ? { tool: { id: 'shell' }, arguments: {} } : {}
    const reply = (await service.handle(acsRequest(method, payload, { sessionId, key: KEY }))) as {
      result: JsonObject
    }
    expect(reply.result.chain_hash).toMatch(/^[0-9a-f]{64}$/)
  }
  // §10.3 across instances: a second Guardian on the same database refuses the replay.
  const replayed = acsRequest('steps/turnStart', {}, { sessionId, key: KEY })
  await service.handle(replayed)
  const otherLedger = openAcsLedger(location)
  const other = createAcsService({
    engine,
    ledger: otherLedger,
    settings: settingsWith({ keys: [{ ...KEY }], requireHandshake: false }),
  })
  expect(((await other.handle(replayed)) as { error: { code: number } }).error.code).toBe(-32005)
  await otherLedger.close()
  await engine.close()
  await writer.close()
  await ledger.close()
  await store.close()
  return sessionId
}

describe('§8.2 warden audit verify --session', () => {
  it('on SQLite: OK for an intact record, ALTERED naming the entry when a chained entry or its audit record changes', async () => {
    const file = join(dir, 'acs.db')
    const sessionId = await session(file)
    const ok = cliIo()
    expect(await audit(['verify', '--session', sessionId, '--db', file], ok.io)).toBe(0)
    expect(ok.out.stdout).toMatch(/^OK: .*4 entries verify/)

    const db = new BetterSqlite3(file)
    const row = db
      .prepare('select entry, decision_id from acs_chain where session_id = ? and seq = 2')
      .get(sessionId) as { entry: string; decision_id: string }
    db.prepare("update decisions set decision = 'allow' where id = ?").run(row.decision_id)
    const changedAudit = cliIo()
    expect(await audit(['verify', '--session', sessionId, '--db', file], changedAudit.io)).toBe(2)
    expect(changedAudit.out.stdout).toMatch(
      /entry 2 \(steps\/toolCallRequest\) chained decision "deny" but audit record .* now says "allow"/,
    )

    const entry = JSON.parse(row.entry)
    entry.decision = 'allow'
    db.prepare('update acs_chain set entry = ? where session_id = ? and seq = 2').run(
      JSON.stringify(entry),
      sessionId,
    )
    db.close()
    const changedChain = cliIo()
    expect(await audit(['verify', '--session', sessionId, '--db', file], changedChain.io)).toBe(2)
    expect(changedChain.out.stdout).toMatch(/entry 2 \(steps\/toolCallRequest.*content was altered/)
  })

  it('fails naming the entry when an audit record is missing, and catches truncation and extension with --expect-head and --expect-count', async () => {
    const file = join(dir, 'acs-missing.db')
    const sessionId = await session(file)
    const verify = async (...extra: string[]) => {
      const run = cliIo()
      const code = await audit(['verify', '--session', sessionId, '--db', file, ...extra], run.io)
      return { code, out: run.out.stdout, err: run.out.stderr }
    }
    const intact = await verify()
    const head = /head ([0-9a-f]{64})/.exec(intact.out)?.[1] ?? ''
    expect(head).toMatch(/^[0-9a-f]{64}$/)
    expect((await verify('--expect-head', head, '--expect-count', '4')).code).toBe(0)

    const more = await verify('--expect-count', '5')
    expect(more.code).toBe(2)
    expect(more.out).toMatch(/holds 4 entries but 5 were expected \(entries were removed\)/)
    const bad = await verify('--expect-head', 'not-a-hash')
    expect(bad.code).toBe(1)
    expect(bad.err).toMatch(/--expect-head must be a chain_hash/)

    const db = new BetterSqlite3(file)
    const rows = db
      .prepare('select seq, decision_id, entry from acs_chain where session_id = ? order by seq')
      .all(sessionId) as { seq: number; decision_id: string; entry: string }[]
    const deny = rows[1]
    if (!deny) throw new Error('no second entry')
    expect(JSON.parse(deny.entry).recorded_decision).toBe('deny')
    db.prepare('delete from decisions where id = ?').run(deny.decision_id)
    const missing = await verify()
    expect(missing.code).toBe(2)
    expect(missing.out).toContain(
      `entry 2 (steps/toolCallRequest, step ${JSON.parse(deny.entry).step_id}) chained decision "deny" but its audit record ${deny.decision_id} is missing`,
    )

    // The last entry removed: the rest is still a valid chain, but not the one the agent saw.
    db.prepare('delete from acs_chain where session_id = ? and seq = ?').run(sessionId, rows[3]?.seq)
    db.close()
    const truncated = await verify('--expect-head', head)
    expect(truncated.code).toBe(2)
    expect(truncated.out).toMatch(
      /the expected head [0-9a-f]{64} is not in it: the chain was rewritten or truncated/,
    )
    const counted = await verify('--expect-count', '4')
    expect(counted.code).toBe(2)
    expect(counted.out).toMatch(/holds 3 entries but 4 were expected/)
    const older = await verify('--expect-head', JSON.parse(rows[1]?.entry ?? '{}').entry_hash)
    expect(older.code).toBe(2)
    expect(older.out).toMatch(/the expected head is entry 2, and 1 entries follow it/)
  })

  it('on PostgreSQL: the chain and replay memory are shared, and the record verifies', async () => {
    const url = pg?.url
    if (!url) throw new Error('no PostgreSQL for tests')
    const sessionId = await session(url)
    const ok = cliIo()
    expect(await audit(['verify', '--session', sessionId, '--db', url], ok.io)).toBe(0)
  })

  it('an untouched chain verifies after a chain_mismatch deny, on SQLite and PostgreSQL; every later problem is reported', async () => {
    const url = pg?.url
    if (!url) throw new Error('no PostgreSQL for tests')
    const file = join(dir, 'acs-mismatch.db')
    for (const location of [file, url]) {
      const sessionId = await session(location, { mismatch: true })
      const ok = cliIo()
      expect(await audit(['verify', '--session', sessionId, '--db', location], ok.io), ok.out.stdout).toBe(0)
      expect(ok.out.stdout).toMatch(/^OK: .*5 entries verify/)
      if (location !== file) continue
      const db = new BetterSqlite3(file)
      const rows = db
        .prepare('select seq, decision_id, entry from acs_chain where session_id = ? order by seq')
        .all(sessionId) as { seq: number; decision_id: string; entry: string }[]
      const second = JSON.parse(rows[1]?.entry ?? '{}')
      second.decision = 'deny'
      db.prepare('update acs_chain set entry = ? where session_id = ? and seq = ?').run(
        JSON.stringify(second),
        sessionId,
        rows[1]?.seq,
      )
      db.prepare("update decisions set decision = 'deny' where id = ?").run(rows[3]?.decision_id)
      db.close()
      const altered = cliIo()
      expect(await audit(['verify', '--session', sessionId, '--db', file], altered.io)).toBe(2)
      expect(altered.out.stdout).toMatch(/entry 2 .*content was altered/)
      expect(altered.out.stdout).toMatch(
        /entry 4 \(steps\/sessionEnd\) chained decision "allow" but audit record .* now says "deny"/,
      )
      expect(altered.out.stdout).toMatch(/2 problems in 5 entries/)
    }
  })

  it('says what to fix without --session or for an unknown session', async () => {
    const none = cliIo()
    expect(await audit(['verify'], none.io)).toBe(1)
    expect(none.out.stderr).toMatch(/--session ID is required/)
    const unknown = cliIo()
    expect(await audit(['verify', '--session', 'nope', '--db', join(dir, 'acs.db')], unknown.io)).toBe(1)
    expect(unknown.out.stderr).toMatch(/no ACS chain for session nope/)
  })
})
