// Attacks on notifications and OCSF output. A route or collector URL pointing at a private,
// loopback or cloud-metadata address is refused as the outbound policy says (nothing is
// sent; the drop is counted and logged), unless `network.allow` lists it. Secrets — the
// HMAC key, a Slack URL (its path is its token), header values — are never written in
// clear in warden.yaml, and appear neither in configuration errors nor in the drop lines of
// the security log. A tenant's events never reach another tenant's route, whichever way
// they come (decisions, breaker trips, approvals).

import { writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { Registry } from 'prom-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ocsfEmitterFromConfig } from '../../src/audit/index.js'
import { createEngine, type HookSpec } from '../../src/index.js'
import { type Notifier, notifierFromConfig } from '../../src/notify/index.js'
import { createSecretBox } from '../../src/secrets/index.js'
import { runCliInProcess } from '../helpers/cli.js'
import { tempDir } from '../server/management-helper.js'

const SECRET = 'hmac-secret-never-logged-42'
const SLACK_TOKEN = 'XoXbSlackTokenInThePath'
let listener: Server
let port: number
let hits = 0
let lastBody = ''

beforeAll(async () => {
  listener = createServer((request, response) => {
    hits++
    let body = ''
    request.on('data', (d) => {
      body += d
    })
    request.on('end', () => {
      lastBody = body
      response.end('ok')
    })
  })
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  port = (listener.address() as { port: number }).port
})

afterAll(() => {
  listener?.close()
})

function build(raw: Record<string, unknown>, registry: Registry, lines: string[]): Notifier {
  const notifier = notifierFromConfig({
    raw,
    env: { HOOK_SECRET: SECRET, SLACK_URL: `http://127.0.0.1:${port}/services/${SLACK_TOKEN}` },
    baseDir: '/',
    registry,
    log: { warn: (fields, message) => lines.push(`${JSON.stringify(fields)} ${message}`) },
  })
  if (!notifier) throw new Error('no notifier')
  return notifier
}

function configError(raw: Record<string, unknown>): string {
  try {
    notifierFromConfig({ raw, env: { HOOK_SECRET: SECRET }, baseDir: '/' })
  } catch (error) {
    return (error as Error).message
  }
  return 'no error'
}

async function droppedFailed(registry: Registry): Promise<number> {
  const values = (await registry.getSingleMetric('warden_notifications_dropped_total')?.get())?.values ?? []
  return values.filter((v) => v.labels.reason === 'failed').reduce((sum, v) => sum + v.value, 0)
}

describe('notification SSRF', () => {
  it('refuses metadata, private and loopback addresses that network.allow does not list', async () => {
    const registry = new Registry()
    const lines: string[] = []
    const route = (name: string, url: string) => ({ name, type: 'webhook', url, secret: 'env:HOOK_SECRET' })
    const notifier = build(
      {
        notifications: {
          batchWindowMs: 0,
          maxAttempts: 1,
          routes: [
            route('metadata', 'http://169.254.169.254/latest/meta-data/'),
            route('private', 'http://10.1.2.3/hook'),
            route('loopback', `http://127.0.0.1:${port}/hook`),
            route('named', `http://localhost:${port}/hook`),
            { name: 'chat', type: 'slack', url: 'env:SLACK_URL' },
          ],
        },
      },
      registry,
      lines,
    )
    notifier.publish({ kind: 'breaker.opened', tenant: '', at: Date.now(), title: 't', text: 'x', data: {} })
    await expect.poll(() => droppedFailed(registry), { timeout: 5000 }).toBe(5)
    expect(hits).toBe(0)
    const log = lines.join('\n')
    expect(log).toMatch(/169\.254\.169\.254/)
    expect(log).toContain('security.notify.dropped')
    expect(log).not.toContain(SLACK_TOKEN)
    expect(log).not.toContain(SECRET)
    await notifier.close(100)
  })

  it('reaches an internal address once network.allow lists it, with secrets in errors masked', async () => {
    const registry = new Registry()
    const notifier = build(
      {
        network: { allow: ['127.0.0.1'] },
        notifications: {
          batchWindowMs: 0,
          routes: [{ name: 'chat', type: 'slack', url: 'env:SLACK_URL' }],
        },
      },
      registry,
      [],
    )
    const recorder = notifier.recorder({ record: () => undefined })
    const lastError = 'GET https://bot:hunter2@api.example/x?token=abc123 failed: Bearer sk-secretvalue123'
    await recorder.breakerTripped?.(
      { hookId: 'h', tenant: '', failures: 5, lastError, openedAt: Date.now() },
      {} as HookSpec,
    )
    await expect.poll(() => hits, { timeout: 5000 }).toBe(1)
    expect(lastBody).toContain('Breaker opened on hook h')
    for (const secret of ['hunter2', 'abc123', 'sk-secretvalue123']) expect(lastBody).not.toContain(secret)
    await notifier.close(100)
  })

  it('refuses an OCSF collector at a metadata address the same way', async () => {
    const registry = new Registry()
    const emitter = ocsfEmitterFromConfig({
      raw: { ocsf: { http: { url: 'http://169.254.169.254/ingest', intervalMs: 10, maxAttempts: 1 } } },
      env: {},
      baseDir: '/',
      version: '0.1.0',
      registry,
    })
    const engine = createEngine({ hooks: [], recorder: emitter?.recorder({ record: () => undefined }) })
    await engine.dispatch({ event: 'tool.pre', payload: { tool: { name: 'ls', input: {} } } })
    await expect
      .poll(async () => (await registry.getSingleMetric('warden_ocsf_dropped_total')?.get())?.values, {
        timeout: 5000,
      })
      .toContainEqual({ labels: { sink: 'http', reason: 'failed' }, value: 1 })
    await emitter?.close(100)
    await engine.close()
  })
})

describe('notification secrets', () => {
  it('refuses secrets written in clear, without repeating them', () => {
    const clearSecret = configError({
      notifications: {
        routes: [{ name: 'ops', type: 'webhook', url: 'https://h.example/x', secret: 'plain-hmac-key' }],
      },
    })
    expect(clearSecret).toMatch(/secret.*secret reference/)
    expect(clearSecret).not.toContain('plain-hmac-key')
    const clearSlack = configError({
      notifications: {
        routes: [{ name: 'chat', type: 'slack', url: `https://hooks.slack.example/services/${SLACK_TOKEN}` }],
      },
    })
    expect(clearSlack).toMatch(/Slack webhook URL carries its token/)
    expect(clearSlack).not.toContain(SLACK_TOKEN)
    const header = configError({
      notifications: {
        routes: [
          {
            name: 'ops',
            type: 'webhook',
            url: 'https://h.example/x',
            secret: 'env:HOOK_SECRET',
            headers: { Authorization: 'Bearer abc123' },
          },
        ],
      },
    })
    expect(header).not.toContain('abc123')
    expect(
      configError({
        notifications: { routes: [{ name: 'ops', type: 'webhook', url: 'https://h.example/x' }] },
      }),
    ).toMatch(/needs secret/)
    expect(
      configError({
        notifications: {
          routes: [{ name: 'ops', type: 'webhook', url: 'https://h.example/x', secret: 'env:MISSING' }],
        },
      }),
    ).toMatch(/MISSING is not set/)
  })

  it('warden serve refuses to start on a secret in clear, naming the field and not the secret', async () => {
    const dir = tempDir('warden-notify-refused-')
    const config = join(dir, 'warden.yaml')
    writeFileSync(
      config,
      `notifications:\n  routes: [{ name: chat, type: slack, url: "https://hooks.slack.example/services/${SLACK_TOKEN}" }]\n`,
    )
    const run = await runCliInProcess(
      ['serve', '--config', config, '--port', '0', '--db', join(dir, 'w.db')],
      {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', WARDEN_SECRET_KEY: 'c'.repeat(64) },
      },
    )
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('notifications.routes[0] (chat).url')
    expect(run.stderr).not.toContain(SLACK_TOKEN)
  })

  it('opens a sealed secret with the secret key', async () => {
    const box = createSecretBox({ env: { WARDEN_SECRET_KEY: 'b'.repeat(64) } })
    const sealed = box.seal(SECRET)
    const notifier = notifierFromConfig({
      raw: {
        notifications: {
          routes: [{ name: 'ops', type: 'webhook', url: 'https://h.example/x', secret: sealed }],
        },
      },
      env: {},
      baseDir: '/',
      box: () => box,
    })
    expect(notifier).toBeDefined()
    await notifier?.close(0)
    expect(() =>
      notifierFromConfig({
        raw: {
          notifications: {
            routes: [{ name: 'ops', type: 'webhook', url: 'https://h.example/x', secret: sealed }],
          },
        },
        env: {},
        baseDir: '/',
      }),
    ).toThrow(/sealed secret needs the secret key/)
  })
})

describe('notification tenancy', () => {
  it('a tenant’s decisions and breaker trips never reach another tenant’s route', async () => {
    const sent: { route: string; tenant: string }[] = []
    const receiver = createServer((request, response) => {
      let body = ''
      request.on('data', (d) => {
        body += d
      })
      request.on('end', () => {
        for (const item of JSON.parse(body).items)
          sent.push({ route: request.url ?? '', tenant: item.tenant })
        response.end('ok')
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    const at = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`
    const notifier = build(
      {
        network: { allow: ['127.0.0.1'] },
        notifications: {
          batchWindowMs: 10,
          denyRate: { minCount: 2, threshold: 0.5 },
          hookFailures: { threshold: 1 },
          routes: [
            { name: 'acme', type: 'webhook', url: `${at}/acme`, secret: 'env:HOOK_SECRET', tenant: 'acme' },
            { name: 'ops', type: 'webhook', url: `${at}/ops`, secret: 'env:HOOK_SECRET' },
          ],
        },
      },
      new Registry(),
      [],
    )
    const engine = createEngine({
      hooks: [
        { name: 'no-rm', event: 'tool.pre', matcher: '^rm$', handler: { type: 'deny', reason: 'no' } },
        {
          name: 'boom',
          event: 'tool.pre',
          matcher: '^boom$',
          onError: 'allow',
          handler: {
            type: 'fn',
            fn: () => {
              throw new Error('boom')
            },
          },
        },
      ],
      limits: { breaker: { failures: 2, windowMs: 60_000 } },
      recorder: notifier.recorder({ record: () => undefined }),
    })
    for (const tool of ['rm', 'rm', 'rm', 'boom', 'boom', 'boom'])
      await engine.dispatch({
        event: 'tool.pre',
        payload: { tool: { name: tool, input: {} } },
        context: { tenantId: 'globex' },
      })
    await notifier.approvalRequested({
      id: 'g-1',
      tenant: 'globex',
      event: 'tool.pre',
      deadline: Date.now() + 60_000,
    })
    await expect
      .poll(() => sent.filter((s) => s.route === '/ops').length, { timeout: 5000 })
      .toBeGreaterThanOrEqual(5)
    expect(sent.filter((s) => s.route === '/acme')).toEqual([])
    expect(new Set(sent.map((s) => s.tenant))).toEqual(new Set(['globex']))
    await notifier.close(100)
    await engine.close()
    receiver.close()
  })
})
