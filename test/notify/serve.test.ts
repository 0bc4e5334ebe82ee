// `notifications:` and `ocsf:` of a real `warden serve`, against a local webhook, a local
// Slack-shaped endpoint and a local OCSF collector (one HTTP server on loopback): each
// trigger — an approval requested and about to time out, a hook failing, a breaker opening,
// a deny rate jumping — sends one signed message linking to the UI page that answers it; a
// route bound to a tenant gets only that tenant's; a slow or dead endpoint changes no
// decision and does not slow decisions down (measured against a baseline in the same run);
// every decision reaches the collector and the rotated file as a valid OCSF event; and the
// ACS ServerHello says OCSF is emitted.

import { readdirSync, readFileSync, statSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { join } from 'node:path'
import { Ajv } from 'ajv'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifySignature } from '../../src/notify/index.js'
import { clientHello } from '../../src/protocols/acs/index.js'
import { aos, type Loose, type Served, serve, tempDir, toolCall } from '../server/management-helper.js'

const NOTIFY_SECRET = 'notify-hmac-secret-0123456789'
const SLACK_TOKEN = 'slack-token-abcdef987654'
const ACS_SECRET = 'the ACS key of the notify test'
const dir = tempDir('warden-notify-serve-')
const validate = new Ajv({ allErrors: true, strict: false }).compile(
  JSON.parse(readFileSync(new URL('../fixtures/ocsf/api-activity-1.5.schema.json', import.meta.url), 'utf8')),
)

interface Message {
  path: string
  headers: IncomingHttpHeaders
  body: string
}
const messages: Message[] = []
const ocsfEvents: Loose[] = []
let mode: 'ok' | 'slow' | 'down' = 'ok'
let endpoint: Server
let warden: Served

function config(port: number): string {
  const at = `http://127.0.0.1:${port}`
  return `
network: { allow: ["127.0.0.1"] }
limits: { approvalTimeoutMs: 2500, breaker: { failures: 3, windowMs: 60000 } }
notifications:
  baseUrl: http://warden.test
  batchWindowMs: 100
  timeoutMs: 800
  maxAttempts: 2
  retryBaseMs: 20
  approvals: { warnBeforeMs: 2000 }
  hookFailures: { windowMs: 60000, threshold: 2 }
  denyRate: { windowMs: 60000, minCount: 4, threshold: 0.5 }
  routes:
    - { name: ops, type: webhook, url: "${at}/ops", secret: env:NOTIFY_SECRET }
    - { name: chat, type: slack, url: env:SLACK_URL, kinds: [approval.requested, breaker.opened] }
    - { name: acme, type: webhook, url: "${at}/acme", secret: env:NOTIFY_SECRET, tenant: acme }
ocsf:
  file: { path: ocsf/decisions.jsonl, maxBytes: 16384, keep: 20 }
  http: { url: "${at}/ocsf", intervalMs: 50 }
acs:
  keys: [{ id: k1, secret: env:ACS_KEY_K1 }]
hooks:
  - { name: ask-deploy, event: tool.pre, matcher: "^deploy$", handler: { type: ask, reason: "deploys need a human" } }
  - { name: no-rm, event: tool.pre, matcher: "^rm$", handler: { type: deny, reason: "no rm" } }
  - name: flaky
    event: tool.pre
    matcher: "^fetch$"
    onError: allow
    handler: { type: http, url: "http://127.0.0.1:1/check" }
`
}

beforeAll(async () => {
  endpoint = createServer((request, response) => {
    let body = ''
    request.on('data', (d) => {
      body += d
    })
    request.on('end', () => {
      if (request.url === '/ocsf') {
        ocsfEvents.push(...JSON.parse(body))
        response.end('{}')
        return
      }
      if (mode === 'down') return request.socket.destroy()
      messages.push({ path: request.url ?? '', headers: request.headers, body })
      if (mode === 'slow') setTimeout(() => response.end('late'), 2000).unref()
      else response.end('ok')
    })
  })
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve))
  const port = (endpoint.address() as { port: number }).port
  warden = await serve({
    dir,
    name: 'notify',
    yaml: config(port),
    db: join(dir, 'warden.db'),
    env: {
      NOTIFY_SECRET,
      SLACK_URL: `http://127.0.0.1:${port}/slack/T000/B000/${SLACK_TOKEN}`,
      ACS_KEY_K1: ACS_SECRET,
    },
  })
})

afterAll(async () => {
  mode = 'ok'
  await warden?.stop()
  endpoint?.close()
})

/** The items of signed webhook messages at `path` (each message's signature checked). */
function items(path: string): Loose[] {
  return messages
    .filter((m) => m.path === path)
    .flatMap((m) => {
      const signed = String(m.headers['warden-signature'])
      expect(verifySignature(NOTIFY_SECRET, m.body, signed, Math.floor(Date.now() / 1000))).toBe(true)
      return JSON.parse(m.body).items
    })
}

function ofKind(path: string, kind: string): Loose[] {
  return items(path).filter((i) => i.kind === kind)
}

function slack(): Loose[] {
  return messages.filter((m) => m.path.startsWith('/slack/')).map((m) => JSON.parse(m.body))
}

async function call(tool: string, tenant?: string): Promise<{ decision: string; ms: number }> {
  const started = performance.now()
  const { body } = await aos(warden.url, toolCall(tool, {}), tenant ? { 'x-warden-tenant': tenant } : {})
  return { decision: body.result.decision, ms: performance.now() - started }
}

describe('notifications from warden serve', () => {
  it('tells of an approval when it is requested and when it is about to time out', async () => {
    const answer = call('deploy')
    await expect.poll(() => ofKind('/ops', 'approval.requested').length, { timeout: 5000 }).toBe(1)
    const [requested] = ofKind('/ops', 'approval.requested')
    expect(requested).toMatchObject({
      tenant: '',
      data: { event: 'tool.pre', asks: [{ hook: 'ask-deploy', reason: 'deploys need a human' }] },
    })
    expect(requested.link).toBe(`http://warden.test/#/approvals?id=${requested.data.approvalId}`)
    await expect.poll(() => slack().length, { timeout: 5000 }).toBe(1)
    expect(slack()[0]).toMatchObject({
      text: expect.stringContaining('Approval requested for tool.pre'),
      blocks: [
        { type: 'header' },
        { type: 'section', text: { type: 'mrkdwn', text: expect.stringContaining('Open in Warden') } },
      ],
    })
    await expect.poll(() => ofKind('/ops', 'approval.timing_out').length, { timeout: 5000 }).toBe(1)
    expect(ofKind('/ops', 'approval.timing_out')[0].data.approvalId).toBe(requested.data.approvalId)
    expect((await answer).decision).toBe('deny')
  })

  it('tells once that a hook is failing, and once that its breaker opened', async () => {
    for (let i = 0; i < 4; i++) expect((await call('fetch')).decision).toBe('allow')
    await expect.poll(() => ofKind('/ops', 'breaker.opened').length, { timeout: 5000 }).toBe(1)
    const [failing] = ofKind('/ops', 'hook.failing')
    expect(ofKind('/ops', 'hook.failing')).toHaveLength(1)
    expect(failing).toMatchObject({
      data: { hook: 'flaky', failures: 2 },
      link: 'http://warden.test/#/hooks/flaky',
    })
    expect(ofKind('/ops', 'breaker.opened')[0]).toMatchObject({ data: { hook: 'flaky', failures: 3 } })
    await expect.poll(() => slack().length, { timeout: 5000 }).toBe(2)
    expect(slack()[1].text).toContain('Breaker opened on hook flaky')
  })

  it('tells once of a deny-rate jump, and a tenant’s route gets only that tenant’s', async () => {
    for (const tenant of ['acme', 'globex'])
      for (let i = 0; i < 6; i++) expect((await call('rm', tenant)).decision).toBe('deny')
    await expect.poll(() => ofKind('/ops', 'deny_rate.high').length, { timeout: 5000 }).toBe(4)
    const acme = items('/acme')
    expect(acme.map((i) => [i.kind, i.data.hook ?? '(tenant)'])).toEqual([
      ['deny_rate.high', 'no-rm'],
      ['deny_rate.high', '(tenant)'],
    ])
    expect(acme.every((i) => i.tenant === 'acme')).toBe(true)
    const [hookItem] = acme
    expect(hookItem.link).toBe('http://warden.test/#/decisions?decision=deny&since=1h&tenant=acme&hook=no-rm')
    expect(
      ofKind('/ops', 'deny_rate.high')
        .map((i) => i.tenant)
        .sort(),
    ).toEqual(['acme', 'acme', 'globex', 'globex'])
  })

  it('a slow or dead endpoint changes no decision and does not slow decisions down', async () => {
    // An endpoint that held decisions up would cost each notifying decision (a quarter of
    // them) the 800 ms timeout, so the 90th percentile is compared.
    const round = async (label: string) => {
      const runs: { decision: string; ms: number }[] = []
      // Each tenant's fourth denial makes two notifications (the tenant's rate and the hook's).
      for (let t = 0; t < 8; t++) for (let i = 0; i < 4; i++) runs.push(await call('rm', `${label}-${t}`))
      expect(runs.map((r) => r.decision)).toEqual(Array(runs.length).fill('deny'))
      const sorted = runs.map((r) => r.ms).sort((a, b) => a - b)
      return sorted[Math.floor(sorted.length * 0.9)] as number
    }
    const baseline = await round('fast')
    mode = 'slow'
    const slow = await round('slow')
    mode = 'down'
    const down = await round('down')
    expect(slow, `p90 ${slow} ms vs ${baseline} ms with a fast endpoint`).toBeLessThan(baseline * 3 + 200)
    expect(down, `p90 ${down} ms vs ${baseline} ms with a fast endpoint`).toBeLessThan(baseline * 3 + 200)
    const dropped = async () => {
      const text = await (await fetch(`${warden.url}/metrics`)).text()
      const line = text
        .split('\n')
        .find((l) => l.startsWith('warden_notifications_dropped_total{route="ops",reason="failed"}'))
      return Number(line?.split(' ')[1] ?? 0)
    }
    await expect.poll(dropped, { timeout: 10_000 }).toBeGreaterThan(0)
    mode = 'ok'
    await expect.poll(() => warden.stderr(), { timeout: 5000 }).toContain('security.notify.dropped')
    expect(warden.stderr()).not.toContain(NOTIFY_SECRET)
    expect(warden.stderr()).not.toContain(SLACK_TOKEN)
  })
})

describe('OCSF from warden serve', () => {
  it('sends every decision to the collector and the rotated file as a valid OCSF event', async () => {
    const decided = 1 + 4 + 12 + 3 * 32
    await expect.poll(() => ocsfEvents.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(decided)
    for (const event of ocsfEvents) expect(validate(event), JSON.stringify(validate.errors)).toBe(true)
    const denied = ocsfEvents.find((e) => e.metadata.tenant_uid === 'acme')
    expect(denied).toMatchObject({
      action_id: 2,
      disposition_id: 2,
      policy: { uid: 'no-rm' },
      actor: { user: { uid: 'agent-1' }, session: { uid: 's-1' } },
      api: { operation: 'tool.pre', service: { name: 'rm' } },
    })
    const files = readdirSync(join(dir, 'ocsf'))
    expect(files.length).toBeGreaterThan(1)
    const lines = files.flatMap((name) => {
      const path = join(dir, 'ocsf', name)
      expect(statSync(path).size).toBeLessThanOrEqual(16384)
      return readFileSync(path, 'utf8').trim().split('\n')
    })
    const fromFile = new Set(lines.map((line) => JSON.parse(line).metadata.uid))
    for (const event of ocsfEvents) expect(fromFile.has(event.metadata.uid)).toBe(true)
  })

  it('the ACS ServerHello says OCSF is emitted', async () => {
    const key = { id: 'k1', material: Buffer.from(ACS_SECRET, 'utf8') }
    const response = await fetch(`${warden.url}/acs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(clientHello('s-ocsf', {}, { key })),
    })
    const hello = (await response.json()) as Loose
    expect(hello.result?.trace_emission, JSON.stringify(hello)).toEqual({
      otel_enabled: true,
      ocsf_enabled: true,
    })
  })
})
