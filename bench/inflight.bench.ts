// Memory under a flood: 400 concurrent 1 MB `POST /aos` requests against a real
// `warden serve` child process (the compiled package, default limits derived from this
// machine, a CEL hook on the event). Idle is the server's RSS after a warm-up of the same
// requests sent one at a time, once quiet; peak is the highest RSS sampled every 25 ms
// during the flood; after is the RSS once the server has been quiet for INFLIGHT_AFTER_S
// seconds (default 60; shorten it while developing).
// Goals: every request answered 200 or 503; peak <= idle + 300 MB; after <= idle + 50 MB.

import { mkdtempSync, readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BenchResult, ServedWarden } from './lib.js'
import { serveCompiledWarden } from './lib.js'

const CONCURRENT = 400
const BODY_BYTES = 1_000_000
const WARM_UP = 16
/** Seconds of quiet before the "after" figure; the goal speaks of a minute. */
const AFTER_S = Number(process.env.INFLIGHT_AFTER_S ?? 60)

const CONFIG = `hooks:
  - name: no-destructive-shell
    event: tool.pre
    matcher: "^exec$"
    if: "tool.input.cmd.startsWith('rm ')"
    handler: { type: deny, reason: "no rm" }
`

/** A steps/toolCallRequest of `bytes` bytes. */
function body(bytes: number): Buffer {
  const shell = (value: string) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'steps/toolCallRequest',
      params: {
        toolCallRequest: { executionId: 'e-1', toolId: 'exec', inputs: [{ name: 'cmd', value }] },
        context: { agent: { id: 'bench', name: 'bench' }, session: { id: 's' } },
      },
    })
  return Buffer.from(shell('x'.repeat(bytes - Buffer.byteLength(shell('')))))
}

/** The child's resident set size, in MB. */
function rss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024
}

/** Posts one body; resolves with the status, or the error code when there was no answer. */
function post(url: string, payload: Buffer, agent: Agent): Promise<string> {
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': String(payload.length) },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(String(res.statusCode)))
        res.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
      },
    )
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
    req.end(payload)
  })
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export default async function inflight(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'warden-bench-inflight-'))
  let served: ServedWarden | undefined
  try {
    served = await serveCompiledWarden({ dir, db: join(dir, 'warden.db'), config: CONFIG })
    const pid = served.proc.pid as number
    const url = `${served.url}/aos`
    const payload = body(BODY_BYTES)
    const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY })
    for (let i = 0; i < WARM_UP; i++) await post(url, payload, agent)
    await sleep(8000)
    const idle = rss(pid)
    let peak = idle
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss(pid))
    }, 25)
    const started = performance.now()
    const answers = await Promise.all(Array.from({ length: CONCURRENT }, () => post(url, payload, agent)))
    const floodMs = performance.now() - started
    await sleep(1000)
    clearInterval(sampler)
    peak = Math.max(peak, rss(pid))
    await sleep(AFTER_S * 1000)
    const after = rss(pid)
    const count = (status: string) => answers.filter((a) => a === status).length
    const ok = count('200')
    const busy = count('503')
    const other = CONCURRENT - ok - busy
    return [
      {
        name: `${CONCURRENT} concurrent 1 MB /aos requests answered 200 or 503`,
        value: ok + busy,
        baseline: CONCURRENT,
        unit: 'requests',
        goal: 'ratio = 1',
        pass: other === 0,
        extra: { '200': ok, '503': busy, other, 'flood ms': Math.round(floodMs) },
      },
      {
        name: 'RSS peak during the flood, against idle',
        value: peak,
        baseline: idle,
        unit: 'MB',
        goal: 'peak - idle <= 300 MB',
        pass: peak - idle <= 300,
        extra: { 'over idle MB': peak - idle },
      },
      {
        name: `RSS ${AFTER_S} s after the flood, against idle`,
        value: after,
        baseline: idle,
        unit: 'MB',
        goal: 'after - idle <= 50 MB',
        pass: after - idle <= 50,
        extra: { 'over idle MB': after - idle },
      },
    ]
  } finally {
    await served?.stop()
  }
}
