// The notifier in-process, against real HTTP endpoints on loopback and the real outbound
// client: a burst goes out as one signed message; a route bound to a tenant gets only that
// tenant's messages; a failing endpoint is retried, and one that stays down costs counted
// drops, never a wait for the caller; the watches fire once past their thresholds and stay
// quiet for their cooldown; "about to time out" is sent only for an approval still pending.

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOutboundClient } from '../../src/net/index.js'
import {
  DenyRateWatch,
  FailureWatch,
  type NotificationItem,
  Notifier,
  resolveNotificationSettings,
  verifySignature,
} from '../../src/notify/index.js'

interface Received {
  path: string
  headers: IncomingHttpHeaders
  body: string
}

const received: Received[] = []
/** Answers given in turn before 200 (e.g. [503] to fail once). */
const failures: number[] = []
let server: Server
let base: string
const client = createOutboundClient({ allow: ['127.0.0.1'] })

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = ''
    request.on('data', (d) => {
      body += d
    })
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body })
      response.statusCode = failures.shift() ?? 200
      response.end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
})

afterAll(async () => {
  server?.close()
  await client.close()
})

function settings(routes: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
  const resolved = resolveNotificationSettings(
    { routes, batchWindowMs: 30, retryBaseMs: 10, maxAttempts: 2, ...extra },
    { env: { HOOK_SECRET: 'shh-hook-secret' }, baseDir: '/' },
  )
  if (!resolved) throw new Error('no settings')
  return resolved
}

function item(tenant: string, title: string): NotificationItem {
  return { kind: 'breaker.opened', tenant, at: Date.now(), title, text: 'x', data: {} }
}

function bodiesAt(path: string): { items: { tenant: string; title: string }[] }[] {
  return received.filter((r) => r.path === path).map((r) => JSON.parse(r.body))
}

describe('notifier delivery', () => {
  it('sends a burst as one signed message, and each tenant only to its own route', async () => {
    const notifier = new Notifier({
      client,
      settings: settings([
        { name: 'ops', type: 'webhook', url: `${base}/ops`, secret: 'env:HOOK_SECRET' },
        { name: 'acme', type: 'webhook', url: `${base}/acme`, secret: 'env:HOOK_SECRET', tenant: 'acme' },
        {
          name: 'globex',
          type: 'webhook',
          url: `${base}/globex`,
          secret: 'env:HOOK_SECRET',
          tenant: 'globex',
        },
      ]),
    })
    for (let i = 0; i < 5; i++) notifier.publish(item('acme', `acme ${i}`))
    notifier.publish(item('globex', 'globex 0'))
    notifier.publish(item('', 'no tenant'))
    await expect.poll(() => received.length, { timeout: 5000 }).toBe(3)
    const ops = bodiesAt('/ops')
    expect(ops).toHaveLength(1)
    expect(ops[0]?.items.map((i) => i.title)).toEqual([
      'acme 0',
      'acme 1',
      'acme 2',
      'acme 3',
      'acme 4',
      'globex 0',
      'no tenant',
    ])
    expect(bodiesAt('/acme').flatMap((b) => b.items.map((i) => i.tenant))).toEqual(Array(5).fill('acme'))
    expect(bodiesAt('/globex').flatMap((b) => b.items.map((i) => i.tenant))).toEqual(['globex'])
    for (const r of received) {
      const header = String(r.headers['warden-signature'])
      expect(verifySignature('shh-hook-secret', r.body, header, Math.floor(Date.now() / 1000))).toBe(true)
      expect(verifySignature('another-secret', r.body, header, Math.floor(Date.now() / 1000))).toBe(false)
      expect(verifySignature('shh-hook-secret', `${r.body} `, header, Math.floor(Date.now() / 1000))).toBe(
        false,
      )
      // A message replayed ten minutes later is refused by its timestamp.
      expect(verifySignature('shh-hook-secret', r.body, header, Math.floor(Date.now() / 1000) + 600)).toBe(
        false,
      )
    }
    await notifier.close(1000)
    received.length = 0
  })

  it('retries a failing endpoint, and counts drops without holding the caller when it stays down', async () => {
    const registry = new Registry()
    const warnings: string[] = []
    const notifier = new Notifier({
      client,
      registry,
      log: { warn: (fields, message) => warnings.push(`${JSON.stringify(fields)} ${message}`) },
      settings: settings([{ name: 'ops', type: 'webhook', url: `${base}/ops`, secret: 'env:HOOK_SECRET' }], {
        maxQueue: 3,
      }),
    })
    failures.push(503)
    notifier.publish(item('', 'once'))
    await expect.poll(() => received.length, { timeout: 5000 }).toBe(2)
    expect(received.map((r) => r.headers['warden-delivery'])).toEqual([
      received[0]?.headers['warden-delivery'],
      received[0]?.headers['warden-delivery'],
    ])
    received.length = 0
    failures.push(503, 503)
    const started = performance.now()
    for (let i = 0; i < 10; i++) notifier.publish(item('', `burst ${i}`))
    expect(performance.now() - started).toBeLessThan(50)
    const dropped = async (reason: string) =>
      (await registry.getSingleMetric('warden_notifications_dropped_total')?.get())?.values.find(
        (v) => v.labels.reason === reason,
      )?.value
    await expect.poll(() => dropped('failed'), { timeout: 5000 }).toBe(3)
    expect(await dropped('queue-full')).toBe(7)
    expect(warnings.join('\n')).toContain('security.notify.dropped')
    expect(warnings.join('\n')).not.toContain('shh-hook-secret')
    await notifier.close(1000)
    received.length = 0
  })

  it('sends "about to time out" only for an approval still pending', async () => {
    const pending = new Set(['a-1'])
    const notifier = new Notifier({
      client,
      isPending: async (id) => pending.has(id),
      settings: settings([{ name: 'ops', type: 'webhook', url: `${base}/ops`, secret: 'env:HOOK_SECRET' }], {
        approvals: { warnBeforeMs: 950 },
        baseUrl: 'https://warden.example',
      }),
    })
    const deadline = Date.now() + 1000
    const asks = [{ hook: 'ask-deploy', reason: 'deploys need a human' }]
    await notifier.approvalRequested({ id: 'a-1', tenant: 'acme', event: 'tool.pre', deadline, asks })
    await notifier.approvalRequested({ id: 'a-2', tenant: 'acme', event: 'tool.pre', deadline, asks })
    await expect.poll(() => bodiesAt('/ops').flatMap((b) => b.items).length, { timeout: 5000 }).toBe(3)
    const items = bodiesAt('/ops').flatMap((b) => b.items) as unknown as NotificationItem[]
    expect(items.map((i) => i.kind)).toEqual([
      'approval.requested',
      'approval.requested',
      'approval.timing_out',
    ])
    expect(items[2]?.data.approvalId).toBe('a-1')
    expect(items[0]?.link).toBe('https://warden.example/#/approvals?id=a-1')
    await notifier.close(1000)
    received.length = 0
  })
})

describe('notification watches', () => {
  it('a hook failing fires once at its threshold, then keeps quiet for the cooldown', () => {
    const watch = new FailureWatch({ windowMs: 60_000, threshold: 3, cooldownMs: 600_000 })
    const fired = [0, 1, 2, 3, 4].map((i) => watch.failed('acme', 'flaky', 'timeout', 1000 + i))
    expect(fired.map((f) => f !== undefined)).toEqual([false, false, true, false, false])
    expect(fired[2]).toMatchObject({ tenant: 'acme', hook: 'flaky', failures: 3 })
    // Another tenant's failures are counted apart.
    expect(watch.failed('globex', 'flaky', 'timeout', 2000)).toBeUndefined()
    // Failures spread wider than the window never add up.
    const slow = new FailureWatch({ windowMs: 10_000, threshold: 2, cooldownMs: 0 })
    expect(slow.failed('', 'h', 'e', 0)).toBeUndefined()
    expect(slow.failed('', 'h', 'e', 30_000)).toBeUndefined()
    // After the cooldown it fires again once the threshold is reached within a window again.
    const later = [1, 2, 3].map((i) => watch.failed('acme', 'flaky', 'timeout', 700_000 + i))
    expect(later.map((f) => f !== undefined)).toEqual([false, false, true])
  })

  it('a deny rate fires past its threshold over the minimum count, without flapping', () => {
    const watch = new DenyRateWatch({ windowMs: 60_000, minCount: 10, threshold: 0.5, cooldownMs: 300_000 })
    let now = 0
    const decide = (denied: boolean) => {
      now += 10
      return watch.decided('acme', undefined, denied, now)
    }
    for (let i = 0; i < 4; i++) expect(decide(true)).toBeUndefined()
    for (let i = 0; i < 5; i++) expect(decide(false)).toBeUndefined()
    const high = decide(true)
    expect(high).toMatchObject({ tenant: 'acme', denied: 5, total: 10, rate: 0.5 })
    for (let i = 0; i < 50; i++) expect(decide(true)).toBeUndefined()
    const hook = watch.decided('acme', 'no-rm', true, now)
    expect(hook).toBeUndefined()
  })
})
