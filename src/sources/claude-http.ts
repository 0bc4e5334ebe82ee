// Claude Code `type: "http"` hooks from a settings file as Warden http hooks: the hook input
// is POSTed to `url` and the JSON answer read as command-hook output. Header values may
// name environment variables (`$TOKEN`, `${TOKEN}`) listed in `allowedEnvVars`; those are
// filled in at load time and kept as secret headers (sealed, never listed in clear), and
// variables not listed become empty, as in Claude Code.

import type { HandlerConfig } from '../core/index.js'
import { isRecord } from './hook-files-report.js'

/** Fields of an http hook entry besides the common ones. */
export const HTTP_ENTRY_FIELDS = ['url', 'headers', 'allowedEnvVars'] as const

/**
 * The Warden http handler for a Claude Code http hook entry.
 * @returns the handler, or an error naming the field.
 */
export function claudeHttpHandler(
  entry: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): { handler: HandlerConfig } | { error: string } {
  if (typeof entry.url !== 'string' || !/^https?:\/\//i.test(entry.url))
    return { error: 'url must be an http(s) URL' }
  const allowed = entry.allowedEnvVars ?? []
  if (!Array.isArray(allowed) || !allowed.every((v) => typeof v === 'string'))
    return { error: 'allowedEnvVars must be a list of variable names' }
  const handler: HandlerConfig = { type: 'http', url: entry.url }
  if (entry.headers === undefined) return { handler }
  if (!isRecord(entry.headers) || !Object.values(entry.headers).every((v) => typeof v === 'string'))
    return { error: 'headers must map header names to strings' }
  const plain: Record<string, string> = {}
  const secret: Record<string, string> = {}
  for (const [name, value] of Object.entries(entry.headers as Record<string, string>)) {
    if (!/\$\{?[A-Za-z_]/.test(value)) {
      plain[name] = value
      continue
    }
    secret[name] = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, a, b) => {
      const variable = (a ?? b) as string
      return allowed.includes(variable) ? (env[variable] ?? '') : ''
    })
  }
  if (Object.keys(plain).length > 0) handler.headers = plain
  if (Object.keys(secret).length > 0) handler.secretHeaders = secret
  return { handler }
}
