// Attack: a tenant editor runs a Starlark script through `hooks.test` over /ws and reads the
// other hooks with `hooks.list()`. Through /ws that tenant sees its own hooks only, never the
// global hooks' conditions or descriptions; its script must see no more than that. An admin
// (no tenant) sees every hook both ways. Against a real `warden serve` with token auth.

import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/index.js'
import { type Served, serve, storeAt, tempDir, token, WsClient } from '../server/management-helper.js'

const GLOBAL_IF = 'payload.tool.name == "wire-transfer-7731"'
const GLOBAL_DESCRIPTION = 'global-only escalation path to the fraud desk'

const LISTER = {
  name: 'lister',
  event: 'tool.pre',
  handler: {
    type: 'script',
    source: [
      'def handle(event, payload):',
      '    seen = [h["name"] + "|" + str(h["if"]) + "|" + str(h["description"]) for h in hooks.list()]',
      '    return block("seen: " + ";".join(seen))',
    ].join('\n'),
  },
}

const sample = { payload: { tool: { name: 'deploy', input: {} } } }

describe('hooks.list() in a tenant editor’s hooks.test sees only what /ws shows that tenant', () => {
  const dir = tempDir('warden-meta-scope-')
  const db = join(dir, 'warden.db')
  let warden: Served
  let store: Store
  let acme: WsClient
  let admin: WsClient

  beforeAll(async () => {
    warden = await serve({
      dir,
      name: 'meta-scope',
      db,
      yaml: `
server: { auth: token }
hooks:
  - name: global-fraud-guard
    event: tool.pre
    if: '${GLOBAL_IF}'
    description: '${GLOBAL_DESCRIPTION}'
    handler: { type: deny, reason: "no" }
  - name: acme-own-guard
    event: tool.pre
    scope: { tenant: acme }
    description: acme's own guard
    handler: { type: deny, reason: "no" }
`,
    })
    store = await storeAt(db)
    acme = await WsClient.connect(warden.url, (await token(store, 'editor', 'acme')).token)
    admin = await WsClient.connect(warden.url, (await token(store, 'admin')).token)
  }, 60_000)

  afterAll(async () => {
    for (const client of [acme, admin]) client?.close()
    await store?.close()
    await warden?.stop()
  })

  it('lists no global hook to the tenant, through /ws or through its script', async () => {
    const listed = await acme.ok('hooks.list', {})
    const names = (listed.hooks as { name: string }[]).map((h) => h.name)
    expect(names).toContain('acme-own-guard')
    expect(names).not.toContain('global-fraud-guard')

    const run = await acme.ok('hooks.test', { hook: LISTER, event: sample })
    expect(run.decision).toBe('deny')
    expect(run.reason).toContain("acme-own-guard|None|acme's own guard")
    expect(run.reason).not.toContain('global-fraud-guard')
    expect(run.reason).not.toContain('wire-transfer-7731')
    expect(run.reason).not.toContain('fraud desk')
  })

  it('still shows an admin every hook, in /ws and in its script', async () => {
    const listed = await admin.ok('hooks.list', {})
    expect((listed.hooks as { name: string }[]).map((h) => h.name)).toContain('global-fraud-guard')
    const run = await admin.ok('hooks.test', { hook: LISTER, event: sample })
    expect(run.reason).toContain(`global-fraud-guard|${GLOBAL_IF}|${GLOBAL_DESCRIPTION}`)
  })
})
