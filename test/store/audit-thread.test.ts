// The SQLite audit writer thread: batches committed on the thread are read back on the main
// connection with hook links and sealed errors intact, a retried batch adds nothing, a thread
// that cannot open the database fails its batch and the next batch starts a new thread, and
// close waits for batches in flight. A batch with a large payload crosses as objects and is
// written the same.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { payloadBytes } from '../../src/core/index.js'
import { sqliteAuditThread } from '../../src/store/audit-thread.js'
import { decisionTuple, executionTuple } from '../../src/store/audit-write.js'
import { type AuditBatch, openStore } from '../../src/store/index.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-audit-thread-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function batch(ids: string[], tenant = 'acme'): AuditBatch {
  const createdAt = Date.now()
  return {
    decisions: ids.map((id) => ({
      id,
      requestId: `r-${id}`,
      tenant,
      event: 'tool.pre',
      decision: 'deny',
      reason: 'no rm',
      reasonCode: ['hook'],
      decidingHooks: [{ hook: 'no-rm', version: 2 }],
      policies: [{ id: 'p', version: '3' }],
      durationMs: 1.5,
      blocking: true,
      input: { event: 'tool.pre', payload: { cmd: 'rm -rf "/"\n\u00e9' }, context: { tenantId: tenant } },
      output: { additionalContext: [] },
      createdAt,
    })),
    executions: ids.flatMap((id) => [
      {
        dedupKey: `${id}:0`,
        decisionId: id,
        tenant,
        hookRef: `${tenant}/no-rm`,
        hookName: 'no-rm',
        hookVersion: 2,
        handler: 'fn',
        decision: 'deny',
        reason: 'no rm',
        durationMs: 0.25,
        position: 0,
        createdAt,
      },
      {
        dedupKey: `${id}:1`,
        decisionId: id,
        tenant,
        hookRef: `${tenant}/global-only`,
        hookName: 'global-only',
        hookVersion: 1,
        handler: 'command',
        decision: 'error',
        durationMs: 3,
        error: 'kaput',
        errorSealed: 'v1:sealed',
        errorKind: 'crash',
        position: 1,
        createdAt,
      },
    ]),
    approvals: [],
  }
}

describe('SQLite audit writer thread', () => {
  it('commits batches that the main connection reads back, linking stored hooks', async () => {
    const file = join(dir, 'links.db')
    const store = await openStore(file)
    await store.putHook({
      name: 'no-rm',
      tenant: 'acme',
      event: 'tool.pre',
      handler: { type: 'command', command: 'true' },
    })
    await store.putHook({
      name: 'global-only',
      event: 'tool.pre',
      handler: { type: 'command', command: 'true' },
    })
    const thread = sqliteAuditThread(file)
    const written = batch(['d1', 'd2'])
    await thread.write(written)
    await thread.write(written)
    expect(await store.countDecisions('acme')).toBe(2)
    const detail = await store.getDecision('d1', 'acme')
    const { executions, ...decision } = detail!
    expect(decisionTuple(decision)).toEqual(decisionTuple(written.decisions[0]!))
    expect(executions.map((e) => e.hookId)).toEqual(['acme/no-rm', 'global-only'])
    expect(executions.map((e) => executionTuple(e, null))).toEqual(
      written.executions.slice(0, 2).map((e) => executionTuple(e, null)),
    )
    expect(await store.getDecision('d1', 'globex')).toBeUndefined()
    await thread.close()
    await expect(thread.write(batch(['d3']))).rejects.toThrow(/closed/)
    await store.close()
  })

  it('writes a batch with a large payload (sent as objects) exactly as the JSON form', async () => {
    const file = join(dir, 'large.db')
    const store = await openStore(file)
    const thread = sqliteAuditThread(file)
    const small = batch(['s1'])
    const large = batch(['l1'])
    const row = large.decisions[0]!
    const payload = {
      cmd: 'upload',
      body: `${'x'.repeat(200_000)}"\n\u00e9\ud83d\ude00`,
      nested: [1, null, { deep: true }],
    }
    row.input = { event: 'tool.pre', payload, context: { tenantId: 'acme' } }
    // the size dispatch measures; from 64 KiB the batch crosses as objects
    expect(payloadBytes(payload, 1 << 20)).toBeGreaterThan(64 * 1024)
    await thread.write(small)
    await thread.write(large)
    await thread.write(large)
    expect(await store.countDecisions('acme')).toBe(2)
    const read = await store.getDecision('l1', 'acme')
    const { executions, ...decision } = read!
    expect(decisionTuple(decision)).toEqual(decisionTuple(row))
    expect((decision.input as { payload: unknown }).payload).toEqual(payload)
    expect(executions).toHaveLength(2)
    await thread.close()
    await store.close()
  })

  it('fails a batch it cannot write, and the next batch starts a new thread', async () => {
    const folder = join(dir, 'later')
    const file = join(folder, 'warden.db')
    const thread = sqliteAuditThread(file)
    await expect(thread.write(batch(['x1']))).rejects.toThrow(/audit writer thread/)
    mkdirSync(folder)
    const store = await openStore(file)
    await thread.write(batch(['x1', 'x2']))
    expect(await store.countDecisions('acme')).toBe(2)
    await thread.close()
    await store.close()
  })

  it('close waits for the batches in flight', async () => {
    const file = join(dir, 'close.db')
    const store = await openStore(file)
    const thread = sqliteAuditThread(file)
    const ids = Array.from({ length: 2000 }, (_, i) => `c${i}`)
    const writes = [thread.write(batch(ids.slice(0, 1000))), thread.write(batch(ids.slice(1000)))]
    await thread.close()
    await Promise.all(writes)
    expect(await store.countDecisions('acme')).toBe(2000)
    await store.close()
  })
})
