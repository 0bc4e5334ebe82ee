// A web page on another site, in Debian's Chromium, against a real `warden serve` on
// loopback without auth (the `npm start` default): a `no-cors` text/plain fetch and a
// `<form enctype="text/plain">` POST to `/aos` must not reach the hooks (no decision row),
// and a page whose name was rebound to 127.0.0.1 cannot read `/aos` or `/metrics`.

import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/index.js'
import { type Served, serve, storeAt, tempDir } from '../server/management-helper.js'
import { chromiumForTests } from '../setup/chromium.js'
import { launch } from './browser.js'

const chromium = await chromiumForTests()
const dir = tempDir('warden-front-door-ui-')
const db = join(dir, 'warden.db')
let warden: Served
let store: Store
let browser: Browser
let attacker: Server
let attackerPort = 0
let wardenPort = ''

const YAML = `
hooks:
  - name: no-destructive-shell
    event: tool.pre
    matcher: "^exec$"
    handler: { type: deny, reason: "no exec" }
`

/** An AOS tool call from an agent whose id marks who sent it. */
function forged(agentId: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'steps/toolCallRequest',
    params: {
      toolCallRequest: { executionId: randomUUID(), toolId: 'exec', inputs: [{ name: 'cmd', value: 'id' }] },
      context: { agent: { id: agentId, name: 'forged' }, session: { id: 's-forged' } },
    },
  })
}

/** The attacker's page: a no-cors text/plain fetch and a text/plain form, both to /aos. */
function attackPage(target: string): string {
  const body = forged('forged-form')
  // A text/plain form sends "name=value": the name carries the JSON up to a string the value closes.
  const cut = body.lastIndexOf('}')
  const name = `${body.slice(0, cut)},"pad":"`
  const value = '"}'
  return `<!doctype html><html><body>
<form id="f" method="POST" action="${target}/aos" enctype="text/plain">
<input type="hidden" name='${name.replace(/'/g, '&#39;')}' value='${value}'>
</form>
<script>
fetch(${JSON.stringify(`${target}/aos`)}, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(forged('forged-fetch'))} })
  .then(() => { document.title = 'fetched' }, () => { document.title = 'fetched' })
</script>
</body></html>`
}

beforeAll(async () => {
  if (!chromium) return
  warden = await serve({ dir, name: 'front-door-ui', yaml: YAML, db })
  wardenPort = new URL(warden.url).port
  store = await storeAt(db)
  attacker = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(attackPage(`http://127.0.0.1:${wardenPort}`))
  })
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve))
  attackerPort = (attacker.address() as AddressInfo).port
  browser = await launch(chromium, [
    '--host-resolver-rules=MAP evil.example 127.0.0.1, MAP attacker.example 127.0.0.1',
  ])
}, 120_000)

afterAll(async () => {
  await browser?.close()
  attacker?.close()
  await store?.close()
  await warden?.stop()
})

/** Waits until an answered request's row is written, so that earlier rows would be too. */
async function rowsSettled(): Promise<void> {
  const marker = `marker-${randomUUID()}`
  const answer = await fetch(`${warden.url}/aos`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: forged(marker),
  })
  expect(answer.status).toBe(200)
  await expect
    .poll(async () => (await store.listDecisions({ agentId: marker })).length, { timeout: 10_000 })
    .toBe(1)
}

describe.skipIf(!chromium)('a web page on another site against a local Warden', () => {
  it('cannot make /aos act with a no-cors text/plain fetch or a text/plain form', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    const refused: number[] = []
    page.on('response', (response) => {
      if (response.url().endsWith('/aos')) refused.push(response.status())
    })
    await page.goto(`http://attacker.example:${attackerPort}/`)
    await expect.poll(() => page.title()).toBe('fetched')
    await Promise.all([
      page.waitForURL(`**/aos`),
      page.locator('#f').evaluate((form) => (form as unknown as { submit(): void }).submit()),
    ])
    const shown = await page.textContent('body')
    expect(shown).toContain('Origin')
    expect(refused).toContain(403)
    await context.close()
    await rowsSettled()
    expect(await store.listDecisions({ agentId: 'forged-fetch' })).toHaveLength(0)
    expect(await store.listDecisions({ agentId: 'forged-form' })).toHaveLength(0)
  })

  it('does not answer a page whose name was rebound to 127.0.0.1', async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    const landing = await page.goto(`http://evil.example:${wardenPort}/`)
    expect(landing?.status()).toBe(421)
    // The page is now same-origin with "evil.example:PORT", which is Warden: it tries to read.
    const read = await page.evaluate(async (body) => {
      const aos = await fetch('/aos', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      const metrics = await fetch('/metrics')
      return {
        aos: aos.status,
        aosText: await aos.text(),
        metrics: metrics.status,
        metricsText: await metrics.text(),
      }
    }, forged('forged-rebound'))
    expect(read.aos).toBe(421)
    expect(read.aosText).not.toContain('no exec')
    expect(read.metrics).toBe(421)
    expect(read.metricsText).not.toContain('warden_decisions_total')
    await context.close()
    await rowsSettled()
    expect(await store.listDecisions({ agentId: 'forged-rebound' })).toHaveLength(0)
  })
})
