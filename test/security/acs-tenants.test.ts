// Two tenants, one ACS session id, on a real `warden serve` with token auth and a database
// store (SQLite and PostgreSQL): a caller of one tenant who reuses the other's session id
// (agents choose their ids, often counters) can neither append to nor break the other's
// chain, collide with its replay memory, see or change its Intent, nor answer its pending
// ASK. Each tenant's chain stays whole in the store and verifies on its own.

import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonObject } from '../../src/core/index.js'
import {
  acsRequest,
  clientHello,
  deriveSessionKey,
  signMessage,
  verifyChain,
} from '../../src/protocols/acs/index.js'
import { openAcsLedger } from '../../src/server/index.js'
import type { Store } from '../../src/store/index.js'
import { type Loose, type Served, serve, storeAt, tempDir, token } from '../server/management-helper.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'

const SECRET = 'the deployment key of the two-tenant test'
const APPROVER_SECRET = 'the approver key of the two-tenant test'
const KEY = { id: 'k1', material: Buffer.from(SECRET, 'utf8') }

const CONFIG = `server: { auth: token }
acs:
  keys:
    - id: k1
      secret: env:ACS_KEY_K1
  approvers:
    - id: secops
      type: service
      endpoint: https://approver.example/acs
      secret: env:ACS_APPROVER
`

let pg: TestDatabase | undefined
beforeAll(async () => {
  pg = await postgresForTests()
})
afterAll(async () => {
  await pg?.release()
})

const backends = [
  { backend: 'sqlite', db: (dir: string) => join(dir, 'warden.db') },
  { backend: 'postgres', db: () => pg?.url },
]

describe.each(backends)('two tenants, one ACS session id, on $backend', ({ backend, db: where }) => {
  const dir = tempDir(`warden-acs-tenants-${backend}-`)
  let warden: Served
  let store: Store
  const secrets: Record<string, string> = {}

  beforeAll(async () => {
    const db = where(dir)
    if (!db) return
    warden = await serve({
      dir,
      name: backend,
      db,
      yaml: CONFIG,
      env: { ACS_KEY_K1: SECRET, ACS_APPROVER: APPROVER_SECRET },
    })
    store = await storeAt(db)
    for (const tenant of ['acme', 'globex'])
      secrets[tenant] = (await token(store, 'agent', tenant, `${tenant}-${randomUUID()}`)).token
  }, 60_000)
  afterAll(async () => {
    await store?.close()
    await warden?.stop()
  })

  async function post(tenant: string, body: unknown): Promise<Loose> {
    const response = await fetch(`${warden.url}/acs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secrets[tenant]}` },
      body: JSON.stringify(body),
    })
    return response.json()
  }

  const tool = (capability: string) => ({ tool: { name: 'fs' }, capability, arguments: {} })
  const step = (sessionId: string, payload: JsonObject, params: JsonObject = {}) =>
    acsRequest('steps/toolCallRequest', payload, { sessionId, key: KEY, params })

  it('neither tenant can touch the other’s chain, replay memory, Intent or pending ASK', async (ctx) => {
    const db = where(dir)
    if (!db) return ctx.skip()
    const shared = 'session-1'
    for (const tenant of ['acme', 'globex'])
      expect((await post(tenant, clientHello(shared, {}, { key: KEY }))).result).toBeDefined()
    const intent = {
      raw: 'read the logs',
      parsed: ['filesystem.read'],
      parser_provenance: { origin: 'user_input' },
      scope_mode: 'ask',
    }
    const start = await post(
      'acme',
      acsRequest('steps/sessionStart', { intent }, { sessionId: shared, key: KEY }),
    )
    expect(start.result?.decision, JSON.stringify(start)).toBe('allow')

    // Chain: globex sending acme's head is a mismatch on its own (empty) chain, and acme's
    // chain goes on from its head as if globex had never sent anything.
    const acmeHead = start.result.chain_hash as string
    const intruder = await post('globex', step(shared, tool('filesystem.read'), { chain_hash: acmeHead }))
    expect(intruder.result?.decision, JSON.stringify(intruder)).toBe('deny')
    expect(intruder.result?.reason_codes).toEqual(['chain_mismatch'])
    const globexFirst = await post('globex', step(shared, tool('network.egress')))
    // Intent: globex has none in this session, so acme's does not bind it.
    expect(globexFirst.result?.decision, JSON.stringify(globexFirst)).toBe('allow')
    const acmeNext = await post('acme', step(shared, tool('filesystem.read'), { chain_hash: acmeHead }))
    expect(acmeNext.result?.decision, JSON.stringify(acmeNext)).toBe('allow')

    // Replay memory: the same request_id in the other tenant's session is no replay there,
    // and still one in its own.
    const requestId = randomUUID()
    const acmeOnce = await post('acme', step(shared, tool('filesystem.read'), { request_id: requestId }))
    expect(acmeOnce.result?.decision, JSON.stringify(acmeOnce)).toBe('allow')
    const globexSame = await post('globex', step(shared, tool('filesystem.read'), { request_id: requestId }))
    expect(globexSame.result?.decision, JSON.stringify(globexSame)).toBe('allow')
    const acmeAgain = await post('acme', step(shared, tool('filesystem.read'), { request_id: requestId }))
    expect(acmeAgain.error?.code).toBe(-32005)

    // Pending ASK: acme's ASK, answered by the approver, opens nothing for globex.
    const asked = await post('acme', step(shared, tool('network.egress')))
    expect(asked.result?.decision, JSON.stringify(asked)).toBe('ask')
    const answer: JsonObject = {
      jsonrpc: '2.0',
      id: 1,
      result: { type: 'final', acs_version: '0.1.0', request_id: asked.result.request_id, decision: 'allow' },
    }
    signMessage(answer, 'result', deriveSessionKey(Buffer.from(APPROVER_SECRET), shared), 'secops')
    const globexIntent = { ...intent, parsed: ['filesystem.read'], scope_mode: 'strict' }
    const globexStart = await post(
      'globex',
      acsRequest('steps/sessionStart', { intent: globexIntent }, { sessionId: shared, key: KEY }),
    )
    expect(globexStart.result?.decision, JSON.stringify(globexStart)).toBe('allow')
    const stolen = await post('globex', step(shared, tool('network.egress'), { approval: answer }))
    expect(stolen.result?.decision, JSON.stringify(stolen)).toBe('deny')
    expect(stolen.result?.reason_codes).toEqual(['approval_unknown'])
    const used = await post('acme', step(shared, tool('network.egress'), { approval: answer }))
    expect(used.result?.decision, JSON.stringify(used)).toBe('allow')

    // In the store: two chains, each whole and each holding only its tenant's steps.
    const ledger = openAcsLedger(db)
    try {
      const acme = await ledger.entries({ tenant: 'acme', session: shared })
      const globex = await ledger.entries({ tenant: 'globex', session: shared })
      expect(verifyChain(acme).ok).toBe(true)
      expect(verifyChain(globex).ok).toBe(true)
      expect(acme.map((e) => e.step_type)).toEqual([
        'steps/sessionStart',
        'steps/toolCallRequest',
        'steps/toolCallRequest',
        'steps/toolCallRequest',
        'intent_extension',
        'steps/toolCallRequest',
      ])
      expect(globex.map((e) => e.decision)).toEqual(['deny', 'allow', 'allow', 'allow', 'deny'])
      expect(await ledger.entries({ tenant: '', session: shared })).toEqual([])
    } finally {
      await ledger.close()
    }
  })
})
