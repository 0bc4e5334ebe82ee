// The audit writer on a real SQLite store: async batches land within the interval, sync
// mode commits before the decision returns, the full hook error is sealed (256 characters
// in clear), a failing store is retried without doubling rows, a full queue denies.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  type AuditDrop,
  auditOptionsFromSetting,
  createAuditWriter,
  replayDecision,
} from '../../src/audit/index.js'
import { createEngine } from '../../src/index.js'
import { openStore, type Store } from '../../src/store/index.js'
import { createTestSecretBox } from '../store/helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-writer-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0
const fresh = () => openStore(join(dir, `w${++n}.db`))
const exec = (cmd: string) => ({
  event: 'tool.pre',
  payload: { tool: { name: 'exec', input: { cmd } } },
  context: { tenantId: 'acme', requestId: `r-${cmd}` },
})

describe('audit writer', () => {
  it('async: returns before writing, writes within the interval, flushes everything on close', async () => {
    const store = await fresh()
    const drops: AuditDrop[] = []
    const writer = createAuditWriter(store, {
      intervalMs: 50,
      batchSize: 1000,
      onDrop: (drop) => drops.push(drop),
    })
    const engine = createEngine({ hooks: [], recorder: writer })
    await engine.dispatch(exec('a'))
    expect(writer.queueDepth()).toBe(1)
    await expect.poll(() => store.countDecisions('acme'), { timeout: 5000 }).toBe(1)
    for (let i = 0; i < 300; i++) await engine.dispatch(exec(`b${i}`))
    await writer.close()
    expect(await store.countDecisions('acme')).toBe(301)
    expect(drops).toEqual([])
    const late = await engine.dispatch(exec('late'))
    expect(late).toMatchObject({ decision: 'deny', reasonCode: ['audit'] })
    expect(late.reason).toMatch(/the audit writer is closed/)
    expect(drops).toEqual([
      { decisionId: late.id, event: 'tool.pre', blocking: true, cause: 'closed', queueDepth: 0 },
    ])
    await store.close()
  })

  it('sync: the row is committed when dispatch returns; the full error is sealed', async () => {
    const store = await fresh()
    const box = createTestSecretBox()
    const writer = createAuditWriter(store, { mode: 'sync', secrets: box })
    const long = `kaput ${'x'.repeat(600)}`
    const engine = createEngine({
      hooks: [
        {
          name: 'boom',
          event: 'tool.pre',
          onError: 'allow',
          handler: {
            type: 'fn',
            fn: () => {
              throw new Error(long)
            },
          },
        },
      ],
      recorder: writer,
    })
    const decision = await engine.dispatch(exec('ls'))
    const row = await store.getDecision(decision.id, 'acme')
    expect(row).toMatchObject({ decision: 'allow', requestId: 'r-ls', tenant: 'acme' })
    const execution = row?.executions[0]
    expect(execution?.error).toHaveLength(256)
    expect(execution?.errorSealed).not.toContain('kaput')
    expect(box.open(execution!.errorSealed!)).toBe(long)
    await writer.close()
    await store.close()
  })

  it('retries a failed batch without doubling rows, and denies when the queue is full', async () => {
    const real = await fresh()
    let failures = 2
    const flaky: Store = Object.assign(Object.create(real) as Store, {
      writeAudit: async (batch: Parameters<Store['writeAudit']>[0]) => {
        await real.writeAudit(batch)
        if (failures-- > 0) throw new Error('connection lost after commit')
      },
    })
    const errors: string[] = []
    const writer = createAuditWriter(flaky, {
      intervalMs: 20,
      batchSize: 10,
      maxQueue: 10,
      onError: (e) => errors.push(e.message),
    })
    const engine = createEngine({
      hooks: [{ name: 'g', event: 'tool.pre', handler: { type: 'fn', fn: () => undefined } }],
      recorder: writer,
    })
    for (let i = 0; i < 10; i++) await engine.dispatch(exec(`q${i}`))
    const refused = await engine.dispatch(exec('over'))
    expect(refused.decision).toBe('deny')
    expect(refused.reason).toMatch(/could not be recorded \(the audit queue is full/)
    await expect.poll(() => writer.queueDepth(), { timeout: 5000 }).toBe(0)
    expect(errors[0]).toMatch(/could not write 10 audit record\(s\): connection lost after commit/)
    expect(await real.countDecisions('acme')).toBe(10)
    const one = (await real.listDecisions({ tenant: 'acme', limit: 1 }))[0]!
    expect((await real.getDecision(one.id))?.executions).toHaveLength(1)
    await writer.close()
    await real.close()
  })

  it('replays a decision against changed hooks, naming the hook that changed', async () => {
    const store = await fresh()
    const writer = createAuditWriter(store, { mode: 'sync' })
    const hooks = [
      {
        name: 'no-rm',
        event: 'tool.pre',
        handler: { type: 'fn', fn: () => ({ decision: 'deny', reason: 'no' }) },
      },
    ]
    const before = createEngine({ hooks, recorder: writer })
    const recorded = await before.dispatch(exec('rm'))
    const today = createEngine({
      hooks: [{ ...hooks[0]!, version: 2, handler: { type: 'fn', fn: () => undefined } }],
    })
    const result = await replayDecision(store, today, recorded.id)
    expect(result?.differs).toBe(true)
    expect(result?.old.decision).toBe('deny')
    expect(result?.new.decision).toBe('allow')
    expect(result?.hooks).toEqual([
      {
        hook: 'no-rm',
        old: { outcome: 'deny', version: 1, reason: 'no' },
        new: { outcome: 'abstain', version: 2 },
        changed: true,
      },
    ])
    expect(await replayDecision(store, today, recorded.id, 'globex')).toBeUndefined()
    expect(await store.countDecisions()).toBe(1)
    await writer.close()
    await store.close()
  })

  it('reads the audit: setting and names what is wrong', () => {
    expect(auditOptionsFromSetting('sync')).toEqual({ mode: 'sync' })
    expect(auditOptionsFromSetting({ mode: 'async', batchSize: 50, intervalMs: 200 })).toEqual({
      mode: 'async',
      batchSize: 50,
      intervalMs: 200,
    })
    expect(auditOptionsFromSetting({ mode: 'sync', syncTimeoutMs: 2500 })).toEqual({
      mode: 'sync',
      syncTimeoutMs: 2500,
    })
    expect(() => auditOptionsFromSetting({ syncTimeoutMs: 0 })).toThrow(/syncTimeoutMs/)
    expect(() => auditOptionsFromSetting({ batchsize: 5 })).toThrow(/unknown field "batchsize"/)
  })
})
