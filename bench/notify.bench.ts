// Notifications and OCSF emission stay off the decision path: the latency of one decision
// with both on (every route and collector dead, so every message fails and is retried) is
// compared with the same engine without them; and the whole cost per decision — the work
// done after the answer included (building, serializing and writing the OCSF event,
// watching deny rates and failures) — is measured in the same run against a bare engine
// that records nothing (a served decision, with its HTTP and audit work, costs several
// times that baseline, so the ratio overstates what a server loses).

import { mkdtempSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Registry } from 'prom-client'
import { FileSink, HttpSink, OcsfEmitter } from '../src/audit/index.js'
import { createEngine, type Recorder } from '../src/index.js'
import { createOutboundClient } from '../src/net/index.js'
import { Notifier, resolveNotificationSettings } from '../src/notify/index.js'
import { type BenchResult, quantile } from './lib.js'

/** A loopback port nothing listens on (connections are refused at once). */
async function deadPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

function engineWith(recorder: Recorder) {
  return createEngine({
    hooks: [
      { name: 'no-rm', event: 'tool.pre', matcher: '^rm$', handler: { type: 'deny', reason: 'no rm' } },
    ],
    recorder,
  })
}

const yieldLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Per-decision latencies (ns) and the whole cost per decision (ns), background work included. */
async function measure(engine: ReturnType<typeof engineWith>, decisions: number) {
  const latencies: number[] = []
  const event = (i: number) => ({
    event: 'tool.pre',
    payload: { tool: { name: i % 2 === 0 ? 'rm' : 'ls', input: { path: `/tmp/${i}` } } },
    context: { tenantId: `tenant-${i % 50}`, agent: { id: 'a' }, session: { id: 's' } },
  })
  for (let i = 0; i < 2000; i++) await engine.dispatch(event(i))
  await yieldLoop()
  const started = process.hrtime.bigint()
  for (let i = 0; i < decisions; i++) {
    const t = process.hrtime.bigint()
    await engine.dispatch(event(i))
    latencies.push(Number(process.hrtime.bigint() - t))
    // Let the work after the answer run, as it does between requests of a server.
    if (i % 100 === 99) await yieldLoop()
  }
  await yieldLoop()
  return {
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    perDecision: Number(process.hrtime.bigint() - started) / decisions,
  }
}

export default async function notifyBench(): Promise<BenchResult[]> {
  const port = await deadPort()
  const client = createOutboundClient({ allow: ['127.0.0.1'] })
  const settings = resolveNotificationSettings(
    {
      batchWindowMs: 50,
      denyRate: { minCount: 4, threshold: 0.3 },
      hookFailures: { threshold: 1 },
      routes: [{ name: 'dead', type: 'webhook', url: `http://127.0.0.1:${port}/hook`, secret: 'env:S' }],
    },
    { env: { S: 'bench-secret' }, baseDir: '/' },
  )
  if (!settings) throw new Error('no settings')
  const notifier = new Notifier({ settings, client, registry: new Registry() })
  const dir = mkdtempSync(join(tmpdir(), 'warden-notify-bench-'))
  const ocsf = new OcsfEmitter({
    sinks: [
      new FileSink({ path: join(dir, 'ocsf.jsonl'), maxBytes: 64 * 1024 * 1024, keep: 1 }),
      new HttpSink(
        {
          url: `http://127.0.0.1:${port}/ocsf`,
          headers: {},
          batchSize: 500,
          intervalMs: 100,
          timeoutMs: 1000,
          maxAttempts: 2,
        },
        client,
      ),
    ],
    maxQueue: 100_000,
    version: 'bench',
    registry: new Registry(),
  })
  const plain = engineWith({ record: () => undefined })
  const withOutputs = engineWith(ocsf.recorder(notifier.recorder({ record: () => undefined })))
  const decisions = 20_000
  let base = await measure(plain, decisions)
  let candidate = await measure(withOutputs, decisions)
  // A second round each, keeping the better: noise hits both sides alike.
  const base2 = await measure(plain, decisions)
  const candidate2 = await measure(withOutputs, decisions)
  if (base2.perDecision < base.perDecision) base = base2
  if (candidate2.perDecision < candidate.perDecision) candidate = candidate2
  await notifier.close(100)
  await ocsf.close(100)
  await plain.close()
  await withOutputs.close()
  const extraUs = (candidate.perDecision - base.perDecision) / 1000
  return [
    {
      name: 'decision latency p50, notifications + OCSF on (endpoints dead), vs off',
      value: candidate.p50 / 1000,
      baseline: base.p50 / 1000,
      unit: 'us',
      goal: 'ratio <= 1.5',
      pass: candidate.p50 / base.p50 <= 1.5,
      extra: { 'p99 on (us)': candidate.p99 / 1000, 'p99 off (us)': base.p99 / 1000 },
    },
    {
      name: 'whole cost per decision of a bare engine (no audit), work after the answer included (OCSF event built, serialized, written twice; watches)',
      value: candidate.perDecision / 1000,
      baseline: base.perDecision / 1000,
      unit: 'us',
      goal: 'ratio <= 5',
      pass: candidate.perDecision / base.perDecision <= 5,
      extra: { 'extra (us)': extraUs },
    },
  ]
}
