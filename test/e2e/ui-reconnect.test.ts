// A server that goes away while an operator watches: in Debian's Chromium, the overview of a
// real `warden serve` stays on screen when the server stops, a banner says the connection
// is lost and counts down to the next attempt, and the overview says it is disconnected.
// When the server is back (same port, same database), "Retry now" reconnects with the same
// token, the banner goes, the overview is live again and follows new decisions. A token
// revoked meanwhile signs out instead of reconnecting.

import { createServer } from 'node:net'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/index.js'
import { aos, type Served, serve, storeAt, tempDir, token, toolCall } from '../server/management-helper.js'
import { chromiumForTests } from '../setup/chromium.js'
import { launch, openPage, signIn } from './browser.js'

const chromium = await chromiumForTests()
const dir = tempDir('warden-ui-reconnect-')
const db = join(dir, 'warden.db')
const CONFIG = `
hooks:
  - name: no-rm
    event: tool.pre
    matcher: "^Bash$"
    if: "tool_input.command.contains('rm ')"
    handler: { type: deny, reason: "no rm" }
`
let port: number
let warden: Served | undefined
let browser: Browser

/** A port free on loopback now (the server is started on it, stopped and started again). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

const start = () => serve({ dir, name: 'reconnect', db, yaml: CONFIG, args: ['--port', String(port)] })
const figure = (page: Page, kind: string) => page.locator(`[data-figure="${kind}"] .ov-figure-value`)
const liveState = (page: Page) => page.locator('.ov-live').getAttribute('data-state')

beforeAll(async () => {
  if (!chromium) return
  port = await freePort()
  warden = await start()
  browser = await launch(chromium)
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await warden?.stop()
})

describe.skipIf(!chromium)('a lost connection', () => {
  it('keeps the page, says so, and reconnects with the same token when the server is back', async () => {
    const store: Store = await storeAt(db)
    const viewer = (await token(store, 'viewer', undefined, 'erin')).token
    await store.close()
    const { page, problems, close } = await openPage(browser, { width: 1280, height: 900 })
    await signIn(page, warden!.url, viewer)
    await page.goto(`${warden!.url}/#/overview`)
    await aos(warden!.url, toolCall('Bash', { command: 'rm -rf /srv' }))
    await expect.poll(() => figure(page, 'deny').textContent(), { timeout: 20_000 }).toBe('1')
    expect(await liveState(page)).toBe('live')

    await warden!.stop()
    warden = undefined
    const banner = page.locator('.conn-lost')
    await banner.waitFor({ timeout: 20_000 })
    expect(await banner.textContent()).toMatch(/Disconnected from Warden: .+\. Reconnecting/)
    expect(await page.getByRole('heading', { name: 'Overview' }).isVisible()).toBe(true)
    await expect.poll(() => liveState(page)).toBe('disconnected')
    expect(await page.getByRole('button', { name: 'Sign in' }).count()).toBe(0)

    warden = await start()
    await page.getByRole('button', { name: 'Retry now' }).click({ timeout: 20_000 })
    await banner.waitFor({ state: 'detached', timeout: 20_000 })
    await expect.poll(() => liveState(page), { timeout: 20_000 }).toBe('live')
    // The new connection follows decisions: one more denial shows without a reload.
    await aos(warden.url, toolCall('Bash', { command: 'rm -rf /tmp/x' }))
    await expect.poll(() => figure(page, 'deny').textContent(), { timeout: 20_000 }).toBe('2')
    expect(
      problems.filter((p) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load resource/.test(p)),
    ).toEqual([])
    await close()
  })

  it('signs out when the token was revoked while the server was away', async () => {
    const store: Store = await storeAt(db)
    const made = await token(store, 'viewer', undefined, 'frank')
    await store.close()
    const { page, close } = await openPage(browser, { width: 1280, height: 900 })
    await signIn(page, warden!.url, made.token)
    await page.goto(`${warden!.url}/#/overview`)
    await page.getByRole('heading', { name: 'Overview' }).waitFor({ timeout: 20_000 })
    await warden!.stop()
    warden = undefined
    await page.locator('.conn-lost').waitFor({ timeout: 20_000 })
    const again: Store = await storeAt(db)
    await again.revokeToken(made.id, Date.now())
    await again.close()
    warden = await start()
    await page.getByRole('button', { name: 'Retry now' }).click({ timeout: 20_000 })
    await page.getByText(/refused this token/).waitFor({ timeout: 20_000 })
    expect(await page.locator('.conn-lost').count()).toBe(0)
    await close()
  })
})
