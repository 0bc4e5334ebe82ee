// The one-time sign-in link `warden serve` prints on a first start: it is printed only to
// standard output, works once (a replay, a race or a cross-site page gets nothing), expires,
// gives an admin token only through POST, is not printed once an admin token exists, and
// the UI takes it out of the address bar and signs in with it.

import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SIGNIN_LINK_TTL_MS, SignInLinks } from '../../src/server/index.js'
import type { Store } from '../../src/store/index.js'
import { launch, openPage } from '../e2e/browser.js'
import { type Served, serve, storeAt, tempDir, WsClient } from '../server/management-helper.js'
import { chromiumForTests } from '../setup/chromium.js'

const chromium = await chromiumForTests()
const dir = tempDir('warden-signin-')
const db = join(dir, 'warden.db')
const YAML = 'hooks: []\n'
let warden: Served
let code: string

/** The code in the banner's sign-in link, if there is one. */
function codeIn(banner: string): string | undefined {
  return /\/#signin=([A-Za-z0-9_-]+)\s/.exec(banner)?.[1]
}

const redeem = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })

beforeAll(async () => {
  warden = await serve({ dir, name: 'signin', yaml: YAML, db })
  const found = codeIn(warden.stdout())
  if (!found) throw new Error(`no sign-in link in the banner:\n${warden.stdout()}`)
  code = found
}, 60_000)

afterAll(async () => {
  await warden?.stop()
})

describe('the one-time sign-in link', () => {
  it('is printed on standard output only, never in the log', () => {
    expect(warden.stdout()).toContain(`${warden.url}/#signin=${code}`)
    expect(warden.stderr()).not.toContain(code)
  })

  it('cannot be used by a GET (a link preview or prefetch does not spend it)', async () => {
    const response = await fetch(`${warden.url}/signin?code=${code}`)
    expect(response.status).toBe(404)
  })

  it('cannot be used from a page of another site', async () => {
    const response = await redeem(warden.url, { code }, { origin: 'http://evil.example' })
    expect(response.status).toBe(403)
  })

  it('refuses a malformed or unknown code, saying which', async () => {
    const malformed = await redeem(warden.url, { code: 'short' })
    expect(malformed.status).toBe(400)
    const unknown = await redeem(warden.url, { code: 'A'.repeat(43) })
    expect(unknown.status).toBe(401)
    expect(((await unknown.json()) as { error: string }).error).toContain('not valid')
  })

  it('gives an admin token once; a replay of the same code gets nothing', async () => {
    const first = await redeem(warden.url, { code })
    expect(first.status).toBe(200)
    expect(first.headers.get('cache-control')).toBe('no-store')
    const { token } = (await first.json()) as { token: string }
    const ws = await WsClient.connect(warden.url, token)
    const info = await ws.call('server.info')
    expect(info.payload.token.role).toBe('admin')
    ws.close()
    const replay = await redeem(warden.url, { code })
    expect(replay.status).toBe(401)
    expect(((await replay.json()) as { error: string }).error).toContain('already used')
  })

  it('is not printed again once an admin token exists', async () => {
    await warden.stop()
    warden = await serve({ dir, name: 'signin', yaml: YAML, db })
    expect(codeIn(warden.stdout())).toBeUndefined()
    expect(warden.stdout()).toContain('sign in with a token from "warden tokens create')
  }, 60_000)
})

describe('sign-in links against a real store', () => {
  let store: Store
  beforeAll(async () => {
    store = await storeAt(join(dir, 'links.db'))
  })
  afterAll(async () => {
    await store?.close()
  })

  it('two requests racing with one code get one token between them', async () => {
    const links = new SignInLinks(store)
    const issued = links.issue()
    const results = await Promise.all([links.redeem(issued), links.redeem(issued), links.redeem(issued)])
    expect(results.filter((r) => 'token' in r)).toHaveLength(1)
    expect((await store.listTokens()).length).toBe(1)
  })

  it('an expired code is refused and makes no token', async () => {
    let now = 1_000_000
    const links = new SignInLinks(store, { now: () => now })
    const issued = links.issue()
    const before = (await store.listTokens()).length
    now += SIGNIN_LINK_TTL_MS + 1
    const late = await links.redeem(issued)
    expect(late).toMatchObject({ status: 401 })
    expect('error' in late && late.error).toContain('expired')
    expect((await store.listTokens()).length).toBe(before)
  })

  it('a first start is one with no admin token that is still valid', async () => {
    const fresh = await storeAt(join(dir, 'fresh.db'))
    try {
      const links = new SignInLinks(fresh)
      expect(await links.firstStart()).toBe(true)
      const redeemed = await links.redeem(links.issue())
      expect('tokenId' in redeemed).toBe(true)
      expect(await links.firstStart()).toBe(false)
      if ('tokenId' in redeemed) await fresh.revokeToken(redeemed.tokenId, Date.now())
      expect(await links.firstStart()).toBe(true)
    } finally {
      await fresh.close()
    }
  })
})

describe.skipIf(!chromium)('the UI with a sign-in link', () => {
  let browser: Browser
  let other: Served
  beforeAll(async () => {
    other = await serve({ dir, name: 'signin-ui', yaml: YAML, db: join(dir, 'ui.db') })
    browser = await launch(chromium as string)
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await other?.stop()
  })

  it('signs in, and the code leaves the address bar', async () => {
    const uiCode = codeIn(other.stdout()) as string
    const { page, problems, close } = await openPage(browser)
    try {
      await page.goto(`${other.url}/#signin=${uiCode}`)
      await page.getByRole('navigation', { name: 'Main' }).waitFor()
      expect(page.url()).not.toContain(uiCode)
      expect(await page.evaluate("sessionStorage.getItem('warden.token')")).toMatch(/^wdn_/)
      expect(problems).toEqual([])
      // The same link opened again (from history, say) is refused, saying why.
      await page.evaluate('sessionStorage.clear()')
      await page.goto('about:blank')
      await page.goto(`${other.url}/#signin=${uiCode}`)
      await page.getByText('already used').waitFor()
    } finally {
      await close()
    }
  })
})
