// ML-DSA-65 keys as OpenSSL 3.5 and other tools write them, checked against the example keys
// published in RFC 9881 (draft-ietf-lamps-dilithium-certificates), Appendix C, all from the
// seed 00 01 … 1f: the PKCS#8 private key in its seed [0], expanded-key and both forms, and the
// SPKI public key. The fixtures are the published PEM text; their DER is checked here by hand
// (headers written out byte by byte, not by Warden's own writer), the expanded key in the
// "both" form against the expanded form, and the public key against the one the seed derives.
// Warden is configured as a user would (the key files by file:PATH and the PEM in env:NAME):
// each private form signs what the published public key verifies; other forms are refused
// naming the forms accepted.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js'
import { describe, expect, it } from 'vitest'
import { resolveAcsSettings } from '../../src/protocols/acs/index.js'

const DIR = join(import.meta.dirname, '../fixtures/acs')
const FORMS = ['seed', 'expanded', 'both'] as const
const file = (form: (typeof FORMS)[number]) => join(DIR, `rfc9881-ml-dsa-65-${form}.pem`)
const PUBLIC = join(DIR, 'rfc9881-ml-dsa-65.pub.pem')
const SEED = Buffer.from(Array.from({ length: 32 }, (_, i) => i))

function der(path: string, label: string): Buffer {
  const text = readFileSync(path, 'utf8')
  expect(text.startsWith(`-----BEGIN ${label}-----\n`)).toBe(true)
  return Buffer.from(text.replace(/-----[^-]+-----|\s/g, ''), 'base64')
}

/** id-ml-dsa-65 (2.16.840.1.101.3.4.3.18) as an AlgorithmIdentifier without parameters. */
const ALGORITHM = '300b0609608648016503040312'

describe('RFC 9881 example keys (ML-DSA-65)', () => {
  it('are the published DER: seed [0], expanded key, both, and the SPKI of the seed key', () => {
    // PrivateKeyInfo { version 0, algorithm, privateKey OCTET STRING { seed [0] IMPLICIT } }
    expect(der(file('seed'), 'PRIVATE KEY').toString('hex')).toBe(
      `3034020100${ALGORITHM}04228020${SEED.toString('hex')}`,
    )
    const expanded = der(file('expanded'), 'PRIVATE KEY')
    expect(expanded.subarray(0, 28).toString('hex')).toBe(`30820fd8020100${ALGORITHM}04820fc404820fc0`)
    const both = der(file('both'), 'PRIVATE KEY')
    // ... OCTET STRING { SEQUENCE { OCTET STRING seed, OCTET STRING expandedKey } }
    expect(both.subarray(0, 66).toString('hex')).toBe(
      `30820ffe020100${ALGORITHM}04820fea30820fe60420${SEED.toString('hex')}04820fc0`,
    )
    const expandedKey = expanded.subarray(28)
    expect(expandedKey).toHaveLength(4032)
    expect(both.subarray(66).equals(expandedKey)).toBe(true)
    expect(Buffer.from(ml_dsa65.keygen(SEED).secretKey).equals(expandedKey)).toBe(true)
    const spki = der(PUBLIC, 'PUBLIC KEY')
    expect(spki.subarray(0, 22).toString('hex')).toBe(`308207b2${ALGORITHM}038207a100`)
    expect(Buffer.from(ml_dsa65.keygen(SEED).publicKey).equals(spki.subarray(22))).toBe(true)
  })

  it.each(FORMS)(
    'signs with the %s form configured by file:PATH and by env:NAME, verified by the SPKI',
    (form) => {
      const settings = resolveAcsSettings(
        {
          signingKeys: [
            { id: 'from-file', algorithm: 'ML-DSA-65', privateKey: `file:${file(form)}` },
            { id: 'from-env', algorithm: 'ML-DSA-65', privateKey: 'env:GUARDIAN_PQ_KEY' },
          ],
          agentKeys: [{ id: 'agent-pq', algorithm: 'ML-DSA-65', publicKey: `file:${PUBLIC}` }],
        },
        undefined,
        { GUARDIAN_PQ_KEY: readFileSync(file(form), 'utf8') },
      )
      const verifier = settings.agentKeys[0]
      for (const key of settings.signingKeys) {
        const signature = key.sign('the canonical envelope')
        expect(verifier?.verify('the canonical envelope', signature)).toBe(true)
        expect(verifier?.verify('another envelope', signature)).toBe(false)
      }
    },
  )

  it('refuses other keys naming the forms it accepts', () => {
    const configured =
      (privateKey: string, env: Record<string, string> = {}) =>
      () =>
        resolveAcsSettings({ signingKeys: [{ id: 'g', algorithm: 'ML-DSA-65', privateKey }] }, undefined, env)
    // The ML-DSA-44 key of the same seed (OID ...3.17): the published seed form, one byte apart.
    const seed44 = der(file('seed'), 'PRIVATE KEY')
    seed44[17] = 0x11
    const pem44 = `-----BEGIN PRIVATE KEY-----\n${seed44.toString('base64')}\n-----END PRIVATE KEY-----\n`
    expect(configured('env:K', { K: pem44 })).toThrow(
      /acs.signingKeys g: an ML-DSA-65 private key must be a PKCS#8 PEM \("BEGIN PRIVATE KEY": seed, expanded key or both, as OpenSSL 3.5 writes\), or base64 of the 32-byte seed or the 4032-byte expanded key \(the key is not an ML-DSA-65 key/,
    )
    // An early draft's label and OID, which OpenSSL 3.5 does not write.
    const draft =
      '-----BEGIN ML-DSA-65 PRIVATE KEY-----\nMDECAQAwCgYIYIZIAWUDBBIEIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhsc\nHR4f\n-----END ML-DSA-65 PRIVATE KEY-----\n'
    expect(configured('env:K', { K: draft })).toThrow(/must be a PKCS#8 PEM .*not PEM or base64/)
    expect(configured(`file:${join(DIR, 'missing.pem')}`)).toThrow(
      /acs.signingKeys g: the key file .*missing.pem" cannot be read \(ENOENT\)/,
    )
    expect(configured('plain')).toThrow(/must be a sealed secret .*, env:NAME or file:PATH/)
    expect(() =>
      resolveAcsSettings(
        { agentKeys: [{ id: 'a', algorithm: 'ML-DSA-65', publicKey: `file:${file('seed')}` }] },
        undefined,
        {},
      ),
    ).toThrow(
      /acs.agentKeys a: an ML-DSA-65 public key must be an SPKI PEM \("BEGIN PUBLIC KEY"\), or base64 of the 1952-byte public key/,
    )
  })
})
