// Attacks on ACS's synchronous path: a step on a memory ledger whose hooks answer at once is
// answered without a promise, and that shortcut must keep every check. A replay sent in the
// same turn as the original, a forged or re-keyed signature, a request outside the timestamp
// window and another session's chain head are refused as on the promise path; a hook that
// answers later still gets a signed, chained answer; and the session chain of answers given
// synchronously verifies, entry by entry.

import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import type { JsonObject } from '../../src/core/index.js'
import { createEngine } from '../../src/index.js'
import {
  type AcsService,
  acsRequest,
  clientHello,
  createAcsService,
  createMemoryLedger,
  deriveSessionKey,
  responseSigned,
  settingsWith,
  signMessage,
  verifyChain,
} from '../../src/protocols/acs/index.js'

const KEY = { id: 'k1', material: Buffer.from('the sync path key of the deployment') }
const engine = createEngine({
  hooks: [
    {
      name: 'allow-sms',
      event: 'tool.pre',
      matcher: 'send_sms',
      handler: { type: 'fn', fn: () => ({ decision: 'allow' }) },
    },
    {
      name: 'later',
      event: 'tool.pre',
      matcher: 'slow_tool',
      handler: {
        type: 'fn',
        fn: () => new Promise((resolve) => setImmediate(() => resolve({ decision: 'allow' }))),
      },
    },
  ],
})
const ledger = createMemoryLedger()
const service: AcsService = createAcsService({
  engine,
  settings: settingsWith({ keys: [{ ...KEY }] }),
  ledger,
})
afterAll(() => engine.close())

async function session(): Promise<string> {
  const id = randomUUID()
  const hello = (await service.handle(clientHello(id, {}, { key: KEY }))) as JsonObject
  expect(hello.result).toBeDefined()
  return id
}

function signed(sessionId: string, tool = 'send_sms', extra: JsonObject = {}, key = KEY): Buffer {
  const message = acsRequest('steps/toolCallRequest', { tool: { id: tool } }, { sessionId, nonce: true })
  Object.assign(message.params as JsonObject, extra)
  signMessage(message, 'params', deriveSessionKey(key.material, sessionId), key.id)
  return Buffer.from(JSON.stringify(message))
}

/** The answer, which must have come without a promise. */
function atOnce(body: Buffer): JsonObject {
  const answer = service.answerBody(body)
  expect(answer).not.toBeInstanceOf(Promise)
  return answer as JsonObject
}

const errorCode = (answer: JsonObject) => (answer.error as JsonObject | undefined)?.code

describe('ACS synchronous path keeps every check', () => {
  it('answers a signed step at once, signed under the session key and chained', async () => {
    const id = await session()
    const answer = atOnce(signed(id))
    expect((answer.result as JsonObject).decision).toBe('allow')
    expect(responseSigned(answer, KEY, id)).toBe(true)
    expect((answer.result as JsonObject).chain_hash).toMatch(/^[0-9a-f]{64}$/)
  })

  it('refuses a replay sent in the same turn as the original', async () => {
    const id = await session()
    const body = signed(id)
    const first = atOnce(body)
    const again = atOnce(body)
    expect((first.result as JsonObject).decision).toBe('allow')
    expect(errorCode(again)).toBe(-32005)
  })

  it('refuses a forged signature, another deployment key and a stale timestamp', async () => {
    const id = await session()
    const forged = JSON.parse(signed(id).toString()) as JsonObject
    const signature = (forged.params as JsonObject).signature as JsonObject
    const bytes = Buffer.from(signature.value as string, 'base64')
    bytes[5] = (bytes[5] as number) ^ 0x20
    signature.value = bytes.toString('base64')
    expect(errorCode(atOnce(Buffer.from(JSON.stringify(forged))))).toBe(-32004)
    const otherKey = { id: KEY.id, material: Buffer.from('not the deployment key at all') }
    expect(errorCode(atOnce(signed(id, 'send_sms', {}, otherKey)))).toBe(-32004)
    const stale = signed(id, 'send_sms', { timestamp: new Date(Date.now() - 3_600_000).toISOString() })
    expect(errorCode(atOnce(stale))).toBe(-32006)
  })

  it("denies a step that names another session's chain head", async () => {
    const mine = await session()
    const theirs = await session()
    const head = (atOnce(signed(theirs)).result as JsonObject).chain_hash as string
    const answer = atOnce(signed(mine, 'send_sms', { chain_hash: head }))
    expect((answer.result as JsonObject).decision).toBe('deny')
    expect((answer.result as JsonObject).reason_codes).toEqual(['chain_mismatch'])
  })

  it('a hook that answers later still gets a signed, chained answer, and the chain verifies', async () => {
    const id = await session()
    atOnce(signed(id))
    const later = service.answerBody(signed(id, 'slow_tool'))
    expect(later).toBeInstanceOf(Promise)
    const answer = (await later) as JsonObject
    expect((answer.result as JsonObject).decision).toBe('allow')
    expect(responseSigned(answer, KEY, id)).toBe(true)
    const last = atOnce(signed(id))
    const entries = await ledger.entries({ tenant: '', session: id })
    expect(entries).toHaveLength(3)
    const verdict = verifyChain(entries)
    expect(verdict.ok).toBe(true)
    expect(verdict.head).toBe((last.result as JsonObject).chain_hash)
  })
})
