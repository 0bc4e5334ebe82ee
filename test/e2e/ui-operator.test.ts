// An operator's day in the UI, in Debian's Chromium against a real `warden serve`: decisions
// searched and filtered on the server with the view kept in the address; each hook's
// activity in the list; pending approvals counted in the tab's title and announced by a
// desktop notification only once the operator turns them on; switching a hook off asks for
// a reason that shows in its Changes tab with the diff; the overview counts only runs that
// ran; the form's condition reference and completion; starter templates; one time format
// with the zone on hover; sign-in saying whether the server refused the token or cannot be
// reached. Screenshots for the docs.

import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/index.js'
import { aos, type Served, serve, storeAt, tempDir, token, toolCall } from '../server/management-helper.js'
import { chromiumForTests } from '../setup/chromium.js'
import { launch, openPage, screenshot, signIn } from './browser.js'

const chromium = await chromiumForTests()
const dir = tempDir('warden-ui-operator-')
let warden: Served
let store: Store
let browser: Browser
let admin = ''

const CONFIG = `
limits: { approvalTimeoutMs: 30000 }
hooks:
  - name: no-rm
    description: Stops recursive deletes
    event: tool.pre
    matcher: "^Bash$"
    if: "has(tool_input.command) && tool_input.command.contains('rm -rf')"
    handler: { type: deny, reason: "no recursive deletes" }
  - name: ask-deploy
    description: A human approves every deploy
    event: tool.pre
    matcher: "^deploy$"
    handler: { type: ask, reason: "deploys need a human" }
`

/** What the page-side stubs record (this file compiles for Node). */
interface Recorded {
  __notes: { title: string; body?: string }[]
  __asked: number
}

beforeAll(async () => {
  if (!chromium) return
  const db = join(dir, 'warden.db')
  warden = await serve({ dir, name: 'operator', db, yaml: CONFIG })
  store = await storeAt(db)
  admin = (await token(store, 'admin', undefined, 'carol')).token
  browser = await launch(chromium)
  expect(
    (await aos(warden.url, toolCall('Bash', { command: 'rm -rf /srv/data' }))).body.result.decision,
  ).toBe('deny')
  expect((await aos(warden.url, toolCall('Bash', { command: 'ls -la' }))).body.result.decision).toBe('allow')
  expect((await aos(warden.url, toolCall('Read', { path: '/etc/hosts' }))).body.result.decision).toBe('allow')
  // Decisions are written in batches: wait for all three.
  for (let i = 0; i < 200 && (await store.listDecisions({})).length < 3; i++) {
    await new Promise((r) => setTimeout(r, 50))
  }
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await store?.close()
  await warden?.stop()
})

describe.skipIf(!chromium)('the UI: an operator’s day', () => {
  it('searches and filters decisions on the server, and keeps the view in the address', async () => {
    const { page, problems, close } = await openPage(browser, { width: 1440, height: 800 })
    await signIn(page, warden.url, admin)
    await page.goto(`${warden.url}/#/decisions`)
    const rows = page.locator('tbody tr[data-decision]')
    await expect.poll(() => rows.count()).toBe(3)
    const denied = rows.filter({ hasText: 'deny' })
    expect(await denied.textContent()).toContain('Bash')
    expect(await denied.locator('.dec-preview').textContent()).toBe('{"command":"rm -rf /srv/data"}')
    expect(await denied.textContent()).toContain('no-rm')
    expect(await denied.textContent()).toContain('agent-1')
    expect(await denied.textContent()).toContain('s-1')
    await screenshot(page, 'decisions')

    await page.getByLabel('Search decisions').fill('RM -RF')
    await expect.poll(() => rows.count()).toBe(1)
    await expect
      .poll(() => new URLSearchParams(new URL(page.url()).hash.split('?')[1]).get('text'))
      .toBe('RM -RF')
    await page.getByLabel('Search decisions').fill('')
    await page.getByLabel('Tool or method').fill('Bash')
    await expect.poll(() => rows.count()).toBe(2)
    await page.getByRole('combobox', { name: 'Decision', exact: true }).selectOption('allow')
    await expect.poll(() => rows.count()).toBe(1)
    expect(await rows.first().textContent()).toContain('ls -la')
    const shared = page.url()
    expect(shared).toContain('tool=Bash')
    expect(shared).toContain('decision=allow')

    // The shared address opens the same view; a hook in a row narrows the list to it.
    const other = await openPage(browser)
    await signIn(other.page, warden.url, admin)
    await other.page.goto(shared)
    await expect.poll(() => other.page.locator('tbody tr[data-decision]').count()).toBe(1)
    expect(await other.page.getByLabel('Tool or method').inputValue()).toBe('Bash')
    await other.page.getByRole('button', { name: 'Clear filters' }).click()
    await expect.poll(() => other.page.locator('tbody tr[data-decision]').count()).toBe(3)
    await other.page.getByRole('button', { name: 'no-rm', exact: true }).click()
    // The decisions no-rm ran in: the ls call, whose condition was false, is not one of them.
    await expect.poll(() => other.page.locator('tbody tr[data-decision]').count()).toBe(1)
    expect(await other.page.locator('tbody tr[data-decision]').textContent()).toContain('rm -rf')
    expect(new URL(other.page.url()).hash).toContain('hook=no-rm')
    expect(other.problems).toEqual([])
    await other.close()

    // One time format: relative, the exact time with its zone on hover.
    const time = rows.first().locator('time')
    expect(await time.textContent()).toMatch(/ago|just now/)
    expect(await time.getAttribute('title')).toMatch(/\d{1,2}:\d{2}:\d{2}.*(UTC|GMT|[A-Z]{3,4})/)
    expect(problems).toEqual([])
    await close()
  })

  it('shows each hook’s activity, and counts only runs that ran', async () => {
    const { page, problems, close } = await openPage(browser)
    await signIn(page, warden.url, admin)
    const row = page.locator('tr[data-hook="no-rm"]')
    // no-rm ran once (the ls call's condition was false: skipped, not a run).
    await expect.poll(() => row.locator('.hk-counts').textContent()).toBe('1 run · 1 denied')
    expect(await row.textContent()).toContain('Stops recursive deletes')
    expect(await row.locator('svg.spark').count()).toBe(1)
    await screenshot(page, 'hooks')
    await page.goto(`${warden.url}/#/hooks/no-rm`)
    const runs = page.locator('.hd-stats > div', { hasText: 'runs' }).locator('dd')
    await expect.poll(() => runs.textContent()).toBe('1')
    const skipped = page.locator('.hd-stats > div', { hasText: 'skipped' }).locator('dd')
    // The ls call (condition false) and the Read call (matcher false) were skipped.
    expect(await skipped.textContent()).toBe('2')
    expect(await page.locator('.chart-axis-labels').textContent()).toContain('now')
    expect(problems).toEqual([])
    await close()
  })

  it('counts pending approvals in the tab title and notifies only once turned on', async () => {
    const { page, problems, close } = await openPage(browser)
    await page.addInitScript(() => {
      // Runs in the page: a recording Notification, and a tab in the background.
      const w = globalThis as unknown as Recorded & { document: object; Notification?: unknown }
      w.__notes = []
      w.__asked = 0
      class FakeNotification {
        static permission = 'default'
        static async requestPermission() {
          w.__asked++
          FakeNotification.permission = 'granted'
          return 'granted'
        }
        onclick: unknown = null
        constructor(title: string, options: { body?: string }) {
          w.__notes.push({ title, body: options.body })
        }
        close() {}
      }
      w.Notification = FakeNotification
      Object.defineProperty(w.document, 'hidden', { get: () => true })
    })
    await signIn(page, warden.url, (await token(store, 'approver', undefined, 'dave')).token)
    const recorded = () =>
      page.evaluate(() => {
        const w = globalThis as unknown as Recorded
        return { notes: w.__notes.length, asked: w.__asked }
      })
    expect(await page.title()).toBe('Warden')
    const first = aos(warden.url, toolCall('deploy', { env: 'staging' }))
    await expect.poll(() => page.title()).toContain('(1)')
    // Not turned on: no notification, and the browser was never asked.
    expect(await recorded()).toEqual({ notes: 0, asked: 0 })
    await page.goto(`${warden.url}/#/approvals`)
    await page.getByRole('button', { name: 'Notify me of new requests' }).click()
    await page.getByRole('button', { name: 'Desktop notifications on' }).waitFor()
    expect((await recorded()).asked).toBe(1)
    const second = aos(warden.url, toolCall('deploy', { env: 'prod' }))
    await expect.poll(() => page.title()).toContain('(2)')
    await expect.poll(async () => (await recorded()).notes).toBe(1)
    const note = await page.evaluate(() => (globalThis as unknown as Recorded).__notes[0])
    expect(note?.body).toContain('deploy')
    expect(note?.body).toContain('deploys need a human')
    // The cards say who asked.
    expect(await page.locator('main').textContent()).toContain('agent-1')
    const approve = page.getByRole('button', { name: 'Approve', exact: true })
    await approve.first().click()
    await expect.poll(() => page.title()).toContain('(1)')
    await approve.first().click()
    await Promise.all([first, second])
    await expect.poll(() => page.title()).toBe('Warden')
    expect(problems).toEqual([])
    await close()
  })

  it('asks for a reason before switching a hook off, and shows it in the Changes tab with the diff', async () => {
    const { page, problems, close } = await openPage(browser)
    await signIn(page, warden.url, admin)
    await page.goto(`${warden.url}/#/hooks/no-rm`)
    await page.getByRole('button', { name: 'Disable' }).click()
    const dialog = page.getByRole('dialog', { name: 'Switch off no-rm?' })
    await dialog.waitFor()
    expect(await dialog.getByRole('button', { name: 'Switch off' }).isDisabled()).toBe(true)
    await dialog.getByRole('button', { name: 'Keep it on' }).click()
    await dialog.waitFor({ state: 'hidden' })
    expect((await aos(warden.url, toolCall('Bash', { command: 'rm -rf /x' }))).body.result.decision).toBe(
      'deny',
    )

    await page.getByRole('button', { name: 'Disable' }).click()
    await dialog.getByLabel(/Reason/).fill('false positives on the cleanup job')
    await dialog.getByRole('button', { name: 'Switch off' }).click()
    await page.getByRole('button', { name: 'Enable' }).waitFor()
    expect((await aos(warden.url, toolCall('Bash', { command: 'rm -rf /x' }))).body.result.decision).toBe(
      'allow',
    )

    await page.getByRole('link', { name: 'Changes' }).click()
    const change = page.locator('.hc-item').first()
    await change.waitFor()
    expect(await change.textContent()).toContain('carol')
    expect(await change.textContent()).toContain('switched it off')
    expect(await change.textContent()).toContain('false positives on the cleanup job')
    expect(await change.locator('td.diff-cell.diff-del').first().textContent()).toContain('"enabled": true')
    expect(await change.locator('td.diff-cell.diff-add').first().textContent()).toContain('"enabled": false')
    await screenshot(page, 'hook-changes')
    await page.getByRole('button', { name: 'Enable' }).click()
    await page.getByRole('button', { name: 'Disable' }).waitFor()
    expect(problems).toEqual([])
    await close()
  })

  it('offers the condition’s variables for the chosen event, completion and starter templates', async () => {
    const { page, problems, close } = await openPage(browser)
    await signIn(page, warden.url, admin)
    await page.goto(`${warden.url}/#/hooks/new`)
    await page.getByRole('button', { name: 'Block destructive shell commands' }).click()
    expect(await page.locator('#hook-name').inputValue()).toBe('no-destructive-shell')
    expect(await page.locator('#hook-if').inputValue()).toContain('tool_input.command')
    // Only the fields the handler uses; advanced settings folded.
    expect(await page.locator('#handler-reason').isVisible()).toBe(true)
    expect(await page.locator('#handler-url').count()).toBe(0)
    expect(await page.locator('#hook-timeout').isVisible()).toBe(false)

    await page.getByText('Variables for tool.pre').click()
    const reference = page.locator('.cel-reference table')
    const command = reference.locator('tr', { hasText: 'tool_input.command' })
    expect(await command.textContent()).toContain('string')
    expect(await reference.locator('tr', { hasText: 'depth' }).first().textContent()).toContain('int')

    await page.locator('#hook-if').fill('')
    await page.locator('#hook-if').pressSequentially('tool_in')
    const options = page.getByRole('listbox', { name: 'Variables' }).getByRole('option')
    await expect.poll(() => options.count()).toBeGreaterThan(0)
    expect(await options.first().textContent()).toContain('tool_input')
    await page.locator('#hook-if').press('Enter')
    expect(await page.locator('#hook-if').inputValue()).toBe('tool_input')

    await page.locator('#hook-event').selectOption('user.message')
    await page.getByText('Variables for user.message').waitFor()
    await expect.poll(() => reference.textContent()).toContain('message.text')
    expect(await reference.textContent()).not.toContain('tool_input.command')
    await page.locator('#hook-event').selectOption('tool.pre')
    await page.locator('#hook-if').fill('has(tool_input.command) && tool_input.command.contains("sudo")')
    await page.getByText('Variables for tool.pre').scrollIntoViewIfNeeded()
    await screenshot(page, 'hook-condition')
    await page.getByRole('button', { name: 'Create hook' }).click()
    await expect.poll(() => new URL(page.url()).hash).toBe('#/hooks/no-destructive-shell')
    expect((await store.getHook('no-destructive-shell'))?.description).toBe(
      'Denies destructive shell commands',
    )
    expect(problems).toEqual([])
    await close()
  })

  it('says whether the server refused the token or cannot be reached', async () => {
    const { page, close } = await openPage(browser)
    await page.goto(`${warden.url}/`)
    await page.getByLabel('Access token').fill('wdn_0000000000000000_bad')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('refused this token')
    // The server gone: its health check and socket fail as they would.
    await page.route('**/healthz', (route) => route.abort('connectionrefused'))
    await page.routeWebSocket('**/ws**', (ws) => ws.close())
    await page.getByLabel('Access token').fill(admin)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('cannot be reached')
    await close()
  })
})
