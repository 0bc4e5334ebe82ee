// Detector scans in worker threads: every sample of the detector corpus
// (bench/fixtures/detectors/*.jsonl), and a 1 MB input, get from a worker the very verdict
// the main thread answers (compared as JSON, byte for byte); a small payload stays on the
// main thread (answered without a promise); a scan past the hook's time is denied with the
// cause; a scan past the worker queue is refused at once, naming the setting.

import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import type { HookCall, HookSpec, Verdict } from '../../../src/core/index.js'
import { createDetectorHandler, DETECTORS, prepareDetector } from '../../../src/handlers/detectors/index.js'
import { parseConfig } from '../../../src/sources/index.js'

interface Sample {
  id: string
  text: string
  field?: string
  cwd?: string
}

const ALLOW = ['github.com', 'pypi.org', 'registry.npmjs.org', 'api.openai.com']
const OPTIONS: Record<string, unknown> = { egress: { allow: ALLOW.flatMap((h) => [h, `*.${h}`]) } }
const KEY: Record<string, string> = { shell: 'command', paths: 'file_path' }

function load(name: string): Sample[] {
  const text = readFileSync(
    new URL(`../../../bench/fixtures/detectors/${name}.jsonl`, import.meta.url),
    'utf8',
  )
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Sample)
}

function spec(name: string, timeoutMs = 5000): HookSpec {
  return { id: `id-${name}`, name, scope: { tenant: 't1' }, timeoutMs } as unknown as HookSpec
}

function callOf(hook: HookSpec, payload: Record<string, unknown>, cwd?: string): HookCall {
  return {
    event: { event: 'tool.pre', payload, context: cwd ? { cwd } : {} },
    hook,
    signal: new AbortController().signal,
    log: () => {},
  } as unknown as HookCall
}

const offloaded = createDetectorHandler({
  isolation: { isolate: 'all', inlineChars: 0, workers: 1, nice: 0 },
})
const inline = createDetectorHandler({ isolation: { isolate: 'tenant', workers: 1, queue: 0, nice: 0 } })
afterAll(async () => {
  await offloaded.close?.()
  await inline.close?.()
})

describe('detector scans in a worker', () => {
  it('answers every corpus sample with the main thread verdict, byte for byte', async () => {
    let differentVerdicts = 0
    const kinds = new Set<string>()
    for (const name of ['secrets', 'pii', 'egress', 'shell', 'paths', 'injection']) {
      const config = {
        type: 'detector',
        detector: name,
        action: DETECTORS[name]?.redacts ? 'redact' : 'deny',
        options: OPTIONS[name] ?? {},
      }
      const hook = spec(name)
      const main = prepareDetector(config, hook).run
      const worker = offloaded.prepare(config, hook)
      for (const sample of load(name)) {
        const payload = {
          tool: { name: 'Bash', input: { [sample.field ?? KEY[name] ?? 'text']: sample.text } },
        }
        const call = callOf(hook, payload, sample.cwd)
        const expected = main(call.event)
        const answer = worker(call)
        expect(answer, sample.id).toBeInstanceOf(Promise)
        const got = (await answer) as Verdict
        expect(JSON.stringify(got), sample.id).toBe(JSON.stringify(expected))
        kinds.add(got.type)
        if (got.type !== 'allow') differentVerdicts++
      }
    }
    // The corpus holds findings of each action, so the comparison covers more than allow.
    expect([...kinds].sort()).toEqual(['allow', 'deny', 'modify'])
    expect(differentVerdicts).toBeGreaterThan(200)
  }, 60_000)

  it('answers a 1 MB random text as the main thread does, and a small payload without leaving it', async () => {
    const config = { type: 'detector', detector: 'secrets', action: 'redact' }
    const hook = spec('big')
    const text = Array.from(randomBytes(1_000_000), (b) => String.fromCharCode(32 + (b % 95))).join('')
    const call = callOf(hook, { text })
    const expected = prepareDetector(config, hook).run(call.event)
    expect(expected.type).toBe('modify')
    const answer = inline.prepare(config, hook)(call)
    expect(answer).toBeInstanceOf(Promise)
    expect(JSON.stringify(await answer)).toBe(JSON.stringify(expected))
    // 4,096 characters or fewer: scanned on the main thread, no promise.
    const small = inline.prepare(
      config,
      hook,
    )(callOf(hook, { text: `${text.slice(0, 3000)} ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8` }))
    expect(small).not.toBeInstanceOf(Promise)
    expect((small as Verdict).type).toBe('modify')
    // A global hook (no tenant) scans on the main thread under the default `tenant` mode.
    const global = { ...hook, scope: {} } as HookSpec
    expect(inline.prepare(config, global)(call)).not.toBeInstanceOf(Promise)
  }, 30_000)

  it('refuses a scan past the worker queue at once, naming the setting, and stops one past its time', async () => {
    // Eight strings of a million random characters, read by the secrets detector: over a second.
    const config = { type: 'detector', detector: 'secrets', maxChars: 10_000_000 }
    const text = Array.from(randomBytes(1_000_000), (b) => String.fromCharCode(32 + (b % 95))).join('')
    const payload = Object.fromEntries([1, 2, 3, 4, 5, 6, 7, 8].map((n) => [`f${n}`, text]))
    const hook = spec('slow', 20)
    const run = inline.prepare(config, hook)
    const first = run(callOf(hook, payload)) as Promise<Verdict>
    const started = performance.now()
    await expect(run(callOf(hook, payload)) as Promise<Verdict>).rejects.toThrow(
      'all 1 detector workers are busy and 0 runs already wait (limit detectors.queue = 0; detectors.workers = 1)',
    )
    expect(performance.now() - started).toBeLessThan(100)
    await expect(first).rejects.toThrow('the detector ran past its limit of 270 ms')
  }, 30_000)
})

describe('detectors: in warden.yaml', () => {
  it('refuses an unknown isolation mode or setting, naming it', () => {
    const refused = (yaml: string) => {
      try {
        parseConfig(yaml, '/tmp', 'w.yaml')
      } catch (error) {
        return (error as Error).message
      }
      return 'accepted'
    }
    expect(refused('detectors: { isolate: sometimes }\n')).toMatch(
      /^w\.yaml:1:\d+: detectors\.isolate must be tenant, all or none/,
    )
    expect(refused('detectors: { inlinechars: 10 }\n')).toMatch(/^w\.yaml:1:12: unknown field "inlinechars"/)
    expect(
      refused('detectors: { isolate: all, inlineChars: 0, workers: 2, queue: 8, workerNice: 10 }\n'),
    ).toBe('accepted')
  })
})
