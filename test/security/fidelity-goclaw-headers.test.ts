// GoClaw stores a hook's headers encrypted; under Warden the `headers` of a GoClaw file are
// sealed as API hooks' secret headers are: never held in clear by the loaded hook, never
// listed in clear by hooks.list / hooks.get, whatever the header is called. The GoClaw
// `/ws` shapes reach only the caller tenant's hooks.

import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/core/index.js'
import { createHttpHandler } from '../../src/handlers/index.js'
import { createOutboundClient } from '../../src/net/index.js'
import { createSecretBox } from '../../src/secrets/index.js'
import { parseGoclawHooks } from '../../src/sources/index.js'
import {
  SECRET_KEY,
  type Served,
  serve,
  storeAt,
  tempDir,
  token,
  WsClient,
} from '../server/management-helper.js'

const SECRET = 'gc-route-secret-4711'
const GOCLAW = [
  {
    name: 'routed',
    event: 'pre_tool_use',
    handler_type: 'http',
    scope: 'tenant',
    tenant_id: 'acme',
    config: { url: 'https://hooks.example.com/check', headers: { 'X-Route-Key': SECRET } },
  },
]

describe('GoClaw file headers are sealed', () => {
  it('the loaded hook holds the header sealed, not in clear', async () => {
    const report = parseGoclawHooks(JSON.stringify(GOCLAW), 'goclaw.json')
    expect(report.problems).toEqual([])
    const client = createOutboundClient({})
    const engine = createEngine({
      handlers: [
        createHttpHandler({ client, secrets: createSecretBox({ env: { WARDEN_SECRET_KEY: SECRET_KEY } }) }),
      ],
      hooks: report.hooks,
    })
    try {
      expect(JSON.stringify(engine.hooks())).not.toContain(SECRET)
    } finally {
      await engine.close()
      await client.close()
    }
  })

  const dir = tempDir('warden-goclaw-headers-')
  let served: Served
  let acme: WsClient
  let other: WsClient
  beforeAll(async () => {
    const db = join(dir, 'h.db')
    const file = join(dir, 'goclaw.json')
    writeFileSync(file, JSON.stringify(GOCLAW))
    const store = await storeAt(db)
    const a = await token(store, 'admin', 'acme')
    const o = await token(store, 'admin', 'other')
    await store.close()
    served = await serve({ dir, name: 'headers', yaml: '', db, args: ['--goclaw', file] })
    acme = await WsClient.connect(served.url, a.token)
    other = await WsClient.connect(served.url, o.token)
  }, 60_000)
  afterAll(async () => {
    acme?.close()
    other?.close()
    await served?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('hooks.list and hooks.get (Warden and GoClaw shapes) never show the header in clear', async () => {
    const listed = await acme.ok('hooks.list', {})
    expect(listed.hooks.map((h: { id: string }) => h.id)).toEqual(['acme/routed'])
    for (const payload of [
      listed,
      await acme.ok('hooks.get', { id: 'acme/routed' }),
      await acme.ok('hooks.get', { hookId: 'acme/routed' }),
      await acme.ok('hooks.list', { event: 'pre_tool_use', agentId: '' }),
    ]) {
      expect(JSON.stringify(payload)).not.toContain(SECRET)
    }
    expect(served.stderr()).not.toContain(SECRET)
  })

  it("another tenant's token reaches the hook in neither shape", async () => {
    expect((await other.ok('hooks.list', { event: 'pre_tool_use' })).hooks).toEqual([])
    for (const [method, params] of [
      ['hooks.get', { hookId: 'acme/routed' }],
      ['hooks.toggle', { hookId: 'acme/routed', enabled: false }],
      ['hooks.update', { hookId: 'acme/routed', updates: { matcher: 'x' } }],
      ['hooks.history', { hookId: 'acme/routed' }],
      ['hooks.test', { hookId: 'acme/routed', sampleEvent: { toolName: 'exec' } }],
    ] as const) {
      const res = await other.call(method, params)
      expect(res.error?.code, method).toBe('not-found')
      expect(JSON.stringify(res)).not.toContain(SECRET)
    }
  })
})
