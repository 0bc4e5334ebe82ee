// The ACS-Crypto signature algorithms (§10.1) beside the HMAC baseline: ECDSA-P256 and
// Ed25519 from node:crypto, ML-DSA-65 (FIPS 204) from @noble/post-quantum. A signing key
// signs the §10 canonical input (UTF-8) and gives the base64 `value`; a verifying key checks
// one. Key material comes from configuration: PEM (PKCS#8 private, SPKI public) for ECDSA-P256
// and Ed25519; for ML-DSA-65 the base64 32-byte seed (private) and the base64 public key.

import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
  verify,
} from 'node:crypto'
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js'
import { mlDsaPublicKey, mlDsaSecretKey } from './ml-dsa-keys.js'

/** The asymmetric algorithms Warden signs and verifies, by their registry names. */
export const ASYMMETRIC_ALGORITHMS = ['ML-DSA-65', 'Ed25519', 'ECDSA-P256'] as const

/** One of {@link ASYMMETRIC_ALGORITHMS}. */
export type AsymmetricAlgorithm = (typeof ASYMMETRIC_ALGORITHMS)[number]

/** Whether a name is one of the asymmetric algorithms Warden supports. */
export function isAsymmetric(name: unknown): name is AsymmetricAlgorithm {
  return typeof name === 'string' && (ASYMMETRIC_ALGORITHMS as readonly string[]).includes(name)
}

/** A private key that signs canonical inputs. */
export interface SigningKey {
  id: string
  algorithm: AsymmetricAlgorithm
  /** @returns the base64 signature of the input's UTF-8 bytes. */
  sign(input: string): string
}

/** A public key that verifies signatures. */
export interface VerifyingKey {
  id: string
  algorithm: AsymmetricAlgorithm
  /** Whether `value` (base64) is a signature of the input's UTF-8 bytes; never throws. */
  verify(input: string, value: string): boolean
}

/** Size of an ML-DSA-65 key generation seed, in bytes. */
const ML_DSA_SEED_BYTES = 32

function nodeKeyType(algorithm: 'Ed25519' | 'ECDSA-P256'): { type: string; curve?: string } {
  return algorithm === 'Ed25519' ? { type: 'ed25519' } : { type: 'ec', curve: 'prime256v1' }
}

function checkNodeKey(key: KeyObject, algorithm: 'Ed25519' | 'ECDSA-P256', what: string): KeyObject {
  const expected = nodeKeyType(algorithm)
  const curve = key.asymmetricKeyDetails?.namedCurve
  if (key.asymmetricKeyType !== expected.type || (expected.curve && curve !== expected.curve)) {
    throw new Error(
      `${what} is a ${key.asymmetricKeyType ?? 'unknown'}${curve ? ` (${curve})` : ''} key, not an ${algorithm} key`,
    )
  }
  return key
}

/** Signs with node:crypto: Ed25519 as is, ECDSA over SHA-256 with r||s (IEEE P1363). */
function nodeSign(algorithm: 'Ed25519' | 'ECDSA-P256', key: KeyObject, input: string): string {
  const data = Buffer.from(input, 'utf8')
  return algorithm === 'Ed25519'
    ? sign(null, data, key).toString('base64')
    : sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' }).toString('base64')
}

/**
 * A signing key from configuration: PEM PKCS#8 for ECDSA-P256 and Ed25519; for ML-DSA-65
 * PKCS#8 PEM (seed, expanded key or both) or the base64 seed or expanded key.
 * @throws Error naming what is wrong with the material.
 */
export function signingKey(id: string, algorithm: AsymmetricAlgorithm, material: string): SigningKey {
  if (algorithm === 'ML-DSA-65') {
    const secretKey = mlDsaSecretKey(material)
    return {
      id,
      algorithm,
      sign: (input) => Buffer.from(ml_dsa65.sign(Buffer.from(input, 'utf8'), secretKey)).toString('base64'),
    }
  }
  const key = checkNodeKey(createPrivateKey(material), algorithm, `the private key of ${id}`)
  return { id, algorithm, sign: (input) => nodeSign(algorithm, key, input) }
}

/**
 * A verifying key from configuration: PEM SPKI for ECDSA-P256 and Ed25519; for ML-DSA-65
 * SPKI PEM or the base64 public key.
 * @throws Error naming what is wrong with the material.
 */
export function verifyingKey(id: string, algorithm: AsymmetricAlgorithm, material: string): VerifyingKey {
  if (algorithm === 'ML-DSA-65') {
    const publicKey = mlDsaPublicKey(material)
    return {
      id,
      algorithm,
      verify(input, value) {
        try {
          const signature = Buffer.from(value, 'base64')
          if (signature.length !== ml_dsa65.lengths.signature) return false
          return ml_dsa65.verify(signature, Buffer.from(input, 'utf8'), publicKey)
        } catch {
          return false
        }
      },
    }
  }
  const key = checkNodeKey(createPublicKey(material), algorithm, `the public key of ${id}`)
  return {
    id,
    algorithm,
    verify(input, value) {
      try {
        const data = Buffer.from(input, 'utf8')
        const signature = Buffer.from(value, 'base64')
        return algorithm === 'Ed25519'
          ? verify(null, data, key, signature)
          : signature.length === 64 && verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature)
      } catch {
        return false
      }
    },
  }
}

/** A new key pair in the configuration formats of {@link signingKey} and {@link verifyingKey}. */
export function generateSigningKeyPair(algorithm: AsymmetricAlgorithm): {
  privateKey: string
  publicKey: string
} {
  if (algorithm === 'ML-DSA-65') {
    const seed = randomBytes(ML_DSA_SEED_BYTES)
    const { publicKey } = ml_dsa65.keygen(new Uint8Array(seed))
    return { privateKey: seed.toString('base64'), publicKey: Buffer.from(publicKey).toString('base64') }
  }
  const pair =
    algorithm === 'Ed25519'
      ? generateKeyPairSync('ed25519')
      : generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  return {
    privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  }
}
