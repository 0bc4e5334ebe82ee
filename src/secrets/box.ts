// The secret box: AES-256-GCM encryption of secret values (secret headers, API keys in
// hook config, full error texts in the audit store). The key comes from WARDEN_SECRET_KEY
// (32 bytes as 64 hex digits or base64) or from a key file created on first start with
// mode 0600. Sealed values read `wsec:v1:<base64url of iv | ciphertext | tag>`; errors
// never contain a secret or a sealed value.

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

/** Prefix of every sealed value. */
export const SEALED_PREFIX = 'wsec:v1:'
/** Where the key file lives unless configured otherwise. */
export const DEFAULT_KEY_FILE = '.warden/secret.key'
/** The environment variable holding the key. */
export const SECRET_KEY_ENV = 'WARDEN_SECRET_KEY'

const IV_BYTES = 12
const TAG_BYTES = 16
const KEY_BYTES = 32

/** Seals and opens secret values with one key. */
export interface SecretBox {
  /** Encrypts a value (text as UTF-8, or bytes); each call uses a fresh IV, so equal values seal differently. */
  seal(plain: string | Uint8Array): string
  /**
   * Decrypts a sealed value as UTF-8 text.
   * @throws SecretError `not-sealed` or `wrong-key`, never echoing the value.
   */
  open(sealed: string): string
  /**
   * Decrypts a sealed value as the bytes sealed (binary keys: any byte, 0x00 and ≥ 0x80 too).
   * @throws SecretError `not-sealed` or `wrong-key`, never echoing the value.
   */
  openBytes(sealed: string): Buffer
  /** Where the key came from: `env` or the key file's path. */
  readonly keySource: string
}

/** Why a secret operation failed. */
export type SecretErrorCode = 'invalid-key' | 'key-file' | 'not-sealed' | 'wrong-key'

/** A secret operation that failed; the message never contains secret material. */
export class SecretError extends Error {
  override readonly name = 'SecretError'
  constructor(
    readonly code: SecretErrorCode,
    message: string,
  ) {
    super(message)
  }
}

/** Options of {@link createSecretBox}. */
export interface SecretBoxOptions {
  /** The environment to read WARDEN_SECRET_KEY from (default process.env). */
  env?: NodeJS.ProcessEnv
  /** The key file used when the variable is unset (default `.warden/secret.key`). */
  keyFile?: string
  /** A raw 32-byte key (embedders and tests). Wins over env and file. */
  key?: Uint8Array
}

/** Whether a value is in sealed form. */
export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(SEALED_PREFIX)
}

/**
 * Reads a key written as 64 hex digits or as base64 / base64url of 32 bytes.
 * @throws SecretError `invalid-key` saying which format is expected.
 */
export function parseKey(text: string, source: string): Uint8Array {
  const value = text.trim()
  let bytes: Buffer | undefined
  if (/^[0-9a-fA-F]{64}$/.test(value)) bytes = Buffer.from(value, 'hex')
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) bytes = Buffer.from(value, 'base64')
  if (!bytes || bytes.length !== KEY_BYTES) {
    throw new SecretError(
      'invalid-key',
      `${source} must hold a 32-byte key as 64 hex digits or base64 (e.g. the output of "openssl rand -base64 32")`,
    )
  }
  return new Uint8Array(bytes)
}

/**
 * Reads the key file, or creates it (mode 0600, folder 0700) when it does not exist.
 * @throws SecretError `key-file` when it cannot be read or created, or others can read it.
 */
export function loadOrCreateKeyFile(path: string): Uint8Array {
  try {
    const mode = statSync(path).mode
    if ((mode & 0o077) !== 0) {
      throw new SecretError(
        'key-file',
        `key file ${path} can be read by other users (mode ${(mode & 0o777).toString(8)}); run "chmod 600 ${path}"`,
      )
    }
    return parseKey(readFileSync(path, 'utf8'), `key file ${path}`)
  } catch (error) {
    if (error instanceof SecretError) throw error
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new SecretError(
        'key-file',
        `cannot read key file ${path}: ${(error as NodeJS.ErrnoException).code}`,
      )
    }
  }
  const key = randomBytes(KEY_BYTES)
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' })
    chmodSync(path, 0o600)
  } catch (error) {
    // Another process created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateKeyFile(path)
    throw new SecretError(
      'key-file',
      `cannot create key file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}; set ${SECRET_KEY_ENV} or choose another key file`,
    )
  }
  return new Uint8Array(key)
}

/**
 * Creates a secret box. The key is WARDEN_SECRET_KEY when set, else the key file (created
 * on first use).
 * @throws SecretError when the key is malformed or the key file unusable.
 */
export function createSecretBox(options: SecretBoxOptions = {}): SecretBox {
  const env = options.env ?? process.env
  let key: Uint8Array
  let keySource: string
  if (options.key) {
    if (options.key.length !== KEY_BYTES) throw new SecretError('invalid-key', 'the key must be 32 bytes')
    key = options.key
    keySource = 'option'
  } else if (env[SECRET_KEY_ENV]) {
    key = parseKey(env[SECRET_KEY_ENV] as string, SECRET_KEY_ENV)
    keySource = 'env'
  } else {
    const path = options.keyFile ?? DEFAULT_KEY_FILE
    key = loadOrCreateKeyFile(path)
    keySource = path
  }
  const openBytes = (sealed: string): Buffer => {
    if (!isSealed(sealed)) {
      throw new SecretError(
        'not-sealed',
        `the value is not a sealed secret (sealed values start with "${SEALED_PREFIX}")`,
      )
    }
    const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), 'base64url')
    if (raw.length < IV_BYTES + TAG_BYTES)
      throw new SecretError('not-sealed', 'the sealed value is truncated')
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES))
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES))
    try {
      return Buffer.concat([
        decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
        decipher.final(),
      ])
    } catch {
      throw new SecretError(
        'wrong-key',
        `a sealed secret could not be opened: it was sealed with another key or altered (key from ${keySource === 'env' ? SECRET_KEY_ENV : keySource})`,
      )
    }
  }
  return {
    keySource,
    seal(plain) {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const bytes = typeof plain === 'string' ? Buffer.from(plain, 'utf8') : plain
      const data = Buffer.concat([cipher.update(bytes), cipher.final()])
      return SEALED_PREFIX + Buffer.concat([iv, data, cipher.getAuthTag()]).toString('base64url')
    },
    open: (sealed) => openBytes(sealed).toString('utf8'),
    openBytes,
  }
}
