// A token never travels in a URL except the browser's `/ws?token=` (a WebSocket cannot
// carry an Authorization header from a page): `/aos` and `/acs` with `server.auth: token`
// read the token from the Authorization header only, so a `?token=` that proxies and
// access logs would record is refused like no token at all.

import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/index.js'
import { aos, type Served, serve, storeAt, tempDir, token, toolCall } from '../server/management-helper.js'

describe('tokens stay out of /aos and /acs URLs', () => {
  const dir = tempDir('warden-token-url-')
  const db = join(dir, 'warden.db')
  let warden: Served
  let store: Store
  let agentToken: string

  beforeAll(async () => {
    warden = await serve({ dir, name: 'token-url', db, yaml: 'server: { auth: token }\nhooks: []\n' })
    store = await storeAt(db)
    agentToken = (await token(store, 'agent')).token
  }, 60_000)

  afterAll(async () => {
    await store?.close()
    await warden?.stop()
  })

  it('refuses a token in the /aos query string and takes it in the header', async () => {
    const inUrl = await fetch(`${warden.url}/aos?token=${agentToken}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(toolCall('ls', {})),
    })
    expect(inUrl.status).toBe(401)
    const inHeader = await aos(warden.url, toolCall('ls', {}), { authorization: `Bearer ${agentToken}` })
    expect(inHeader.status).toBe(200)
  })

  it('refuses a token in the /acs query string', async () => {
    const response = await fetch(`${warden.url}/acs?token=${agentToken}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: {} }),
    })
    expect(response.status).toBe(401)
  })
})
