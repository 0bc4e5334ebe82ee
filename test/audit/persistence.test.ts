// Decisions whose audit record is refused (the queue is full) never reach the store, so
// they must show elsewhere: counted on /metrics by event and blocking, and given as a JSON
// warning (at once, then summed up at most once a second) or to onError without a logger.
// A real SQLite store through openPersistence, as `warden serve` opens it.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { openPersistence } from '../../src/audit/index.js'
import { createEngine, type Engine } from '../../src/index.js'
import { createLogger } from '../../src/observability/index.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-persistence-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const env = { WARDEN_SECRET_KEY: Buffer.alloc(32, 3).toString('base64') }
/** One decision may wait: everything dispatched before the writer's next turn is refused. */
const TINY_QUEUE = { audit: { batchSize: 1, maxQueue: 1, intervalMs: 60_000 } }

const toolPre = (n: number) => ({
  event: 'tool.pre',
  payload: { tool: { name: 'exec', input: { n } } },
  context: { tenantId: 'acme' },
})

/** 20 blocking and 1 non-blocking dispatch started in one go. */
function burst(engine: Engine) {
  return Promise.all([
    ...Array.from({ length: 20 }, (_, n) => engine.dispatch(toolPre(n))),
    engine.dispatch({ event: 'session.start', payload: {}, context: { tenantId: 'acme' } }),
  ])
}

describe('refused audit records', () => {
  it('are denied, counted on /metrics and logged as a JSON warning', async () => {
    const lines: string[] = []
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk))
        done()
      },
    })
    const persistence = await openPersistence({
      db: join(dir, 'full.db'),
      env,
      config: TINY_QUEUE,
      logger: createLogger({ level: 'info', destination }),
    })
    const engine = createEngine({ hooks: [], recorder: persistence.recorder })
    const decisions = await burst(engine)
    const denied = decisions.filter((d) => d.reasonCode.includes('audit'))
    expect(denied).toHaveLength(19)
    expect(denied[0]?.reason).toMatch(/could not be recorded \(the audit queue is full/)
    expect(decisions.at(-1)?.decision).toBe('allow')

    const metrics = await persistence.metrics.render()
    expect(metrics).toContain(
      'warden_audit_dropped_total{event="tool.pre",blocking="true",cause="queue-full"} 19',
    )
    expect(metrics).toContain(
      'warden_audit_dropped_total{event="session.start",blocking="false",cause="queue-full"} 1',
    )
    // Decisions are counted as the caller was answered: the refused ones as denies.
    expect(metrics).toContain('warden_decisions_total{event="tool.pre",decision="deny"} 19')
    expect(metrics).toContain('warden_decisions_total{event="tool.pre",decision="allow"} 1')
    await engine.close()
    await persistence.close()

    const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 40)
    expect(warnings.length).toBeGreaterThanOrEqual(1)
    expect(warnings.length).toBeLessThanOrEqual(2)
    expect(warnings.reduce((sum, w) => sum + w.audit.dropped, 0)).toBe(20)
    expect(warnings.reduce((sum, w) => sum + w.audit.denied, 0)).toBe(19)
    expect(warnings[0]).toMatchObject({
      service: 'warden',
      msg: expect.stringMatching(/could not be recorded.*the audit queue is full.*audit\.maxQueue/),
    })
  })

  it('go to onError when there is no logger, and the rest is written', async () => {
    const errors: string[] = []
    const db = join(dir, 'plain.db')
    const persistence = await openPersistence({
      db,
      env,
      config: TINY_QUEUE,
      onError: (error) => errors.push(error.message),
    })
    const engine = createEngine({ hooks: [], recorder: persistence.recorder })
    await burst(engine)
    await engine.close()
    await persistence.close()
    expect(errors.length).toBeGreaterThanOrEqual(1)
    expect(errors[0]).toMatch(
      /^1 decision\(s\) could not be recorded, 1 of them blocking and therefore denied/,
    )
    expect(errors.join('\n')).not.toMatch(/could not write/)

    const reopened = await openPersistence({ db, env })
    expect(await reopened.store.countDecisions('acme')).toBe(1)
    await reopened.close()
  })
})
