// What a user does in the UI, in Debian's Chromium against a real `warden serve` with a
// real store: create a hook of each handler type through the form (server errors shown at
// their field), run a dry-run test whose rewrite shows as a diff, see a history row appear
// after a real /aos call, replay a decision, and resolve an approval while an /aos request
// is held (the request gets the approver's answer). Screenshots for the README.

import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/index.js'
import { aos, type Served, serve, storeAt, tempDir, token, toolCall } from '../server/management-helper.js'
import { chromiumForTests } from '../setup/chromium.js'
import { launch, openPage, screenshot, signIn } from './browser.js'

const chromium = await chromiumForTests()
const dir = tempDir('warden-ui-flows-')
const db = join(dir, 'warden.db')
let warden: Served
let store: Store
let browser: Browser
let webhook: Server
let webhookUrl = ''
let admin = ''

const SCRIPT = `def handle(event, payload):
    args = dict(payload["args"])
    args["cmd"] = args["cmd"].upper()
    return modify({"name": payload["name"], "args": args})
`

beforeAll(async () => {
  if (!chromium) return
  webhook = createServer((_request, response) => {
    response.setHeader('content-type', 'application/json')
    response.end(JSON.stringify({ decision: 'allow' }))
  })
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve))
  webhookUrl = `http://127.0.0.1:${(webhook.address() as { port: number }).port}/hook`
  warden = await serve({
    dir,
    name: 'flows',
    db,
    yaml: `
limits: { approvalTimeoutMs: 30000 }
management: { allowCommandHooks: true }
network: { allow: ["127.0.0.1"] }
judge: { baseUrl: "http://127.0.0.1:9/v1", model: "judge-model" }
hooks: []
`,
  })
  store = await storeAt(db)
  admin = (await token(store, 'admin', undefined, 'alice')).token
  browser = await launch(chromium)
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await store?.close()
  await warden?.stop()
  webhook?.close()
})

/** Fills the create form's common fields. */
async function startHook(page: Page, name: string, event: string, type: string): Promise<void> {
  await page.goto(`${warden.url}/#/hooks`)
  await page.getByRole('button', { name: 'New hook' }).click()
  await page.locator('#hook-name').fill(name)
  await page.locator('#hook-event').selectOption(event)
  await page.locator('#hook-handler-type').selectOption(type)
}

async function create(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: 'Create hook' }).click()
  const hash = () => new URL(page.url()).hash
  await expect
    .poll(async () =>
      hash() === `#/hooks/${name}` ? hash() : `${hash()} ${await page.locator('main').textContent()}`,
    )
    .toBe(`#/hooks/${name}`)
  await page.getByRole('navigation', { name: 'Hook' }).waitFor()
}

describe.skipIf(!chromium)('the UI: what a user does', () => {
  it('creates a hook of each handler type, with server errors at their field', async () => {
    const { page, problems, close } = await openPage(browser)
    await signIn(page, warden.url, admin)

    await startHook(page, 'no-sudo', 'tool.pre', 'deny')
    await page.locator('#hook-matcher').fill('^Bash$')
    await page.locator('#hook-if').fill("tool.input.command.contains('sudo')")
    await page.locator('#handler-reason').fill('sudo is not allowed')
    await create(page, 'no-sudo')
    expect((await aos(warden.url, toolCall('Bash', { command: 'sudo ls' }))).body.result.message).toContain(
      'sudo is not allowed',
    )

    await startHook(page, 'bad-timeout', 'tool.pre', 'allow')
    await page.getByText('Advanced: order, timeout and failures').click()
    await page.locator('#hook-timeout').fill('99999999')
    await page.getByRole('button', { name: 'Create hook' }).click()
    await expect.poll(() => page.locator('#hook-timeout-error').textContent()).toContain('timeoutMs')
    await screenshot(page, 'hook-form')

    await startHook(page, 'ask-deploy', 'tool.pre', 'ask')
    await page.locator('#hook-matcher').fill('^deploy$')
    await page.locator('#handler-reason').fill('deploys need a human')
    await create(page, 'ask-deploy')

    await startHook(page, 'upper', 'tool.pre', 'script')
    await page.locator('#hook-matcher').fill('^shout$')
    await page.locator('#handler-source').fill(SCRIPT)
    await create(page, 'upper')

    await startHook(page, 'run-check', 'tool.post', 'command')
    await page.locator('#handler-command').fill('node')
    await page.locator('#handler-args').fill("-e\nprocess.stdout.write('{}')")
    await create(page, 'run-check')

    await startHook(page, 'webhook', 'tool.post', 'http')
    await page.locator('#handler-url').fill(webhookUrl)
    await create(page, 'webhook')

    await startHook(page, 'judge', 'tool.pre', 'prompt')
    await page.locator('#hook-matcher').fill('^transfer$')
    await page.locator('#handler-prompt').fill('Is this transfer safe? {{tool.input}}')
    await create(page, 'judge')

    await startHook(page, 'remote', 'user.message', 'guardian')
    await page.locator('#handler-url').fill('http://127.0.0.1:9/aos')
    await create(page, 'remote')

    await startHook(page, 'always', 'agent.response', 'allow')
    await create(page, 'always')

    const stored = (await store.listHooks()).map((h) => `${h.id}:${h.handlerType}`).sort()
    expect(stored).toEqual([
      'always:allow',
      'ask-deploy:ask',
      'judge:prompt',
      'no-sudo:deny',
      'remote:guardian',
      'run-check:command',
      'upper:script',
      'webhook:http',
    ])
    expect(problems).toEqual([])
    await close()
  })

  it('runs a test whose rewrite shows as a diff, and shows a history row after a real call', async () => {
    const { page, problems, close } = await openPage(browser)
    await signIn(page, warden.url, admin)
    await page.goto(`${warden.url}/#/hooks/upper/test`)
    await page
      .locator('#hd-sample')
      .fill(JSON.stringify({ payload: { tool: { name: 'shout', input: { cmd: 'hello' } } } }))
    await page.getByRole('button', { name: 'Run', exact: true }).click()
    const diff = page.getByRole('figure', { name: 'Input diff' })
    await diff.waitFor()
    expect(await page.locator('.hd-result').textContent()).toContain('modify')
    expect(await diff.locator('td.diff-cell.diff-del').first().textContent()).toContain('hello')
    expect(await diff.locator('td.diff-cell.diff-add').first().textContent()).toContain('HELLO')
    await diff.scrollIntoViewIfNeeded()
    await screenshot(page, 'hook-test')

    await page.goto(`${warden.url}/#/hooks/upper/history`)
    const rows = page.locator('.hd-history tbody tr')
    await expect.poll(() => page.locator('.hd-history').textContent()).toBeTruthy()
    const before = await rows.count()
    const call = await aos(warden.url, toolCall('shout', { cmd: 'quiet' }))
    expect(call.body.result.decision).toBe('modify')
    await new Promise((r) => setTimeout(r, 500))
    await page.getByRole('button', { name: 'Refresh' }).click()
    await expect.poll(() => rows.count()).toBe(before + 1)
    expect(await rows.first().textContent()).toContain('modify')
    await screenshot(page, 'hook-history')
    expect(problems).toEqual([])
    await close()
  })

  it('replays a decision against today’s hooks', async () => {
    const { page, problems, close } = await openPage(browser)
    await signIn(page, warden.url, admin)
    const call = await aos(warden.url, toolCall('Bash', { command: 'sudo reboot' }))
    const id = call.body.result.data.decisionId as string
    await new Promise((r) => setTimeout(r, 500))
    await page.goto(`${warden.url}/#/decisions`)
    await page.locator(`a[href="#/decisions/${id}"]`).first().click()
    await page.getByRole('button', { name: 'Replay' }).click()
    await expect.poll(() => page.locator('body').textContent()).toContain('Same decision today')
    await page.goto(`${warden.url}/#/hooks/no-sudo`)
    await page.getByRole('button', { name: 'Disable' }).click()
    await page.getByLabel(/Reason/).fill('replaying without it')
    await page.getByRole('button', { name: 'Switch off' }).click()
    await expect.poll(async () => (await store.getHook('no-sudo'))?.enabled).toBe(false)
    await page.goto(`${warden.url}/#/decisions/${id}`)
    await page.getByRole('button', { name: 'Replay' }).click()
    await expect.poll(() => page.locator('body').textContent()).toContain('Different today')
    await screenshot(page, 'decision')
    expect(problems).toEqual([])
    await close()
  })

  it('resolves an approval while the /aos request is held, and the request gets the answer', async () => {
    const { page, problems, close } = await openPage(browser)
    await signIn(page, warden.url, (await token(store, 'approver', undefined, 'bob')).token)
    await page.goto(`${warden.url}/#/approvals`)
    const held = aos(warden.url, toolCall('deploy', { env: 'prod' }))
    const approve = page.getByRole('button', { name: 'Approve', exact: true })
    await approve.waitFor({ timeout: 10_000 })
    expect(await page.locator('.count').textContent()).toContain('1')
    expect(await page.locator('main').textContent()).toContain('deploys need a human')
    await screenshot(page, 'approvals')
    await page.getByLabel('Comment').fill('ship it')
    await approve.click()
    const { body } = await held
    expect(body.result.decision).toBe('allow')
    expect(body.result.data.approval).toMatchObject({ outcome: 'approved', by: 'bob', reason: 'ship it' })
    // The resolved card leaves first: until then its Comment box and buttons are still on
    // the page, and the next steps would type into it instead of the new card.
    await expect.poll(() => page.locator('.ap-card').count(), { timeout: 10_000 }).toBe(0)

    const second = aos(warden.url, toolCall('deploy', { env: 'prod' }))
    await page.getByRole('button', { name: 'Reject' }).waitFor({ timeout: 10_000 })
    await page.getByLabel('Comment').fill('not today')
    await page.getByRole('button', { name: 'Reject' }).click()
    const rejected = await second
    expect(rejected.body.result.decision).toBe('deny')
    expect(rejected.body.result.message).toContain('not today')
    expect(problems).toEqual([])
    await close()
  })

  it('keeps an editor of one tenant to that tenant, and a viewer away from changes', async () => {
    const tenant = await openPage(browser)
    await signIn(tenant.page, warden.url, (await token(store, 'editor', 'acme')).token)
    await tenant.page.goto(`${warden.url}/#/hooks/new`)
    expect(await tenant.page.locator('#hook-tenant').inputValue()).toBe('acme')
    expect(await tenant.page.locator('#hook-tenant').isEditable()).toBe(false)
    await tenant.page.locator('#hook-name').fill('acme-rule')
    await tenant.page.locator('#hook-handler-type').selectOption('deny')
    await tenant.page.getByRole('button', { name: 'Create hook' }).click()
    await expect
      .poll(() => decodeURIComponent(new URL(tenant.page.url()).hash))
      .toBe('#/hooks/acme/acme-rule')
    expect((await store.getHook('acme/acme-rule'))?.tenant).toBe('acme')
    await tenant.page.goto(`${warden.url}/#/hooks`)
    await tenant.page.locator('tr[data-hook="acme/acme-rule"]').waitFor()
    expect(await tenant.page.locator('tr[data-hook="no-sudo"]').count()).toBe(0)
    await tenant.page.goto(`${warden.url}/#/decisions`)
    await tenant.page.getByRole('heading', { name: 'Decisions' }).waitFor()
    expect(await tenant.page.getByLabel('Tenant').count()).toBe(0)
    expect(tenant.problems).toEqual([])
    await tenant.close()

    const viewer = await openPage(browser)
    await signIn(viewer.page, warden.url, (await token(store, 'viewer')).token)
    await viewer.page.goto(`${warden.url}/#/hooks/upper`)
    await viewer.page.getByRole('navigation', { name: 'Hook' }).waitFor()
    expect(await viewer.page.getByRole('button', { name: 'Edit' }).count()).toBe(0)
    expect(await viewer.page.getByRole('link', { name: 'Edit' }).count()).toBe(0)
    await viewer.page.goto(`${warden.url}/#/hooks/upper/test`)
    expect(await viewer.page.getByRole('button', { name: 'Run', exact: true }).count()).toBe(0)
    expect(viewer.problems).toEqual([])
    await viewer.close()
  })
})
