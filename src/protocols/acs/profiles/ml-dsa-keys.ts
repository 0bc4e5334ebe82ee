// ML-DSA-65 keys in the forms tools write them (RFC 9881, as OpenSSL 3.5 does): PKCS#8 PEM
// private keys holding the 32-byte seed, the 4032-byte expanded key, or both; SPKI PEM public
// keys; and the bare base64 seed, expanded key or public key. Parsed with a small DER reader
// (Node's crypto cannot read ML-DSA keys before Node 24); errors say which forms are taken.

import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js'

/** id-ml-dsa-65, 2.16.840.1.101.3.4.3.18, as DER content bytes. */
const ML_DSA_65_OID = Buffer.from('608648016503040312', 'hex')
const SEED_BYTES = 32
const EXPANDED_BYTES = ml_dsa65.lengths.secretKey ?? 4032
const PUBLIC_BYTES = ml_dsa65.lengths.publicKey ?? 1952

/** The private key forms accepted, for error messages. */
export const ML_DSA_PRIVATE_FORMS =
  'a PKCS#8 PEM ("BEGIN PRIVATE KEY": seed, expanded key or both, as OpenSSL 3.5 writes), or base64 of the 32-byte seed or the 4032-byte expanded key'
/** The public key forms accepted, for error messages. */
export const ML_DSA_PUBLIC_FORMS = 'an SPKI PEM ("BEGIN PUBLIC KEY"), or base64 of the 1952-byte public key'

interface Tlv {
  tag: number
  content: Buffer
  /** Offset just past this element. */
  end: number
}

/** Reads one DER element at `offset`. */
function tlv(der: Buffer, offset: number): Tlv {
  const tag = der[offset]
  let length = der[offset + 1]
  if (tag === undefined || length === undefined) throw new Error('truncated DER')
  let start = offset + 2
  if (length & 0x80) {
    const count = length & 0x7f
    if (count === 0 || count > 3) throw new Error('unsupported DER length')
    length = 0
    for (let i = 0; i < count; i++) length = (length << 8) | (der[start + i] ?? 0)
    start += count
  }
  const end = start + length
  if (end > der.length) throw new Error('truncated DER')
  return { tag, content: der.subarray(start, end), end }
}

/** The elements of a SEQUENCE's content. */
function children(content: Buffer): Tlv[] {
  const out: Tlv[] = []
  for (let offset = 0; offset < content.length; ) {
    const element = tlv(content, offset)
    out.push(element)
    offset = element.end
  }
  return out
}

function pemBody(text: string, label: string): Buffer | undefined {
  const match = new RegExp(`-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]+)-----END ${label}-----`).exec(text)
  return match?.[1] ? Buffer.from(match[1].replace(/\s+/g, ''), 'base64') : undefined
}

/** Checks an AlgorithmIdentifier is id-ml-dsa-65 (no parameters). */
function checkAlgorithm(identifier: Tlv | undefined): void {
  const oid = identifier && identifier.tag === 0x30 ? children(identifier.content)[0] : undefined
  if (oid?.tag !== 0x06 || !oid.content.equals(ML_DSA_65_OID))
    throw new Error('the key is not an ML-DSA-65 key (algorithm OID 2.16.840.1.101.3.4.3.18)')
}

/** The expanded secret key from the ML-DSA-PrivateKey CHOICE (RFC 9881). */
function privateFromChoice(inner: Buffer): Uint8Array {
  const choice = tlv(inner, 0)
  if (choice.tag === 0x80 && choice.content.length === SEED_BYTES)
    return ml_dsa65.keygen(choice.content).secretKey
  if (choice.tag === 0x04 && choice.content.length === SEED_BYTES)
    return ml_dsa65.keygen(choice.content).secretKey
  if (choice.tag === 0x04 && choice.content.length === EXPANDED_BYTES) return new Uint8Array(choice.content)
  if (choice.tag === 0x30) {
    const [seed, expanded] = children(choice.content)
    if (seed?.tag !== 0x04 || seed.content.length !== SEED_BYTES || expanded?.tag !== 0x04)
      throw new Error('the seed-and-expanded-key form must hold a 32-byte seed and the expanded key')
    const derived = ml_dsa65.keygen(seed.content).secretKey
    if (!Buffer.from(derived).equals(expanded.content))
      throw new Error('the expanded key does not match the seed it is stored with')
    return derived
  }
  throw new Error('the PKCS#8 private key is none of seed, expanded key, or both')
}

/**
 * The 4032-byte ML-DSA-65 secret key from configuration.
 * @throws Error naming the forms accepted.
 */
export function mlDsaSecretKey(material: string): Uint8Array {
  try {
    const der = pemBody(material, 'PRIVATE KEY')
    if (der) {
      const [version, algorithm, key] = children(tlv(der, 0).content)
      if (version?.tag !== 0x02 || key?.tag !== 0x04) throw new Error('not a PKCS#8 PrivateKeyInfo')
      checkAlgorithm(algorithm)
      return privateFromChoice(key.content)
    }
    const bytes = base64(material)
    if (bytes?.length === SEED_BYTES) return ml_dsa65.keygen(bytes).secretKey
    if (bytes?.length === EXPANDED_BYTES) return new Uint8Array(bytes)
    throw new Error(
      bytes ? `${bytes.length} bytes is neither a seed nor an expanded key` : 'not PEM or base64',
    )
  } catch (error) {
    throw new Error(`an ML-DSA-65 private key must be ${ML_DSA_PRIVATE_FORMS} (${(error as Error).message})`)
  }
}

/**
 * The 1952-byte ML-DSA-65 public key from configuration.
 * @throws Error naming the forms accepted.
 */
export function mlDsaPublicKey(material: string): Uint8Array {
  try {
    const der = pemBody(material, 'PUBLIC KEY')
    if (der) {
      const [algorithm, bits] = children(tlv(der, 0).content)
      checkAlgorithm(algorithm)
      if (bits?.tag !== 0x03 || bits.content[0] !== 0 || bits.content.length - 1 !== PUBLIC_BYTES)
        throw new Error(`the SPKI must hold a ${PUBLIC_BYTES}-byte public key`)
      return new Uint8Array(bits.content.subarray(1))
    }
    const bytes = base64(material)
    if (bytes?.length === PUBLIC_BYTES) return new Uint8Array(bytes)
    throw new Error(bytes ? `must be ${PUBLIC_BYTES} bytes, not ${bytes.length}` : 'not PEM or base64')
  } catch (error) {
    throw new Error(`an ML-DSA-65 public key must be ${ML_DSA_PUBLIC_FORMS} (${(error as Error).message})`)
  }
}

function base64(text: string): Buffer | undefined {
  const trimmed = text.trim()
  return /^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) ? Buffer.from(trimmed, 'base64') : undefined
}

/** DER of a length. */
function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length])
  const bytes: number[] = []
  for (let n = length; n > 0; n >>= 8) bytes.unshift(n & 0xff)
  return Buffer.from([0x80 | bytes.length, ...bytes])
}

function der(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), derLength(content.length), content])
}

function pem(label: string, body: Buffer): string {
  const lines = body.toString('base64').match(/.{1,64}/g) ?? []
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`
}

/** PEM forms of an ML-DSA-65 key pair from its seed, as OpenSSL 3.5 writes them (for tools and tests). */
export function mlDsaPem(
  seed: Uint8Array,
  form: 'seed' | 'expanded' | 'both' = 'both',
): {
  privateKey: string
  publicKey: string
} {
  const { secretKey, publicKey } = ml_dsa65.keygen(seed)
  const algorithm = der(0x30, der(0x06, ML_DSA_65_OID))
  const choice =
    form === 'seed'
      ? der(0x80, Buffer.from(seed))
      : form === 'expanded'
        ? der(0x04, Buffer.from(secretKey))
        : der(0x30, Buffer.concat([der(0x04, Buffer.from(seed)), der(0x04, Buffer.from(secretKey))]))
  const privateInfo = der(0x30, Buffer.concat([der(0x02, Buffer.from([0])), algorithm, der(0x04, choice)]))
  const spki = der(
    0x30,
    Buffer.concat([algorithm, der(0x03, Buffer.concat([Buffer.from([0]), Buffer.from(publicKey)]))]),
  )
  return { privateKey: pem('PRIVATE KEY', privateInfo), publicKey: pem('PUBLIC KEY', spki) }
}
