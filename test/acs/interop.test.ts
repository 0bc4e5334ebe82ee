// Interop with the spec's Go reference implementation (agt-go): its published HMAC and chain
// test values (reference-implementations/agt-go/internal/{envelope,chain}/testdata/
// vectors.json in GenAI-Security-Project/agent-control-standard, themselves computed in
// Python independently of the Go code) reproduced byte for byte: the derived session key,
// the signed inputs of a request and a response, both signatures, request_hash and three
// chain entries, one with a non-ASCII entry_id. The session key is also recomputed with an
// HKDF written here from HMAC alone, and a Warden Guardian verifies the reference request.

import { createHmac } from 'node:crypto'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import type { JsonObject } from '../../src/core/index.js'
import { createEngine } from '../../src/index.js'
import {
  canonicalJson,
  createAcsService,
  deriveSessionKey,
  entryHash,
  hmacMatches,
  hmacSha256,
  jcsWithout,
  resolveAcsSettings,
  responseSigned,
  settingsWith,
  sha256Hex,
  signedInput,
} from '../../src/protocols/acs/index.js'
import { createSecretBox } from '../../src/secrets/index.js'

const IKM = Buffer.from('000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f', 'hex')
const SESSION = '5c3f1b8e-9a0d-4c2e-8f4b-2d6a7e9c1b30'
const SESSION_KEY = '4e86230ba407bc623132e84189722dc2b4ab73f217ff67e0492c82fdf0d66309'
const REQUEST_ID = '8d0b6b0e-4d6b-4f7a-9d1c-1f1c7f0e2a10'

const PARAMS: JsonObject = {
  acs_version: '0.1.0',
  request_id: REQUEST_ID,
  timestamp: '2026-09-19T10:00:00Z',
  metadata: { agent_id: 'agent', session_id: SESSION },
  payload: {
    tool: { name: 'Bash' },
    arguments: { command: { value: 'echo rm -rf /' } },
    raw_command: 'echo rm -rf /',
  },
}
const PARAMS_CANONICAL =
  '{"acs_version":"0.1.0","metadata":{"agent_id":"agent","session_id":"5c3f1b8e-9a0d-4c2e-8f4b-2d6a7e9c1b30"},"payload":{"arguments":{"command":{"value":"echo rm -rf /"}},"raw_command":"echo rm -rf /","tool":{"name":"Bash"}},"request_id":"8d0b6b0e-4d6b-4f7a-9d1c-1f1c7f0e2a10","timestamp":"2026-09-19T10:00:00Z"}'
const REQUEST_SIGNATURE = 'yJ3BXf/Hfc3jSnSMgOoNVGQ+5LKBKakvctDwE52lrM0='
const REQUEST_INPUT = `{"id":"${REQUEST_ID}","jsonrpc":"2.0","method":"steps/toolCallRequest","params":${PARAMS_CANONICAL}}`

const RESULT: JsonObject = {
  type: 'final',
  acs_version: '0.1.0',
  request_id: REQUEST_ID,
  decision: 'deny',
  reasoning: 'blocked',
  reason_codes: ['destructive_shell_command_blocked'],
  chain_hash: '14e6d50a913e8295606bc0d86ee9cde870040e0e0a319b13ae15836128d0d111',
}
const RESPONSE_SIGNATURE = 'Shh4i+RWlfCNfAoFlE7gp5QUoyCI8jz3HMKHzH/2gG0='
const RESPONSE_INPUT = `{"id":"${REQUEST_ID}","jsonrpc":"2.0","result":{"acs_version":"0.1.0","chain_hash":"14e6d50a913e8295606bc0d86ee9cde870040e0e0a319b13ae15836128d0d111","decision":"deny","reason_codes":["destructive_shell_command_blocked"],"reasoning":"blocked","request_id":"${REQUEST_ID}","type":"final"}}`

const REQUEST_HASH = '1f73e15e340da6bc294e18e38557aef0241921fd3985c94266e1b7416c743058'

const CHAIN: { entry: JsonObject; previous: string | null; canonical: string; hash: string }[] = [
  {
    entry: {
      entry_id: '1',
      step_id: '0b2f6f7e-0c1d-4e5f-8a9b-1c2d3e4f5a60',
      step_type: 'steps/sessionStart',
      timestamp: '2026-09-19T10:00:00Z',
    },
    previous: null,
    canonical:
      '{"entry_id":"1","step_id":"0b2f6f7e-0c1d-4e5f-8a9b-1c2d3e4f5a60","step_type":"steps/sessionStart","timestamp":"2026-09-19T10:00:00Z"}',
    hash: '1552a42d04ec72f9c18945400488e3f50fba5b3256537db01b705eea66e30373',
  },
  {
    entry: {
      entry_id: '2',
      step_id: REQUEST_ID,
      step_type: 'steps/toolCallRequest',
      request_hash: REQUEST_HASH,
      timestamp: '2026-09-19T10:00:01Z',
      provenance_summary: {
        origins_seen: ['user_input', 'tool_output'],
        entry_count: 2,
        entry_count_by_origin: { user_input: 1, tool_output: 1 },
      },
    },
    previous: '1552a42d04ec72f9c18945400488e3f50fba5b3256537db01b705eea66e30373',
    canonical: `{"entry_id":"2","provenance_summary":{"entry_count":2,"entry_count_by_origin":{"tool_output":1,"user_input":1},"origins_seen":["user_input","tool_output"]},"request_hash":"${REQUEST_HASH}","step_id":"${REQUEST_ID}","step_type":"steps/toolCallRequest","timestamp":"2026-09-19T10:00:01Z"}`,
    hash: '14e6d50a913e8295606bc0d86ee9cde870040e0e0a319b13ae15836128d0d111',
  },
  {
    entry: {
      entry_id: '\u00e9-3',
      step_id: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
      step_type: 'steps/toolCallResult',
      timestamp: '2026-09-19T10:00:02Z',
    },
    previous: '14e6d50a913e8295606bc0d86ee9cde870040e0e0a319b13ae15836128d0d111',
    canonical:
      '{"entry_id":"\u00e9-3","step_id":"c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f","step_type":"steps/toolCallResult","timestamp":"2026-09-19T10:00:02Z"}',
    hash: '86e28e694a7e762f205dc0739e4764d9cb32ff2c2c03a56ca88ecbbe0f505229',
  },
]

/** RFC 5869 HKDF-SHA256 from HMAC alone (extract, then expand), independent of hkdfSync. */
function manualHkdf(ikm: Buffer, salt: Buffer, info: Buffer, length: number): Buffer {
  const prk = createHmac('sha256', salt.length > 0 ? salt : Buffer.alloc(32))
    .update(ikm)
    .digest()
  const blocks: Buffer[] = []
  let previous = Buffer.alloc(0)
  for (let i = 1; Buffer.concat(blocks).length < length; i++) {
    previous = createHmac('sha256', prk)
      .update(Buffer.concat([previous, info, Buffer.from([i])]))
      .digest()
    blocks.push(previous)
  }
  return Buffer.concat(blocks).subarray(0, length)
}

function request(): JsonObject {
  return {
    jsonrpc: '2.0',
    method: 'steps/toolCallRequest',
    id: REQUEST_ID,
    params: { ...PARAMS, signature: { algorithm: 'HMAC-SHA256', value: REQUEST_SIGNATURE, key_id: 'k1' } },
  }
}

describe('interop with the ACS reference implementation (agt-go test values)', () => {
  it('derives the reference session key: HKDF-SHA256, empty salt, info = session id', () => {
    const key = deriveSessionKey(IKM, SESSION)
    expect(key.toString('hex')).toBe(SESSION_KEY)
    expect(manualHkdf(IKM, Buffer.alloc(0), Buffer.from(SESSION, 'utf8'), 32).toString('hex')).toBe(
      SESSION_KEY,
    )
    // Warden's earlier derivation stays available, and is a different key.
    const salted = deriveSessionKey(IKM, SESSION, 'session-salt')
    expect(salted.toString('hex')).not.toBe(SESSION_KEY)
    expect(salted).toEqual(
      manualHkdf(IKM, Buffer.from(SESSION, 'utf8'), Buffer.from('acs/v0.1 HMAC-SHA256 session key'), 32),
    )
  })

  it('builds the signed inputs and signatures of the reference request and response byte for byte', () => {
    const key = deriveSessionKey(IKM, SESSION)
    expect(signedInput(request(), 'params')).toBe(REQUEST_INPUT)
    expect(hmacSha256(key, REQUEST_INPUT).toString('base64')).toBe(REQUEST_SIGNATURE)
    const response: JsonObject = {
      jsonrpc: '2.0',
      id: REQUEST_ID,
      result: { ...RESULT, signature: { algorithm: 'HMAC-SHA256', value: RESPONSE_SIGNATURE, key_id: 'k1' } },
    }
    expect(signedInput(response, 'result')).toBe(RESPONSE_INPUT)
    expect(hmacSha256(key, RESPONSE_INPUT).toString('base64')).toBe(RESPONSE_SIGNATURE)
    expect(responseSigned(response, { id: 'k1', material: IKM }, SESSION)).toBe(true)
  })

  it('computes the reference request_hash and chain entries, a non-ASCII entry_id included', () => {
    expect(canonicalJson(PARAMS)).toBe(PARAMS_CANONICAL)
    expect(sha256Hex(jcsWithout(request().params as JsonObject, 'signature'))).toBe(REQUEST_HASH)
    for (const { entry, previous, canonical, hash } of CHAIN) {
      expect(
        jcsWithout({ ...entry, previous_hash: previous, entry_hash: 'x' }, 'entry_hash', 'previous_hash'),
      ).toBe(canonical)
      expect(entryHash(entry, previous)).toBe(hash)
    }
    expect(Buffer.byteLength(CHAIN[2]?.canonical ?? '', 'utf8')).toBe((CHAIN[2]?.canonical.length ?? 0) + 1)
  })

  it('a Warden Guardian verifies the reference request and answers with a signature the reference key verifies', async () => {
    const engine = createEngine({ hooks: [] })
    const service = createAcsService({
      engine,
      settings: settingsWith({ keys: [{ id: 'k1', material: IKM }], requireHandshake: false }),
      now: () => Date.parse('2026-09-19T10:00:30Z'),
    })
    const reply = (await service.handle(request())) as JsonObject
    expect(reply.error, JSON.stringify(reply)).toBeUndefined()
    expect((reply.result as JsonObject).decision).toBe('allow')
    expect(responseSigned(reply, { id: 'k1', material: IKM }, SESSION)).toBe(true)
    const altered = structuredClone(request())
    ;((altered.params as JsonObject).payload as JsonObject).raw_command = 'rm -rf /'
    const refused = (await service.handle(altered)) as { error?: { code: number } }
    expect(refused.error?.code).toBe(-32004)
    await engine.close()
  })
})

describe('interop with agt-go configured as a user would (its raw 32-byte key 00 01 … 1f)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'warden-acs-keys-'))
  writeFileSync(join(dir, 'agt.key'), IKM)
  writeFileSync(join(dir, 'agt.hex'), `hex:${IKM.toString('hex')}\n`)
  const box = createSecretBox({ key: Buffer.alloc(32, 9) })
  const env = {
    AGT_HEX: `hex:${IKM.toString('hex')}`,
    AGT_B64: `base64:${IKM.toString('base64')}`,
    AGT_SEALED: box.seal(IKM),
  }
  const forms: [string, string][] = [
    ['env: hex:', 'env:AGT_HEX'],
    ['env: base64:', 'env:AGT_B64'],
    ['a binary sealed secret (bytes 0x00 and >= 0x80)', box.seal(IKM)],
    ['a sealed base64: value', box.seal(`base64:${IKM.toString('base64')}`)],
    ['a raw key file', `file:${join(dir, 'agt.key')}`],
    ['a hex: key file', `file:${join(dir, 'agt.hex')}`],
  ]

  it.each(forms)(
    'from %s: verifies the reference request and answers under the reference session key',
    async (_form, secret) => {
      const yaml = `acs:\n  requireHandshake: false\n  keys:\n    - id: k1\n      secret: ${JSON.stringify(secret)}\n`
      const settings = resolveAcsSettings(parseYaml(yaml).acs, box, env)
      expect(Buffer.from(settings.keys[0]?.material ?? []).equals(IKM)).toBe(true)
      const engine = createEngine({ hooks: [] })
      const service = createAcsService({ engine, settings, now: () => Date.parse('2026-09-19T10:00:30Z') })
      const reply = (await service.handle(request())) as JsonObject
      expect(reply.error, JSON.stringify(reply)).toBeUndefined()
      const signature = (reply.result as JsonObject).signature as JsonObject
      expect(
        hmacMatches(Buffer.from(SESSION_KEY, 'hex'), signedInput(reply, 'result'), String(signature.value)),
      ).toBe(true)
      await engine.close()
    },
  )

  it('names the field and the forms accepted for a malformed key, never the key', () => {
    const bad = (secret: string, envValue?: string) => () =>
      resolveAcsSettings({ keys: [{ id: 'k1', secret }] }, box, { ...env, BAD: envValue })
    expect(bad('env:BAD', 'hex:abc')).toThrow(/acs.keys k1: a hex: key must be an even number of hex digits/)
    expect(bad('env:BAD', 'base64:***')).toThrow(/acs.keys k1: a base64: key must be standard base64/)
    expect(bad(`file:${join(dir, 'missing.key')}`)).toThrow(
      /acs.keys k1: the key file .* cannot be read \(ENOENT\)/,
    )
    expect(bad('plain-text-secret')).toThrow(/env:NAME, a sealed secret \(wsec:v1:…\) or file:PATH/)
  })
})
