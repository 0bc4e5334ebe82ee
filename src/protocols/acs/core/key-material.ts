// Shared key material as a peer hands it over: the raw bytes agt-go and most key tools
// produce, as well as text. A value comes from the environment (env:NAME), a sealed secret
// (wsec:v1:…, opened as the bytes sealed) or a key file (file:PATH, read as bytes); its
// content is `hex:…` or `base64:…` (decoded), else taken byte for byte. Errors name the
// field and the forms accepted, never the material.

import { readFileSync, statSync } from 'node:fs'
import { WardenError } from '../../../core/index.js'

/** Opens sealed values (the secret store's box): as text, and as bytes where it can. */
export interface SecretOpener {
  open(sealed: string): string
  openBytes?(sealed: string): Uint8Array
}

/** The forms a key's `secret` takes, for error messages. */
export const KEY_FORMS =
  'env:NAME, a sealed secret (wsec:v1:…) or file:PATH, holding the key as hex:…, base64:… or its raw bytes'

/** Largest key file read, in bytes. */
const MAX_KEY_FILE = 64 * 1024

const HEX = /^(?:[0-9a-fA-F]{2})+$/
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/

function invalid(where: string, message: string): WardenError {
  return new WardenError('invalid-config', `${where}: ${message}`)
}

/** Decodes `hex:` and `base64:` contents; anything else is the key's bytes as they are. */
export function decodeKey(where: string, bytes: Uint8Array): Buffer {
  const head = Buffer.from(bytes.subarray(0, 7)).toString('latin1').toLowerCase()
  if (!head.startsWith('hex:') && !head.startsWith('base64:')) return Buffer.from(bytes)
  const text = Buffer.from(bytes).toString('latin1').trim()
  if (head.startsWith('hex:')) {
    const hex = text.slice(4).replace(/\s+/g, '')
    if (!HEX.test(hex)) throw invalid(where, 'a hex: key must be an even number of hex digits (0-9, a-f)')
    return Buffer.from(hex, 'hex')
  }
  const base64 = text.slice(7).replace(/\s+/g, '')
  if (base64.length === 0 || !BASE64.test(base64))
    throw invalid(where, 'a base64: key must be standard base64 (A-Z a-z 0-9 + /, = padding)')
  return Buffer.from(base64, 'base64')
}

/**
 * The bytes of a key given as env:NAME, a sealed secret or file:PATH.
 * @throws WardenError `invalid-config` naming the field and what to do.
 */
export function keyBytes(
  where: string,
  value: string,
  secrets: SecretOpener | undefined,
  env: Record<string, string | undefined>,
): Buffer {
  let raw: Uint8Array
  if (value.startsWith('env:')) {
    const found = env[value.slice(4)]
    if (!found) throw invalid(where, `the environment variable ${value.slice(4)} is not set`)
    raw = Buffer.from(found, 'utf8')
  } else if (value.startsWith('wsec:v1:')) {
    if (!secrets) throw invalid(where, 'a sealed secret needs the secret key (WARDEN_SECRET_KEY)')
    raw = secrets.openBytes ? secrets.openBytes(value) : Buffer.from(secrets.open(value), 'utf8')
  } else if (value.startsWith('file:')) {
    raw = readKeyFile(where, value.slice(5))
  } else {
    throw invalid(where, `the key must be ${KEY_FORMS}`)
  }
  const key = decodeKey(where, raw)
  if (key.length === 0) throw invalid(where, 'the key is empty')
  return key
}

/**
 * The bytes of a key file (at most 64 KiB).
 * @throws WardenError `invalid-config` naming the field and why the file cannot be read.
 */
export function readKeyFile(where: string, path: string): Buffer {
  try {
    const size = statSync(path).size
    if (size > MAX_KEY_FILE) throw invalid(where, `the key file is ${size} bytes, over ${MAX_KEY_FILE}`)
    return readFileSync(path)
  } catch (error) {
    if (error instanceof WardenError) throw error
    const code = (error as { code?: string }).code ?? 'unreadable'
    throw invalid(where, `the key file ${JSON.stringify(path).slice(0, 200)} cannot be read (${code})`)
  }
}
