// The overview in Debian's Chromium against one real `warden serve` with token auth: after
// a scripted run of mixed decisions from two tenants (allowed, denied, held for approval,
// shadow would-deny) the figures and lists equal what the store holds; a figure, a chart bar
// and a tool row land on the decisions list filtered to what they count; a new decision
// shows without a reload, and is held while paused; a tenant token sees only its tenant.
// Screenshots for the docs.

import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DecisionRow, Store } from '../../src/store/index.js'
import { aos, type Served, serve, storeAt, tempDir, token, WsClient } from '../server/management-helper.js'
import { chromiumForTests } from '../setup/chromium.js'
import { launch, openPage, screenshot, signIn } from './browser.js'

const chromium = await chromiumForTests()
const dir = tempDir('warden-ui-overview-')
const db = join(dir, 'warden.db')
let warden: Served
let store: Store
let browser: Browser
let admin: WsClient
let adminToken = ''
let agents: Record<string, string> = {}
let held: Promise<unknown> | undefined

const CONFIG = `
server: { auth: token }
audit: { mode: sync }
limits: { approvalTimeoutMs: 60000 }
hooks:
  - name: no-rm
    event: tool.pre
    matcher: "^Bash$"
    if: "tool_input.command.contains('rm -rf')"
    handler: { type: deny, reason: "no recursive deletes" }
  - name: ask-deploy
    event: tool.pre
    matcher: "^deploy$"
    handler: { type: ask, reason: "deploys need a human" }
  - name: would-block-writes
    event: tool.pre
    matcher: "^Write$"
    mode: shadow
    handler: { type: deny, reason: "writes are being reviewed" }
`

/** One tool call on /aos as a tenant's agent. */
function call(tenant: string, tool: string, command: string, agent: string, session: string) {
  return aos(
    warden.url,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'steps/toolCallRequest',
      params: {
        toolCallRequest: {
          executionId: `e-${randomUUID()}`,
          toolId: tool,
          inputs: [{ name: 'command', value: command }],
        },
        context: { agent: { id: agent, name: agent }, session: { id: session } },
      },
    },
    { authorization: `Bearer ${agents[tenant]}` },
  )
}

/** The decisions the store holds (of a tenant). */
async function stored(tenant?: string): Promise<DecisionRow[]> {
  return store.listDecisions({ limit: 1000, ...(tenant ? { tenant } : {}) })
}

const figure = (page: Page, kind: string) => page.locator(`[data-figure="${kind}"] .ov-figure-value`)

beforeAll(async () => {
  if (!chromium) return
  warden = await serve({ dir, name: 'overview', db, yaml: CONFIG })
  store = await storeAt(db)
  agents = {
    acme: (await token(store, 'agent', 'acme', 'acme-agent')).token,
    globex: (await token(store, 'agent', 'globex', 'globex-agent')).token,
  }
  adminToken = (await token(store, 'admin', undefined, 'alice')).token
  admin = await WsClient.connect(warden.url, adminToken)
  await admin.ok('subscribe', { events: ['approval.requested'] })
  for (const command of ['ls', 'pwd', 'cat notes']) await call('acme', 'Bash', command, 'acme-bot', 'acme-s1')
  await call('acme', 'Bash', 'rm -rf /tmp/a', 'acme-bot', 'acme-s1')
  await call('acme', 'Bash', 'rm -rf /tmp/b', 'acme-bot', 'acme-s2')
  await call('globex', 'Bash', 'rm -rf /srv', 'globex-bot', 'globex-s1')
  await call('globex', 'Write', 'notes.txt', 'globex-bot', 'globex-s1')
  await call('globex', 'Write', 'plan.txt', 'globex-bot', 'globex-s1')
  held = call('acme', 'deploy', 'prod', 'acme-bot', 'acme-s1').catch(() => undefined)
  await admin.push('approval.requested')
  browser = await launch(chromium)
}, 120_000)

afterAll(async () => {
  admin?.close()
  await browser?.close()
  await store?.close()
  await warden?.stop()
  await held
})

describe('the overview page', () => {
  it('shows the figures the store holds, and its links land on the matching decisions', async (ctx) => {
    if (!chromium) return ctx.skip()
    const { page, problems, close } = await openPage(browser)
    await signIn(page, warden.url, adminToken, '/overview')
    const rows = await stored()
    const count = (d: string) => rows.filter((r) => r.decision === d).length
    await expect.poll(() => figure(page, 'total').textContent()).toBe(String(rows.length))
    expect(await figure(page, 'deny').textContent()).toBe(String(count('deny')))
    expect(await figure(page, 'approvals').textContent()).toBe('1')
    expect(await figure(page, 'shadow').textContent()).toBe('2')
    const bashDenied = rows.filter((r) => r.tool === 'Bash' && r.decision === 'deny').length
    const bash = page.locator('[data-panel="tools"] tr[data-item="Bash"]')
    expect(await bash.locator('[data-count="deny"]').textContent()).toBe(String(bashDenied))
    expect(
      await page.locator('[data-panel="denying"] tr[data-hook="no-rm"] [data-col="denied"]').textContent(),
    ).toBe(String(count('deny')))
    expect(
      await page
        .locator('[data-panel="shadow"] tr[data-hook="would-block-writes"] [data-col="would deny"]')
        .textContent(),
    ).toBe('2')
    expect(await page.locator('[data-panel="approvals"] li').count()).toBe(1)
    expect(await page.locator('[data-panel="agents"] tr[data-item="acme-bot"]').count()).toBe(1)
    await page.mouse.move(0, 0)
    await screenshot(page, 'overview')

    // The tool row's denials: the decisions list filtered to Bash denials of the window.
    await bash.locator('[data-count="deny"]').click()
    await page.waitForURL(/#\/decisions\?/)
    const hash = new URLSearchParams(new URL(page.url()).hash.split('?')[1])
    expect(hash.get('tool')).toBe('Bash')
    expect(hash.get('decision')).toBe('deny')
    expect(hash.get('since')).toBe('range')
    await expect.poll(() => page.locator('.dec-table tbody tr').count()).toBe(bashDenied)

    // A bar of the chart: the decisions of its time range, as many as it counts.
    await page.goto(`${warden.url}/#/overview?window=1h`)
    const bar = page
      .locator('a.ov-bar')
      .filter({ has: page.locator('rect.ov-deny') })
      .last()
    const label = (await bar.getAttribute('aria-label')) ?? ''
    const inBar = Number(/: (\d+) decisions/.exec(label)?.[1])
    expect(inBar).toBeGreaterThan(0)
    await bar.click()
    await page.waitForURL(/#\/decisions\?/)
    await expect.poll(() => page.locator('.dec-table tbody tr').count()).toBe(inBar)
    expect(problems).toEqual([])
    await close()
  })

  it('follows new decisions without a reload, and holds them while paused', async (ctx) => {
    if (!chromium) return ctx.skip()
    const { page, problems, close } = await openPage(browser)
    await signIn(page, warden.url, adminToken, '/overview?window=1h')
    const before = (await stored()).filter((r) => r.decision === 'deny').length
    await expect.poll(() => figure(page, 'deny').textContent()).toBe(String(before))
    await call('globex', 'Bash', 'rm -rf /live', 'globex-bot', 'globex-s9')
    await expect.poll(() => figure(page, 'deny').textContent()).toBe(String(before + 1))
    expect(await page.locator('.ov-live').getAttribute('data-state')).toBe('live')

    await page.getByRole('button', { name: 'Pause' }).click()
    expect(await page.locator('.ov-live').getAttribute('data-state')).toBe('paused')
    await call('globex', 'Bash', 'rm -rf /paused', 'globex-bot', 'globex-s9')
    await expect.poll(() => page.locator('.ov-live').textContent()).toContain('1 new')
    expect(await figure(page, 'deny').textContent()).toBe(String(before + 1))
    await page.getByRole('button', { name: 'Resume' }).click()
    await expect.poll(() => figure(page, 'deny').textContent()).toBe(String(before + 2))
    expect(problems).toEqual([])
    await close()
  })

  it("shows a tenant token only its tenant's figures", async (ctx) => {
    if (!chromium) return ctx.skip()
    const { page, problems, close } = await openPage(browser)
    await signIn(page, warden.url, (await token(store, 'viewer', 'acme')).token, '/overview')
    const rows = await stored('acme')
    await expect.poll(() => figure(page, 'total').textContent()).toBe(String(rows.length))
    expect(await figure(page, 'deny').textContent()).toBe(
      String(rows.filter((r) => r.decision === 'deny').length),
    )
    expect(await figure(page, 'shadow').textContent()).toBe('0')
    const text = (await page.locator('.ov-page').textContent()) ?? ''
    expect(text).not.toMatch(/globex/i)
    expect(text).toContain('tenant acme')
    expect(await page.getByRole('textbox', { name: 'Tenant' }).count()).toBe(0)
    // Asking for another tenant through the address changes nothing.
    await page.goto(`${warden.url}/#/overview?tenant=globex`)
    await page.reload()
    await expect.poll(() => figure(page, 'total').textContent()).toBe(String(rows.length))
    expect((await page.locator('.ov-page').textContent()) ?? '').not.toMatch(/globex-bot/)
    expect(problems).toEqual([])
    await close()
  })
})
