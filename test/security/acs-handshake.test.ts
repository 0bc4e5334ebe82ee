// The ACS handshake attacked on a real `warden serve` over HTTP, with a shared key and the
// fail-open posture (`onDecisionFailure: proceed`), where switching a session's hooks off
// would let everything through: a forged or unsigned handshake/hello is refused -32004 and
// leaves the session as negotiated; a correctly signed second hello cannot renegotiate a
// session; a hello without a session id (anonymous, or naming only an agent) opens nothing,
// so a step of a session that never had a handshake stays -32003; and an unsigned ping gets
// no signature of the session key over the echo it chose.

import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonObject } from '../../src/core/index.js'
import { acsRequest, clientHello, responseSigned } from '../../src/protocols/acs/index.js'
import { type Loose, type Served, serve, tempDir } from '../server/management-helper.js'

const SECRET = 'the deployment key of the handshake attack test'
const KEY = { id: 'k1', material: Buffer.from(SECRET, 'utf8') }
const FORGED = { algorithm: 'HMAC-SHA256', value: 'AAAA', key_id: 'k1' }

const CONFIG = `acs:
  onDecisionFailure: proceed
  keys:
    - id: k1
      secret: env:ACS_KEY_K1
hooks:
  - name: no-shell
    event: tool.pre
    matcher: shell
    handler: { type: command, command: "sh -c 'echo no shell here >&2; exit 2'" }
`

const dir = tempDir('warden-acs-handshake-')
let warden: Served

beforeAll(async () => {
  warden = await serve({
    dir,
    name: 'acs',
    db: join(dir, 'warden.db'),
    yaml: CONFIG,
    env: { ACS_KEY_K1: SECRET },
  })
})
afterAll(async () => {
  await warden?.stop()
})

async function post(body: unknown): Promise<Loose> {
  const response = await fetch(`${warden.url}/acs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return response.json()
}

function shellCall(sessionId: string): JsonObject {
  return acsRequest(
    'steps/toolCallRequest',
    { tool: { id: 'shell' }, arguments: {} },
    { sessionId, key: KEY },
  )
}

/** A hello for the session whose signature is `signature` (or none). */
function helloWith(sessionId: string, signature: JsonObject | undefined, hello: JsonObject = {}): JsonObject {
  const message = clientHello(sessionId, hello, { key: KEY })
  const params = message.params as JsonObject
  if (signature) params.signature = signature
  else delete params.signature
  return message
}

describe('ACS handshake/hello on warden serve', () => {
  it('refuses a forged or unsigned hello -32004, and the session keeps its hooks', async () => {
    const sessionId = randomUUID()
    expect((await post(clientHello(sessionId, {}, { key: KEY }))).result?.negotiated_version).toBe('0.1.0')
    for (const signature of [FORGED, undefined]) {
      const forged = await post(helloWith(sessionId, signature, { methods_implemented: ['system/ping'] }))
      expect(forged.error?.code, JSON.stringify(forged)).toBe(-32004)
    }
    const step = await post(shellCall(sessionId))
    expect(step.result?.decision, JSON.stringify(step)).toBe('deny')
    expect(step.result?.reasoning).toContain('no shell here')
  })

  it('a forged hello for a session not yet handshaken opens nothing', async () => {
    const sessionId = randomUUID()
    const forged = await post(helloWith(sessionId, FORGED, { methods_implemented: ['system/ping'] }))
    expect(forged.error?.code, JSON.stringify(forged)).toBe(-32004)
    expect((await post(shellCall(sessionId))).error?.code).toBe(-32003)
    expect((await post(clientHello(sessionId, {}, { key: KEY }))).result).toBeDefined()
    expect((await post(shellCall(sessionId))).result?.decision).toBe('deny')
  })

  it('a signed second hello with other terms cannot renegotiate a session; the same terms answer again', async () => {
    const sessionId = randomUUID()
    expect((await post(clientHello(sessionId, {}, { key: KEY }))).result).toBeDefined()
    const narrowed = await post(
      clientHello(sessionId, { methods_implemented: ['system/ping'] }, { key: KEY }),
    )
    expect(narrowed.error?.code, JSON.stringify(narrowed)).toBe(-32000)
    expect(narrowed.error?.data?.reason).toBe('session_already_negotiated')
    expect((await post(clientHello(sessionId, {}, { key: KEY }))).result?.negotiated_version).toBe('0.1.0')
    expect((await post(shellCall(sessionId))).result?.decision).toBe('deny')
  })

  it('a hello without a session id opens no session: requireHandshake holds per session', async () => {
    for (const metadata of [{}, { agent_id: 'agent-1' }] as JsonObject[]) {
      const message = clientHello('unused', {}, { params: { metadata } })
      const anonymous = await post(message)
      expect(anonymous.error?.code, JSON.stringify(anonymous)).toBe(-32602)
      expect(anonymous.error?.message).toMatch(/metadata\.session_id/)
    }
    const never = await post(shellCall(randomUUID()))
    expect(never.error?.code, JSON.stringify(never)).toBe(-32003)
  })

  it('signs a ping answer only for a ping signed under the session key', async () => {
    const sessionId = randomUUID()
    const unsigned = acsRequest('system/ping', { echo: 'chosen by anyone' }, { sessionId })
    const anonymous = await post(unsigned)
    expect(anonymous.result?.payload?.echo).toBe('chosen by anyone')
    expect(anonymous.result?.signature).toBeUndefined()
    const signed = await post(acsRequest('system/ping', { echo: 'mine' }, { sessionId, key: KEY }))
    expect(responseSigned(signed, KEY, sessionId)).toBe(true)
  })
})
