// The UI in Debian's Chromium against a real `warden serve`: sign-in (and a refused
// token), the hooks table with an inline toggle that really switches the hook off on
// /aos, what each role and tenant sees, phone width, keyboard use and no console errors.

import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/index.js'
import { aos, type Served, serve, storeAt, tempDir, token, toolCall } from '../server/management-helper.js'
import { chromiumForTests } from '../setup/chromium.js'
import { launch, openPage, screenshot, signIn } from './browser.js'

const chromium = await chromiumForTests()
const dir = tempDir('warden-ui-')
const db = join(dir, 'warden.db')
let warden: Served
let store: Store
let browser: Browser

const YAML = `
hooks:
  - name: no-destructive-shell
    event: tool.pre
    matcher: "^exec$"
    if: "tool.input.cmd.startsWith('rm ')"
    handler: { type: deny, reason: "no rm" }
  - name: acme-audit
    event: tool.post
    scope: { tenant: acme }
    handler: { type: allow }
`

beforeAll(async () => {
  if (!chromium) return
  warden = await serve({ dir, name: 'ui', yaml: YAML, db })
  store = await storeAt(db)
  browser = await launch(chromium)
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await store?.close()
  await warden?.stop()
})

describe.skipIf(!chromium)('the UI: access', () => {
  it('refuses a bad token and signs in with a good one, showing role and tenant', async () => {
    const { page, problems, close } = await openPage(browser)
    await page.goto(`${warden.url}/`)
    await page.getByLabel('Access token').fill('wdn_0000000000000000_bad')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('refused this token')
    await screenshot(page, 'sign-in')
    const admin = await token(store, 'admin', undefined, 'alice')
    await page.getByLabel('Access token').fill(admin.token)
    await page.keyboard.press('Enter')
    await page.getByRole('navigation', { name: 'Main' }).waitFor()
    const header = await page.locator('header.top').textContent()
    expect(header).toContain('alice')
    expect(header).toContain('admin')
    expect(header).toContain('all tenants')
    await page.reload()
    await page.getByRole('navigation', { name: 'Main' }).waitFor()
    expect(problems.filter((p) => !p.includes('WebSocket'))).toEqual([])
    await close()
  })

  it('lists hooks with filters and toggles one inline, which /aos feels at once', async () => {
    const { page, problems, close } = await openPage(browser)
    await signIn(page, warden.url, (await token(store, 'admin')).token)
    const row = page.locator('tr[data-hook="no-destructive-shell"]')
    await row.waitFor()
    expect(await row.textContent()).toContain('tool.pre')
    await page.getByLabel('Search hooks').fill('acme')
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1)
    await page.getByLabel('Search hooks').fill('')
    expect((await aos(warden.url, toolCall('exec', { cmd: 'rm -rf /' }))).body.result.decision).toBe('deny')
    await row.getByRole('checkbox').click()
    // Switching off asks first, with a reason for the change record.
    const dialog = page.getByRole('dialog', { name: /Switch off no-destructive-shell/ })
    await dialog.waitFor()
    expect(await row.getByRole('checkbox').isChecked()).toBe(true)
    expect((await aos(warden.url, toolCall('exec', { cmd: 'rm -rf /' }))).body.result.decision).toBe('deny')
    await dialog.getByLabel(/Reason/).fill('too strict for the demo')
    await dialog.getByRole('button', { name: 'Switch off' }).click()
    await expect.poll(() => row.getByRole('checkbox').isChecked()).toBe(false)
    expect((await aos(warden.url, toolCall('exec', { cmd: 'rm -rf /' }))).body.result.decision).toBe('allow')
    await row.getByRole('checkbox').focus()
    await page.keyboard.press('Space')
    await expect.poll(() => row.getByRole('checkbox').isChecked()).toBe(true)
    expect((await aos(warden.url, toolCall('exec', { cmd: 'rm -rf /' }))).body.result.decision).toBe('deny')
    expect(problems).toEqual([])
    await close()
  })

  it('hides what a viewer may not do, and shows a tenant only its hooks', async () => {
    const viewer = await openPage(browser)
    await signIn(viewer.page, warden.url, (await token(store, 'viewer')).token)
    await viewer.page.locator('tr[data-hook="no-destructive-shell"]').waitFor()
    expect(await viewer.page.getByRole('button', { name: 'New hook' }).count()).toBe(0)
    expect(
      await viewer.page.locator('tr[data-hook="no-destructive-shell"] input[type=checkbox]').isDisabled(),
    ).toBe(true)
    await viewer.close()

    const tenant = await openPage(browser)
    await signIn(tenant.page, warden.url, (await token(store, 'editor', 'acme')).token)
    await tenant.page.locator('tr[data-hook="acme/acme-audit"]').waitFor()
    expect(await tenant.page.locator('tbody tr').count()).toBe(1)
    expect(await tenant.page.locator('header.top').textContent()).toContain('tenant acme')
    expect(await tenant.page.getByRole('button', { name: 'New hook' }).count()).toBe(1)
    expect(tenant.problems).toEqual([])
    await tenant.close()
  })

  it('fits a 390 px phone screen', async () => {
    const { page, problems, close } = await openPage(browser, { width: 390, height: 844 })
    await signIn(page, warden.url, (await token(store, 'admin')).token)
    await page.locator('tr[data-hook="no-destructive-shell"]').waitFor()
    const overflow = await page.evaluate(() => {
      // Runs in the page.
      const w = globalThis as unknown as {
        innerWidth: number
        document: { documentElement: { scrollWidth: number } }
      }
      return w.document.documentElement.scrollWidth - w.innerWidth
    })
    expect(overflow).toBeLessThanOrEqual(0)
    // The switch is in view, not behind a sideways scroll.
    const box = await page.locator('tr[data-hook="no-destructive-shell"] .switch').boundingBox()
    expect(box && box.x + box.width).toBeLessThanOrEqual(390)
    const wrap = await page.locator('.table-wrap').evaluate((el) => el.scrollWidth - el.clientWidth)
    expect(wrap).toBeLessThanOrEqual(0)
    await screenshot(page, 'hooks-phone')
    expect(problems).toEqual([])
    await close()
  })
})
