// ACS-Crypto over a real /acs: ECDSA-P256, Ed25519 and ML-DSA-65 negotiated in the handshake
// (the client's signature_algorithms_supported, the ServerHello's selected_signature_algorithm),
// requests signed with the agent's key and verified by the Guardian, answers signed with the
// Guardian's key and verified by the agent; forged signatures refused both ways; keys from
// configuration (env PEM, base64 seed) checked with errors that name the key.

import { randomBytes, randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ASYMMETRIC_ALGORITHMS,
  type AsymmetricAlgorithm,
  acsRequest,
  clientHello,
  generateSigningKeyPair,
  mlDsaPem,
  resolveAcsSettings,
  responseSigned,
  responseVerifies,
  signingKey,
  verifyingKey,
} from '../../src/protocols/acs/index.js'
import { type AcsGuardian, KEY, startAcs } from './helper.js'

const TOOL = { tool: { id: 'send_sms' }, arguments: { to: { value: '+1-555-0100' } } }

/** For each algorithm: the Guardian's pair and the agent's pair. */
const PAIRS = Object.fromEntries(
  ASYMMETRIC_ALGORITHMS.map((algorithm) => [
    algorithm,
    { guardian: generateSigningKeyPair(algorithm), agent: generateSigningKeyPair(algorithm) },
  ]),
) as Record<AsymmetricAlgorithm, Record<'guardian' | 'agent', { privateKey: string; publicKey: string }>>

const id = (who: string, algorithm: string) => `${who}-${algorithm.toLowerCase()}`

let g: AcsGuardian

beforeAll(async () => {
  g = await startAcs({
    hooks: [{ name: 'ok', event: 'tool.pre', handler: { type: 'allow' } }],
    settings: {
      signingKeys: ASYMMETRIC_ALGORITHMS.map((a) =>
        signingKey(id('guardian', a), a, PAIRS[a].guardian.privateKey),
      ),
      agentKeys: ASYMMETRIC_ALGORITHMS.map((a) => verifyingKey(id('agent', a), a, PAIRS[a].agent.publicKey)),
    },
  })
})
afterAll(() => g.close())

describe.each(ASYMMETRIC_ALGORITHMS)('ACS-Crypto with %s', (algorithm) => {
  const agentSigner = () => signingKey(id('agent', algorithm), algorithm, PAIRS[algorithm].agent.privateKey)
  const guardianKey = () =>
    verifyingKey(id('guardian', algorithm), algorithm, PAIRS[algorithm].guardian.publicKey)

  it('negotiates the algorithm, and signs and verifies both ways', async () => {
    const sessionId = randomUUID()
    const hello = await g.post(
      clientHello(
        sessionId,
        { signature_algorithms_supported: [algorithm] },
        { signer: agentSigner(), agentId: id('agent', algorithm) },
      ),
    )
    expect(hello.body.result.selected_signature_algorithm).toBe(algorithm)
    expect(hello.body.result.signature_algorithms_supported).toContain(algorithm)
    expect(hello.body.result.signature.algorithm).toBe(algorithm)
    expect(responseVerifies(hello.body, guardianKey())).toBe(true)

    const answer = await g.post(
      acsRequest('steps/toolCallRequest', TOOL, {
        sessionId,
        signer: agentSigner(),
        agentId: id('agent', algorithm),
      }),
    )
    expect(answer.body.result.decision).toBe('allow')
    expect(answer.body.result.signature).toMatchObject({ algorithm, key_id: id('guardian', algorithm) })
    expect(responseVerifies(answer.body, guardianKey())).toBe(true)
    // Not an HMAC answer: the shared key does not verify it.
    expect(responseSigned(answer.body, KEY, sessionId)).toBe(false)
    // A tampered answer does not verify.
    const tampered = structuredClone(answer.body)
    tampered.result.decision = 'deny'
    expect(responseVerifies(tampered, guardianKey())).toBe(false)
  })

  it('refuses a request signed by another key under the agent key id (-32004)', async () => {
    const sessionId = randomUUID()
    await g.post(
      clientHello(
        sessionId,
        { signature_algorithms_supported: [algorithm] },
        { signer: agentSigner(), agentId: id('agent', algorithm) },
      ),
    )
    const impostor = signingKey(
      id('agent', algorithm),
      algorithm,
      generateSigningKeyPair(algorithm).privateKey,
    )
    const forged = await g.post(
      acsRequest('steps/toolCallRequest', TOOL, {
        sessionId,
        signer: impostor,
        agentId: id('agent', algorithm),
      }),
    )
    expect(forged.body.error.code).toBe(-32004)
    expect(forged.body.error.message).toMatch(new RegExp(`${algorithm} signature does not verify`))
  })

  it("refuses a request signed with one agent's key that claims to be another agent (-32004)", async () => {
    const sessionId = randomUUID()
    const own = { signer: agentSigner(), agentId: id('agent', algorithm) }
    expect((await g.post(clientHello(sessionId, {}, own))).body.result).toBeDefined()
    const claimed = await g.post(
      acsRequest('steps/toolCallRequest', TOOL, { sessionId, signer: agentSigner(), agentId: 'agent-7' }),
    )
    expect(claimed.body.error?.code, JSON.stringify(claimed.body)).toBe(-32004)
    expect(claimed.body.error.message).toContain(`belongs to agent "${id('agent', algorithm)}"`)
    const hello = await g.post(clientHello(randomUUID(), {}, { signer: agentSigner(), agentId: 'agent-7' }))
    expect(hello.body.error?.code).toBe(-32004)
  })
})

describe('ACS-Crypto negotiation', () => {
  it('refuses a session when no algorithm the client verifies is one the Guardian signs with', async () => {
    const sessionId = randomUUID()
    const hello = await g.post(
      clientHello(sessionId, { signature_algorithms_supported: ['RSA-PSS-SHA256'] }, { key: KEY }),
    )
    expect(hello.body.error.code).toBe(-32000)
    expect(hello.body.error.data.reason).toBe('no_common_signature_algorithm')
  })

  it('prefers the Guardian order among the offered algorithms, and HMAC without an offer', async () => {
    const both = await g.post(
      clientHello(randomUUID(), { signature_algorithms_supported: ['HMAC-SHA256', 'Ed25519'] }, { key: KEY }),
    )
    expect(both.body.result.selected_signature_algorithm).toBe('Ed25519')
    const sessionId = randomUUID()
    const plain = await g.post(clientHello(sessionId, {}, { key: KEY }))
    expect(plain.body.result.selected_signature_algorithm).toBe('HMAC-SHA256')
    const answer = await g.post(acsRequest('steps/toolCallRequest', TOOL, { sessionId, key: KEY }))
    expect(responseSigned(answer.body, KEY, sessionId)).toBe(true)
  })

  it('refuses an algorithm whose key id is not an agent key, naming it', async () => {
    const sessionId = randomUUID()
    await g.post(clientHello(sessionId, {}, { key: KEY }))
    const stranger = signingKey('nobody', 'Ed25519', PAIRS.Ed25519.agent.privateKey)
    const answer = await g.post(acsRequest('steps/toolCallRequest', TOOL, { sessionId, signer: stranger }))
    expect(answer.body.error.code).toBe(-32004)
    expect(answer.body.error.message).toMatch(/"nobody" is not an Ed25519 agent key/)
  })
})

describe('ACS-Crypto configuration', () => {
  it('reads keys from the environment (PEM, base64 seed) and names a key of the wrong kind', () => {
    const env = {
      EC_PRIVATE: PAIRS['ECDSA-P256'].guardian.privateKey,
      PQ_SEED: PAIRS['ML-DSA-65'].guardian.privateKey,
    }
    const settings = resolveAcsSettings(
      {
        signingKeys: [
          { id: 'g-pq', algorithm: 'ML-DSA-65', privateKey: 'env:PQ_SEED' },
          { id: 'g-ec', algorithm: 'ECDSA-P256', privateKey: 'env:EC_PRIVATE' },
        ],
        agentKeys: [
          { id: 'a-ed', algorithm: 'Ed25519', publicKey: PAIRS.Ed25519.agent.publicKey, agent: 'agent-7' },
        ],
      },
      undefined,
      env,
    )
    expect(settings.signingKeys.map((k) => k.algorithm)).toEqual(['ML-DSA-65', 'ECDSA-P256'])
    expect(settings.requireSignatures).toBe(true)
    expect(settings.agentKeys[0]?.agent).toBe('agent-7')
    expect(() =>
      resolveAcsSettings(
        { signingKeys: [{ id: 'g-ed', algorithm: 'Ed25519', privateKey: 'env:EC_PRIVATE' }] },
        undefined,
        env,
      ),
    ).toThrow(/acs.signingKeys g-ed: .*not an Ed25519 key/)
    expect(() =>
      resolveAcsSettings(
        { agentKeys: [{ id: 'a-pq', algorithm: 'ML-DSA-65', publicKey: 'c2hvcnQ=' }] },
        undefined,
        env,
      ),
    ).toThrow(/acs.agentKeys a-pq: an ML-DSA-65 public key must be an SPKI PEM .*must be 1952 bytes, not 5/)
  })

  it.each(['seed', 'expanded', 'both'] as const)(
    'takes ML-DSA-65 keys as PKCS#8 PEM (%s) and SPKI PEM, signing and verifying as the base64 seed does',
    (form) => {
      const seed = randomBytes(32)
      const pems = mlDsaPem(seed, form)
      const env = { PQ_PEM: pems.privateKey, PQ_PUB: pems.publicKey, PQ_SEED: seed.toString('base64') }
      const settings = resolveAcsSettings(
        {
          signingKeys: [
            { id: 'pem', algorithm: 'ML-DSA-65', privateKey: 'env:PQ_PEM' },
            { id: 'seed', algorithm: 'ML-DSA-65', privateKey: 'env:PQ_SEED' },
          ],
          agentKeys: [{ id: 'pub', algorithm: 'ML-DSA-65', publicKey: 'env:PQ_PUB' }],
        },
        undefined,
        env,
      )
      const [pem, fromSeed] = settings.signingKeys
      const verifier = settings.agentKeys[0]
      expect(verifier?.verify('hello', pem?.sign('hello') ?? '')).toBe(true)
      expect(verifier?.verify('hello', fromSeed?.sign('hello') ?? '')).toBe(true)
      expect(verifier?.verify('hello!', pem?.sign('hello') ?? '')).toBe(false)
    },
  )

  it("says which ML-DSA-65 forms are taken for another algorithm's PEM or a mismatched pair", () => {
    const edPem = PAIRS.Ed25519.agent.privateKey
    expect(() => signingKey('x', 'ML-DSA-65', edPem)).toThrow(
      /PKCS#8 PEM .*as OpenSSL 3.5 writes.*not an ML-DSA-65 key \(algorithm OID 2.16.840.1.101.3.4.3.18\)/,
    )
    expect(() => verifyingKey('x', 'ML-DSA-65', PAIRS.Ed25519.agent.publicKey)).toThrow(
      /SPKI PEM .*not an ML-DSA-65 key/,
    )
    const one = mlDsaPem(randomBytes(32), 'both').privateKey
    const other = mlDsaPem(randomBytes(32), 'expanded').privateKey
    // A seed stored with another seed's expanded key is refused rather than trusted.
    const seedPart = Buffer.from(one.replace(/-----[^-]+-----|\s/g, ''), 'base64').subarray(0, 60)
    const tampered = Buffer.concat([
      seedPart,
      Buffer.from(other.replace(/-----[^-]+-----|\s/g, ''), 'base64').subarray(60),
    ])
    expect(() =>
      signingKey(
        'x',
        'ML-DSA-65',
        `-----BEGIN PRIVATE KEY-----\n${tampered.toString('base64')}\n-----END PRIVATE KEY-----`,
      ),
    ).toThrow(/ML-DSA-65 private key must be/)
  })
})
