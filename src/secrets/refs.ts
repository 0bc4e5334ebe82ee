// Secret references in warden.yaml: a value given as env:NAME (the environment), file:PATH
// (a file beside the config, trimmed) or a sealed value (wsec:v1:…, opened with the secret
// key), so that secrets are never written in clear. Errors name the field, never the value.

import { readFileSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { WardenError } from '../core/index.js'

/** Opens sealed values (the secret box). */
export interface SealedOpener {
  open(sealed: string): string
}

/** The forms a secret reference takes, for error messages. */
export const SECRET_REF_FORMS = 'env:NAME, file:PATH or a sealed secret (wsec:v1:…)'

/** Matches a secret reference. */
export const SECRET_REF = /^(?:env:[A-Za-z_][A-Za-z0-9_]*|file:.+|wsec:v1:.+)$/

/** Largest secret file read. */
const MAX_SECRET_FILE = 64 * 1024

function invalid(message: string): WardenError {
  return new WardenError('invalid-config', message)
}

/**
 * Opens a secret reference: env:NAME, file:PATH (relative to `baseDir`) or a sealed value.
 * @throws WardenError `invalid-config` naming the field, never the value.
 */
export function openSecretRef(
  where: string,
  value: string,
  env: Record<string, string | undefined>,
  baseDir: string,
  box: SealedOpener | undefined,
): string {
  if (value.startsWith('env:')) {
    const found = env[value.slice(4)]
    if (!found) throw invalid(`${where}: the environment variable ${value.slice(4)} is not set`)
    return found
  }
  if (value.startsWith('file:')) {
    const path = resolve(baseDir, value.slice(5))
    try {
      if (statSync(path).size > MAX_SECRET_FILE)
        throw invalid(`${where}: the file is over ${MAX_SECRET_FILE} bytes`)
      return readFileSync(path, 'utf8').trim()
    } catch (error) {
      if (error instanceof WardenError) throw error
      throw invalid(
        `${where}: the file cannot be read (${(error as { code?: string }).code ?? 'unreadable'})`,
      )
    }
  }
  if (value.startsWith('wsec:v1:')) {
    if (!box) throw invalid(`${where}: a sealed secret needs the secret key (WARDEN_SECRET_KEY)`)
    try {
      return box.open(value)
    } catch (error) {
      throw invalid(`${where}: the sealed secret cannot be opened (${(error as Error).message})`)
    }
  }
  return value
}
