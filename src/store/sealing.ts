// Secret values inside a hook's handler config (Authorization headers, tokens, API keys)
// are sealed before the config is written and opened when it is read back, so the
// database never holds them in clear.

import type { HandlerConfig } from '../core/index.js'
import { StoreError } from './errors.js'
import type { SecretBox } from './types.js'

/** Keys whose string values are treated as secrets, wherever they appear in a handler config. */
const SECRET_KEY =
  /(authorization|password|passwd|secret|token|api[-_]?key|cookie|credential|private[-_]?key)/i

const SEALED = '$sealed'

/** True when a key names a secret value. */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key)
}

/**
 * Replaces every secret value in a handler config by `{ $sealed: "..." }`.
 * @throws StoreError `secrets-unavailable` when there is a secret but no box to seal it.
 */
export function sealConfig(config: HandlerConfig, box: SecretBox | undefined, hook: string): HandlerConfig {
  return walk(config, '', (path, value) => {
    if (!box) {
      throw new StoreError(
        'secrets-unavailable',
        `hook "${hook}": handler${path} looks like a secret and cannot be stored in clear; configure Warden's secret key so it is stored encrypted`,
      )
    }
    return { [SEALED]: box.seal(JSON.stringify(value)) }
  }) as HandlerConfig
}

/**
 * Opens the sealed values of a stored handler config.
 * @throws StoreError `secrets-unavailable` when a value is sealed but no box can open it.
 */
export function openConfig(config: HandlerConfig, box: SecretBox | undefined, hook: string): HandlerConfig {
  return unwalk(config, (sealed) => {
    if (!box) {
      throw new StoreError(
        'secrets-unavailable',
        `hook "${hook}" holds encrypted values; configure Warden's secret key to use it`,
      )
    }
    return JSON.parse(box.open(sealed)) as unknown
  }) as HandlerConfig
}

/**
 * A copy of a handler config with every secret string (as {@link sealConfig} finds them)
 * replaced by what `replace` returns, e.g. a mask for display.
 */
export function mapSecretValues(
  config: unknown,
  replace: (path: string, value: unknown) => unknown,
): unknown {
  return walk(config, '', replace)
}

/**
 * Seals the strings under secret keys. Below a secret key that holds a mapping or a list
 * (`secretHeaders: {X-Signature: ...}`), every string is a secret, whatever its own key.
 */
function walk(
  value: unknown,
  path: string,
  seal: (path: string, value: unknown) => unknown,
  underSecret = false,
): unknown {
  if (underSecret && typeof value === 'string' && value !== '') return seal(path, value)
  if (Array.isArray(value)) return value.map((v, i) => walk(v, `${path}[${i}]`, seal, underSecret))
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) {
    out[key] = walk(inner, `${path}.${key}`, seal, underSecret || isSecretKey(key))
  }
  return out
}

function unwalk(value: unknown, open: (sealed: string) => unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => unwalk(v, open))
  if (typeof value !== 'object' || value === null) return value
  const record = value as Record<string, unknown>
  const keys = Object.keys(record)
  if (keys.length === 1 && keys[0] === SEALED && typeof record[SEALED] === 'string')
    return open(record[SEALED])
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(record)) out[key] = unwalk(inner, open)
  return out
}
