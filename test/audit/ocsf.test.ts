// OCSF emission in-process: a real engine's decisions become OCSF API Activity events that
// validate against the JSON Schema written from OCSF 1.5.0 (and a broken event does not);
// the file sink rotates by size and keeps `keep` old files; the HTTP sink POSTs batches to
// a real collector on loopback; the recorder's answer passes through untouched and a dead
// collector only costs counted drops.

import { readdirSync, readFileSync, statSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { Ajv } from 'ajv'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FileSink, HttpSink, OcsfEmitter, ocsfEventOf, resolveOcsfSettings } from '../../src/audit/index.js'
import { createEngine, type DecisionRecord, modify } from '../../src/index.js'
import { createOutboundClient } from '../../src/net/index.js'
import { type Loose, tempDir } from '../server/management-helper.js'

const schema = JSON.parse(
  readFileSync(new URL('../fixtures/ocsf/api-activity-1.5.schema.json', import.meta.url), 'utf8'),
)
const validate = new Ajv({ allErrors: true, strict: false }).compile(schema)
const dir = tempDir('warden-ocsf-')
const records: DecisionRecord[] = []
let collector: Server
let collectorUrl: string
const batches: unknown[][] = []

/** Schema errors of an event as emitted (serialized: attributes left undefined are absent). */
function errorsOf(event: unknown): string {
  return validate(JSON.parse(JSON.stringify(event))) ? '' : JSON.stringify(validate.errors)
}

beforeAll(async () => {
  const engine = createEngine({
    hooks: [
      { name: 'no-rm', event: 'tool.pre', matcher: '^rm$', handler: { type: 'deny', reason: 'no rm' } },
      {
        name: 'tidy',
        event: 'tool.pre',
        matcher: '^write$',
        handler: { type: 'fn', fn: () => modify({ tool: { name: 'write', input: { path: '/tmp/x' } } }) },
      },
      {
        name: 'broken',
        event: 'tool.pre',
        matcher: '^fetch$',
        onError: 'allow',
        handler: {
          type: 'fn',
          fn: () => {
            throw new Error('boom')
          },
        },
      },
    ],
    recorder: { record: (record) => void records.push(record) },
  })
  const context = { agent: { id: 'agent-7', name: 'triage' }, session: { id: 's-42' }, tenantId: 'acme' }
  for (const name of ['rm', 'write', 'fetch', 'ls'])
    await engine.dispatch({ event: 'tool.pre', payload: { tool: { name, input: {} } }, context })
  await engine.dispatch({ event: 'user.message', payload: { message: { role: 'user', text: 'hi' } } })
  await engine.close()
  collector = createServer((request, response) => {
    let body = ''
    request.on('data', (d) => {
      body += d
    })
    request.on('end', () => {
      batches.push(JSON.parse(body))
      response.end('{}')
    })
  })
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve))
  collectorUrl = `http://127.0.0.1:${(collector.address() as { port: number }).port}/ocsf`
})

afterAll(() => {
  collector?.close()
})

describe('OCSF events', () => {
  it('maps each decision to a valid API Activity event with the decision, policy, actor and session', () => {
    expect(records.map((r) => r.decision.decision)).toEqual(['deny', 'modify', 'allow', 'allow', 'allow'])
    const events = records.map((r) => ocsfEventOf(r, { version: '0.1.0' }))
    for (const event of events) expect(errorsOf(event)).toBe('')
    const [denied, modified, failed] = events as Loose[]
    expect(denied).toMatchObject({
      class_uid: 6003,
      category_uid: 6,
      activity_id: 99,
      type_uid: 600399,
      action_id: 2,
      disposition_id: 2,
      is_alert: true,
      message: 'no rm',
      policy: { uid: 'no-rm', name: 'no-rm', is_applied: true },
      actor: { user: { uid: 'agent-7', name: 'triage', type: 'AI Agent' }, session: { uid: 's-42' } },
      api: { operation: 'tool.pre', service: { name: 'rm' } },
      metadata: {
        version: '1.5.0',
        tenant_uid: 'acme',
        uid: records[0]?.decision.id,
        product: { name: 'Warden' },
      },
    })
    expect(modified).toMatchObject({ action_id: 4, disposition_id: 11, policy: { uid: 'tidy' } })
    expect(failed?.unmapped.warden.hooks).toEqual([expect.objectContaining({ id: 'broken', error: 'error' })])
    expect(JSON.stringify(events)).not.toContain('/tmp/x')
    const ask = ocsfEventOf(
      {
        ...(records[0] as DecisionRecord),
        decision: { ...(records[0] as DecisionRecord).decision, decision: 'ask' },
      },
      { version: '0.1.0' },
    )
    expect(errorsOf(ask)).toBe('')
    expect(ask).toMatchObject({ action_id: 99, action: 'Ask', disposition_id: 14 })
  })

  it('the schema refuses what OCSF refuses', () => {
    const event = ocsfEventOf(records[0] as DecisionRecord, { version: '0.1.0' })
    const { actor: _actor, ...noActor } = event
    expect(errorsOf(noActor)).toContain("must have required property 'actor'")
    expect(errorsOf({ ...event, class_uid: 2004 })).toContain('const')
    expect(errorsOf({ ...event, action_id: 7 })).toContain('enum')
    expect(errorsOf({ ...event, invented: 1 })).toContain('additional')
  })
})

describe('OCSF sinks', () => {
  it('the file sink writes JSON lines and rotates by size, keeping `keep` old files', async () => {
    const settings = resolveOcsfSettings(
      { file: { path: 'out/decisions.jsonl', maxBytes: 4096, keep: 2 } },
      { env: {}, baseDir: dir },
    )
    const file = settings?.file
    if (!file) throw new Error('no file settings')
    const sink = new FileSink(file)
    const line = JSON.stringify(ocsfEventOf(records[0] as DecisionRecord, { version: '0.1.0' }))
    for (let i = 0; i < 6; i++) await sink.write(Array(5).fill(line))
    await sink.close()
    const names = readdirSync(join(dir, 'out')).sort()
    expect(names).toEqual(['decisions.jsonl', 'decisions.jsonl.1', 'decisions.jsonl.2'])
    for (const name of names) {
      const path = join(dir, 'out', name)
      expect(statSync(path).size).toBeLessThanOrEqual(4096)
      expect(statSync(path).mode & 0o077).toBe(0)
      for (const text of readFileSync(path, 'utf8').trim().split('\n'))
        expect(errorsOf(JSON.parse(text))).toBe('')
    }
  })

  it('batches to a collector after the answer, passes the answer through, and counts drops when it is gone', async () => {
    const registry = new Registry()
    const client = createOutboundClient({ allow: ['127.0.0.1'] })
    const sink = new HttpSink(
      { url: collectorUrl, headers: {}, batchSize: 100, intervalMs: 20, timeoutMs: 2000, maxAttempts: 1 },
      client,
    )
    const emitter = new OcsfEmitter({ sinks: [sink], maxQueue: 1000, version: '0.1.0', registry })
    const answer: Promise<void> = Promise.resolve()
    const recorder = emitter.recorder({ record: () => answer })
    for (const record of records) expect(recorder.record(record)).toBe(answer)
    expect(batches).toEqual([])
    await expect.poll(() => batches.flat().length, { timeout: 5000 }).toBe(records.length)
    expect(batches).toHaveLength(1)
    for (const event of batches.flat()) expect(errorsOf(event)).toBe('')
    await new Promise<void>((resolve) => collector.close(() => resolve()))
    for (const record of records) recorder.record(record)
    await expect
      .poll(async () => (await registry.getSingleMetric('warden_ocsf_dropped_total')?.get())?.values, {
        timeout: 5000,
      })
      .toContainEqual({ labels: { sink: 'http', reason: 'failed' }, value: records.length })
    await emitter.close(1000)
  })

  it('refuses an ocsf: section without a sink, and a header written in clear', () => {
    expect(() => resolveOcsfSettings({}, { env: {}, baseDir: dir })).toThrow(/name a sink/)
    let message = ''
    try {
      resolveOcsfSettings(
        { http: { url: 'https://siem.example/in', headers: { Authorization: 'Bearer abc' } } },
        { env: {}, baseDir: dir },
      )
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toMatch(/http\.headers\.Authorization must be a secret reference/)
    expect(message).not.toContain('Bearer abc')
  })
})
