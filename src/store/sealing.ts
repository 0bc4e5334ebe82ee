// Secret values inside a hook's handler config (Authorization headers, tokens, API keys,
// and URLs that carry credentials or a query, such as `https://x.example/h?api_key=...`)
// are sealed before the config is written and opened when it is read back, so the
// database never holds them in clear. URLs are shown with their credentials and query
// values masked (`https://***@x.example/h?api_key=***`).

import type { HandlerConfig } from '../core/index.js'
import { StoreError } from './errors.js'
import type { SecretBox } from './types.js'

/** Keys whose string values are treated as secrets, wherever they appear in a handler config. */
const SECRET_KEY =
  /(authorization|password|passwd|secret|token|api[-_]?key|cookie|credential|private[-_]?key)/i

/** Keys whose string values are URLs (`url`, `baseUrl`, `webhookUri`, ...). */
const URL_KEY = /ur[il]$/i

const SEALED = '$sealed'

/** True when a key names a secret value. */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key)
}

/** What kind of secret a value found by {@link mapSecretValues} is. */
export type SecretKind = 'secret' | 'url'

/** True when a URL carries something secret: a user name, a password or a query. */
export function urlCarriesSecret(text: string): boolean {
  if (!text.includes('@') && !text.includes('?')) return false
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return false
  }
  return url.username !== '' || url.password !== '' || url.search.length > 1
}

/**
 * A URL as it may be shown: credentials as `***`, each query value as `***` (names kept),
 * the fragment dropped. A text that is not a URL is masked whole.
 */
export function maskUrl(text: string): string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return '********'
  }
  const userinfo = url.username || url.password ? '***@' : ''
  const query =
    url.search.length > 1
      ? `?${url.search
          .slice(1)
          .split('&')
          .map((part) => {
            const at = part.indexOf('=')
            return at < 0 ? '***' : `${part.slice(0, at)}=***`
          })
          .join('&')}`
      : ''
  return `${url.protocol}//${userinfo}${url.host}${url.pathname}${query}`
}

/**
 * Replaces every secret value in a handler config by `{ $sealed: "..." }`.
 * @throws StoreError `secrets-unavailable` when there is a secret but no box to seal it.
 */
export function sealConfig(config: HandlerConfig, box: SecretBox | undefined, hook: string): HandlerConfig {
  return walk(config, '', (path, value, kind) => {
    if (!box) {
      const what = kind === 'url' ? 'is a URL with credentials or a query, which' : 'looks like a secret and'
      throw new StoreError(
        'secrets-unavailable',
        `hook "${hook}": handler${path} ${what} cannot be stored in clear; configure Warden's secret key so it is stored encrypted`,
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
  replace: (path: string, value: unknown, kind: SecretKind) => unknown,
): unknown {
  return walk(config, '', replace)
}

/**
 * Seals the strings under secret keys, and URLs with credentials or a query under URL keys.
 * Below a secret key that holds a mapping or a list (`secretHeaders: {X-Signature: ...}`),
 * every string is a secret, whatever its own key.
 */
function walk(
  value: unknown,
  path: string,
  seal: (path: string, value: unknown, kind: SecretKind) => unknown,
  under: SecretKind | undefined = undefined,
): unknown {
  if (under === 'secret' && typeof value === 'string' && value !== '') return seal(path, value, 'secret')
  if (under === 'url' && typeof value === 'string' && urlCarriesSecret(value)) return seal(path, value, 'url')
  if (Array.isArray(value)) return value.map((v, i) => walk(v, `${path}[${i}]`, seal, under))
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) {
    const kind = under === 'secret' || isSecretKey(key) ? 'secret' : URL_KEY.test(key) ? 'url' : undefined
    out[key] = walk(inner, `${path}.${key}`, seal, kind)
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
