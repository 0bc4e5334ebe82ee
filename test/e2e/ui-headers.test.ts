// The UI page's headers as Debian's Chromium receives them from a real `warden serve`: the
// page is revalidated on every load, hashed assets are cached for good, gzipped files vary
// on Accept-Encoding, and the policy keeps the page to its own origin (no socket to any
// other host, no <base>, no form posts, never framed, no referrer). The UI still signs in
// and its WebSocket connects under that policy.

import { join } from 'node:path'
import type { Browser, Response } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/index.js'
import { type Served, serve, storeAt, tempDir, token } from '../server/management-helper.js'
import { chromiumForTests } from '../setup/chromium.js'
import { launch, openPage, signIn } from './browser.js'

const chromium = await chromiumForTests()
const dir = tempDir('warden-ui-headers-')
const db = join(dir, 'warden.db')
let warden: Served
let store: Store
let browser: Browser

beforeAll(async () => {
  if (!chromium) return
  warden = await serve({ dir, name: 'ui-headers', yaml: 'hooks: []\n', db })
  store = await storeAt(db)
  browser = await launch(chromium)
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await store?.close()
  await warden?.stop()
})

/** The CSP directives of a header, by name. */
function directives(policy: string): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const part of policy.split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/)
    if (name) out.set(name, sources)
  }
  return out
}

describe.skipIf(!chromium)('the UI page: headers as the browser gets them', () => {
  it('sends the page no-cache with its policy, and hashed assets immutable, both gzipped with Vary', async () => {
    const { page, problems, close } = await openPage(browser)
    const assets: Response[] = []
    page.on('response', (response) => {
      if (new URL(response.url()).pathname.startsWith('/assets/')) assets.push(response)
    })
    const response = await page.goto(`${warden.url}/`)
    await page.getByLabel('Access token').waitFor()
    const headers = (await response?.allHeaders()) ?? {}
    expect(headers['cache-control']).toBe('no-cache')
    expect(headers['content-encoding']).toBe('gzip')
    expect(headers.vary?.toLowerCase()).toContain('accept-encoding')
    expect(headers['x-frame-options']).toBe('DENY')
    expect(headers['referrer-policy']).toBe('no-referrer')
    expect(headers['x-content-type-options']).toBe('nosniff')
    const policy = directives(headers['content-security-policy'] ?? '')
    expect(policy.get('connect-src')).toEqual(["'self'"])
    expect(policy.get('base-uri')).toEqual(["'none'"])
    expect(policy.get('form-action')).toEqual(["'none'"])
    expect(policy.get('frame-ancestors')).toEqual(["'none'"])
    expect(assets.length).toBeGreaterThanOrEqual(2)
    for (const asset of assets) {
      const assetHeaders = await asset.allHeaders()
      expect(assetHeaders['cache-control']).toBe('public, max-age=31536000, immutable')
      expect(assetHeaders['content-encoding']).toBe('gzip')
      expect(assetHeaders.vary?.toLowerCase()).toContain('accept-encoding')
    }
    expect(problems).toEqual([])
    await close()
  })

  it('signs in over its own WebSocket under the policy, and the policy stops a socket to another host', async () => {
    const { page, problems, close } = await openPage(browser)
    const sockets: string[] = []
    page.on('websocket', (socket) => sockets.push(socket.url()))
    await signIn(page, warden.url, (await token(store, 'admin')).token)
    await page.getByRole('navigation', { name: 'Main' }).waitFor()
    expect(sockets.some((url) => new URL(url).host === new URL(warden.url).host)).toBe(true)
    // The same server under another name is another origin: the page may not open it.
    const other = warden.url.replace('127.0.0.1', 'localhost').replace(/^http/, 'ws')
    const blocked = await page.evaluate(
      (url) =>
        new Promise<string>((resolve) => {
          const page = globalThis as unknown as {
            document: { addEventListener(type: string, listener: (event: unknown) => void): void }
            WebSocket: new (url: string) => { onopen: () => void }
          }
          page.document.addEventListener('securitypolicyviolation', (event) => {
            const violation = event as { violatedDirective: string; blockedURI: string }
            resolve(`${violation.violatedDirective} ${violation.blockedURI}`)
          })
          try {
            const socket = new page.WebSocket(`${url}/ws`)
            socket.onopen = () => resolve('opened')
          } catch (error) {
            resolve(`threw ${String(error)}`)
          }
          setTimeout(() => resolve('nothing'), 3000)
        }),
      other,
    )
    expect(blocked).toMatch(/^connect-src/)
    expect(problems.filter((p) => !p.includes('Content Security Policy'))).toEqual([])
    await close()
  })
})
