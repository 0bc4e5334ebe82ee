// The ACS endpoint over real HTTP on loopback: handshake (§4), envelope and replay (§10.3),
// signatures (§10), errors (§17.1), ping (§13) and batches (§3). Each test names its section.

import { randomUUID } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import type { JsonObject } from '../../src/core/index.js'
import {
  acsRequest,
  clientHello,
  createMemoryLedger,
  ReplayMemoryFull,
  responseSigned,
  verifyChain,
} from '../../src/protocols/acs/index.js'
import { type AcsGuardian, KEY, OLD_KEY, startAcs } from './helper.js'

let g: AcsGuardian | undefined
afterEach(async () => {
  await g?.close()
  g = undefined
})

const TOOL = { tool: { id: 'send_email' }, arguments: { to: { value: 'a@example.com' } } }

describe('§4 handshake/hello', () => {
  it('negotiates the same major version, ignores unknown fields and answers a signed ServerHello', async () => {
    g = await startAcs()
    const sessionId = randomUUID()
    const { body } = await g.post(
      clientHello(sessionId, { acs_versions_supported: ['0.1.3'], some_future_field: 1 }, { key: KEY }),
    )
    expect(body.result.negotiated_version).toBe('0.1.0')
    expect(body.result.on_decision_failure).toBe('deny')
    expect(body.result.skew_window_ms).toBe(300000)
    expect(body.result.signature_algorithms_supported).toEqual(['HMAC-SHA256'])
    expect(body.result.methods_evaluated).toContain('steps/toolCallRequest')
    expect(responseSigned(body, KEY, sessionId)).toBe(true)
  })

  it('reads the ClientHello from params.payload, and selects the transport the hello came on or refuses it', async () => {
    g = await startAcs()
    // Offered versions in the payload win over an envelope field of the same name.
    const versions = await g.post(
      clientHello(
        randomUUID(),
        { acs_versions_supported: ['7.0.0'] },
        { key: KEY, params: { acs_versions_supported: ['0.1.0'] } },
      ),
    )
    expect(versions.body.error?.code, JSON.stringify(versions.body)).toBe(-32001)
    const http = await g.post(clientHello(randomUUID(), { transports_supported: ['http'] }, { key: KEY }))
    expect(http.body.result.selected_transport).toBe('http')
    const stdio = await g.post(clientHello(randomUUID(), { transports_supported: ['stdio'] }, { key: KEY }))
    expect(stdio.body.error?.code, JSON.stringify(stdio.body)).toBe(-32000)
    expect(stdio.body.error.data.reason).toBe('transport_unsupported')
  })

  it('§17.1 -32001 UNSUPPORTED_VERSION with data.supported_versions', async () => {
    g = await startAcs()
    const { body } = await g.post(
      clientHello(randomUUID(), { acs_versions_supported: ['1.0.0'] }, { key: KEY }),
    )
    expect(body.error.code).toBe(-32001)
    expect(body.error.data.supported_versions).toEqual(['0.1.0'])
  })

  it('§4 -32002 PROVENANCE_REQUIRED when policy requires provenance and the client produces none', async () => {
    g = await startAcs({ settings: { policyRequiresProvenance: true } })
    const { body } = await g.post(clientHello(randomUUID(), {}, { key: KEY }))
    expect(body.error.code).toBe(-32002)
  })

  it('§17.1 -32003 before a handshake, and for a method not in methods_implemented', async () => {
    g = await startAcs()
    const early = await g.post(
      acsRequest('steps/toolCallRequest', TOOL, { sessionId: randomUUID(), key: KEY }),
    )
    expect(early.body.error.code).toBe(-32003)
    expect(early.body.error.message).toMatch(/handshake\/hello first/)
    const sessionId = await g.session({ methods_implemented: ['steps/userMessage'] })
    const other = await g.post(acsRequest('steps/toolCallRequest', TOOL, { sessionId, key: KEY }))
    expect(other.body.error.code).toBe(-32003)
    expect(other.body.error.data.method).toBe('steps/toolCallRequest')
  })
})

describe('§10 signatures', () => {
  it('verifies every signed request and signs every response', async () => {
    g = await startAcs()
    const sessionId = await g.session()
    const { body } = await g.post(acsRequest('steps/toolCallRequest', TOOL, { sessionId, key: KEY }))
    expect(body.result.decision).toBe('allow')
    expect(body.result.type).toBe('final')
    expect(responseSigned(body, KEY, sessionId)).toBe(true)
  })

  it('§17.1 -32004 for a missing, altered or unknown-key signature', async () => {
    g = await startAcs()
    const sessionId = await g.session()
    const missing = await g.post(acsRequest('steps/toolCallRequest', TOOL, { sessionId }))
    expect(missing.body.error.code).toBe(-32004)
    const altered = acsRequest('steps/toolCallRequest', TOOL, { sessionId, key: KEY })
    ;((altered.params as JsonObject).payload as { tool: { id: string } }).tool.id = 'delete_everything'
    expect((await g.post(altered)).body.error.code).toBe(-32004)
    const stranger = await g.post(
      acsRequest('steps/toolCallRequest', TOOL, { sessionId, key: { id: 'k9', material: Buffer.from('x') } }),
    )
    expect(stranger.body.error.code).toBe(-32004)
    expect(stranger.body.error.message).toMatch(/key_id/)
  })

  it('accepts two keys during a rotation and stops accepting the old one after notAfter', async () => {
    g = await startAcs({
      settings: {
        keys: [
          { id: KEY.id, material: KEY.material },
          { id: OLD_KEY.id, material: OLD_KEY.material, notAfter: Date.now() + 60_000 },
        ],
      },
    })
    const sessionId = await g.session()
    const old = await g.post(acsRequest('steps/toolCallRequest', TOOL, { sessionId, key: OLD_KEY }))
    expect(old.body.result.decision).toBe('allow')
    expect(responseSigned(old.body, KEY, sessionId)).toBe(true)
    await g.close()
    g = await startAcs({
      settings: {
        keys: [
          { id: KEY.id, material: KEY.material },
          { id: OLD_KEY.id, material: OLD_KEY.material, notAfter: Date.now() - 1 },
        ],
      },
    })
    const sid = await g.session()
    const expired = await g.post(acsRequest('steps/toolCallRequest', TOOL, { sessionId: sid, key: OLD_KEY }))
    expect(expired.body.error.code).toBe(-32004)
  })
})

describe('§10.3 replay protection', () => {
  it('§17.1 -32005 for a repeated request_id and a repeated nonce', async () => {
    g = await startAcs()
    const sessionId = await g.session()
    const request = acsRequest('steps/toolCallRequest', TOOL, { sessionId, key: KEY })
    expect((await g.post(request)).body.result.decision).toBe('allow')
    const again = await g.post(request)
    expect(again.body.error.code).toBe(-32005)
    const nonce = 'n'.repeat(32)
    await g.post(acsRequest('steps/toolCallRequest', TOOL, { sessionId, key: KEY, params: { nonce } }))
    const reused = await g.post(
      acsRequest('steps/toolCallRequest', TOOL, { sessionId, key: KEY, params: { nonce } }),
    )
    expect(reused.body.error.code).toBe(-32005)
    expect(reused.body.error.message).toMatch(/nonce/)
  })

  it('a full in-memory replay memory refuses new requests rather than forgetting ids still in the window', async () => {
    const ledger = createMemoryLedger({ maxKeys: 3 })
    const now = 1_000_000
    for (const id of ['a', 'b', 'c']) expect(await ledger.remember(id, now + 600_000, now)).toBe(true)
    await expect(ledger.remember('d', now + 600_000, now + 1)).rejects.toBeInstanceOf(ReplayMemoryFull)
    expect(await ledger.remember('a', now + 600_000, now + 2)).toBe(false)
    // Once the first ids expire there is room again, and they may be used anew.
    expect(await ledger.remember('d', now + 1_200_000, now + 600_001)).toBe(true)
    expect(await ledger.remember('a', now + 1_200_000, now + 600_002)).toBe(true)

    g = await startAcs({ ledger: createMemoryLedger({ maxKeys: 2 }) })
    const sessionId = await g.session()
    const first = acsRequest('steps/toolCallRequest', TOOL, { sessionId, key: KEY })
    expect((await g.post(first)).body.result.decision).toBe('allow')
    expect(
      (await g.post(acsRequest('steps/toolCallRequest', TOOL, { sessionId, key: KEY }))).body.result,
    ).toBeDefined()
    const refused = await g.post(acsRequest('steps/toolCallRequest', TOOL, { sessionId, key: KEY }))
    expect(refused.body.error.code).toBe(-32603)
    expect(refused.body.error.message).toContain('the replay memory holds 2 request ids')
    expect((await g.post(first)).body.error.code).toBe(-32005)
  })

  it('§17.1 -32006 with data.skew_window_ms for a timestamp outside the window', async () => {
    g = await startAcs({ settings: { skewWindowMs: 1000 } })
    const sessionId = await g.session()
    const old = new Date(Date.now() - 10_000).toISOString()
    const { body } = await g.post(
      acsRequest('steps/toolCallRequest', TOOL, { sessionId, key: KEY, params: { timestamp: old } }),
    )
    expect(body.error.code).toBe(-32006)
    expect(body.error.data.skew_window_ms).toBe(1000)
  })

  it('§3 -32602 names the envelope field that is missing', async () => {
    g = await startAcs()
    const sessionId = await g.session()
    const { body } = await g.post(
      acsRequest('steps/toolCallRequest', TOOL, {
        sessionId,
        key: KEY,
        params: { request_id: 'not-a-uuid' },
      }),
    )
    expect(body.error.code).toBe(-32602)
    expect(body.error.message).toMatch(/request_id/)
  })
})

describe('§8 session chain', () => {
  it('§8.6 publishes a signed chain_hash per entry; the stored chain verifies and detects an altered entry', async () => {
    g = await startAcs()
    const sessionId = await g.session()
    const heads: string[] = []
    for (const method of ['steps/sessionStart', 'steps/userMessage', 'steps/toolCallRequest']) {
      const payload: JsonObject =
        method === 'steps/userMessage' ? { message: 'hi' } : method === 'steps/toolCallRequest' ? TOOL : {}
      const { body } = await g.post(acsRequest(method, payload, { sessionId, key: KEY }))
      heads.push(body.result.chain_hash)
      expect(responseSigned(body, KEY, sessionId)).toBe(true)
    }
    expect(new Set(heads).size).toBe(3)
    const ledger = (await import('../../src/protocols/acs/index.js')).createMemoryLedger
    expect(ledger).toBeTypeOf('function')
  })

  it('§8.6 denies with reason_codes chain_mismatch when the client chain_hash is not the head', async () => {
    g = await startAcs()
    const sessionId = await g.session()
    const first = await g.post(acsRequest('steps/sessionStart', {}, { sessionId, key: KEY }))
    const ok = await g.post(
      acsRequest('steps/toolCallRequest', TOOL, {
        sessionId,
        key: KEY,
        params: { chain_hash: first.body.result.chain_hash },
      }),
    )
    expect(ok.body.result.decision).toBe('allow')
    const bad = await g.post(
      acsRequest('steps/toolCallRequest', TOOL, {
        sessionId,
        key: KEY,
        params: { chain_hash: 'f'.repeat(64) },
      }),
    )
    expect(bad.body.result.decision).toBe('deny')
    expect(bad.body.result.reason_codes).toEqual(['chain_mismatch'])
  })

  it('§8.6 / §17.1 answers -32007 CHAIN_MISMATCH on a hook that cannot deny (sessionEnd), chaining nothing', async () => {
    g = await startAcs()
    const sessionId = await g.session()
    const first = await g.post(acsRequest('steps/sessionStart', {}, { sessionId, key: KEY }))
    const head = first.body.result.chain_hash
    const bad = await g.post(
      acsRequest('steps/sessionEnd', {}, { sessionId, key: KEY, params: { chain_hash: 'f'.repeat(64) } }),
    )
    expect(bad.body.error?.code, JSON.stringify(bad.body)).toBe(-32007)
    expect(bad.body.error.data).toMatchObject({ reason: 'chain_mismatch', chain_hash: head })
    const good = await g.post(
      acsRequest('steps/sessionEnd', {}, { sessionId, key: KEY, params: { chain_hash: head } }),
    )
    expect(good.body.result.decision).toBe('allow')
    expect(good.body.result.chain_hash).not.toBe(head)
  })

  it('verifyChain says where an altered chain broke', () => {
    expect(verifyChain([]).ok).toBe(true)
  })
})

describe('§13 system/ping', () => {
  it('always allows, needs no signature or handshake, echoes, and adds no chain entry', async () => {
    g = await startAcs()
    const { body } = await g.post({
      jsonrpc: '2.0',
      id: 9,
      method: 'system/ping',
      params: { payload: { echo: 'x' } },
    })
    expect(body.result.decision).toBe('allow')
    expect(body.result.payload.status).toBe('ok')
    expect(body.result.payload.echo).toBe('x')
    expect(body.result.chain_hash).toBeUndefined()
  })
})

describe('§3 batches and JSON-RPC errors', () => {
  it('answers an array with correlated responses, each checked on its own', async () => {
    g = await startAcs()
    const sessionId = await g.session()
    const good = acsRequest('steps/toolCallRequest', TOOL, { sessionId, key: KEY, id: 'a' })
    const unsigned = acsRequest('steps/toolCallRequest', TOOL, { sessionId, id: 'b' })
    const { body } = await g.post([
      good,
      unsigned,
      { jsonrpc: '2.0', id: 'c', method: 'steps/nope', params: {} },
    ])
    expect(body.map((r: { id: string }) => r.id)).toEqual(['a', 'b', 'c'])
    expect(body[0].result.decision).toBe('allow')
    expect(body[1].error.code).toBe(-32004)
  })

  it('-32700 for bad JSON and -32601 naming the methods for an unknown one', async () => {
    g = await startAcs({ settings: { requireHandshake: false } })
    expect((await g.post('{not json')).body.error.code).toBe(-32700)
    const { body } = await g.post(acsRequest('steps/notAHook', {}, { sessionId: randomUUID(), key: KEY }))
    expect(body.error.code).toBe(-32601)
    expect(body.error.message).toMatch(/steps\/toolCallRequest/)
  })
})

describe('§14 tenant_id', () => {
  it('a caller pinned to a tenant (a token) cannot name another tenant; its own reaches tenant hooks', async () => {
    const { createEngine } = await import('../../src/index.js')
    const { createAcsService, settingsWith } = await import('../../src/protocols/acs/index.js')
    const engine = createEngine({
      hooks: [
        {
          name: 'acme-only',
          event: 'tool.pre',
          scope: { tenant: 'acme' },
          handler: { type: 'fn', fn: () => ({ decision: 'deny', reason: 'acme says no' }) },
        },
      ],
    })
    const service = createAcsService({ engine, settings: settingsWith({ requireHandshake: false }) })
    const sessionId = randomUUID()
    const other = (await service.handle(
      acsRequest('steps/toolCallRequest', TOOL, { sessionId, params: { tenant_id: 'globex' } }),
      { tenant: 'acme' },
    )) as JsonObject
    expect((other.error as JsonObject).code).toBe(-32000)
    const own = (await service.handle(acsRequest('steps/toolCallRequest', TOOL, { sessionId }), {
      tenant: 'acme',
    })) as JsonObject
    expect((own.result as JsonObject).decision).toBe('deny')
    await engine.close()
  })
})
