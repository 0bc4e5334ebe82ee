// Debian's Chromium for the browser tests: /usr/bin/chromium (or WARDEN_TEST_CHROMIUM),
// installed with apt-get when missing and running as root. Also builds the UI into
// dist/web when it is missing, so the served UI is the one under test. Usable as a vitest
// globalSetup (the path provided as `wardenChromium`, "" when none could be had) or per file
// through `chromiumForTests()`. With CI=true a missing Chromium fails instead of skipping.

import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

declare module 'vitest' {
  export interface ProvidedContext {
    wardenChromium: string | undefined
  }
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser']

function found(): string | undefined {
  const own = process.env.WARDEN_TEST_CHROMIUM
  if (own && existsSync(own)) return own
  return CANDIDATES.find((path) => existsSync(path))
}

/** Installs Debian's chromium package; returns what went wrong, if anything. */
function install(): string | undefined {
  if (process.getuid?.() !== 0) return 'not running as root, so the chromium package cannot be installed'
  const apt = {
    encoding: 'utf8' as const,
    timeout: 900_000,
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  }
  spawnSync('apt-get', ['update'], apt)
  const result = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], apt)
  if (result.status === 0) return undefined
  const said = `${result.stderr ?? ''}${result.stdout ?? ''}`.trim().split('\n').slice(-3).join(' / ')
  return `apt-get install chromium failed (${result.error?.message ?? `exit ${result.status}`}): ${said}`
}

/** Builds the UI when dist/web is missing (npm ci builds it; a bare checkout may not have). */
function ensureUi(): void {
  if (existsSync(join(ROOT, 'dist', 'web', 'index.html'))) return
  const result = spawnSync('npx', ['vite', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 300_000,
  })
  if (result.status !== 0) throw new Error(`the UI could not be built: ${result.stderr || result.stdout}`)
}

/**
 * The Chromium binary, installing it when missing.
 * @throws Error when it cannot be had.
 */
export function ensureChromium(): string {
  let path = found()
  let problem: string | undefined
  if (!path) {
    problem = install()
    path = found()
  }
  if (!path)
    throw new Error(`Chromium not found at ${CANDIDATES.join(' or ')}${problem ? `; ${problem}` : ''}`)
  return path
}

/** vitest globalSetup: Chromium and the built UI once per run. */
export default async function setup(project: {
  provide(key: 'wardenChromium', value: string | undefined): void
}): Promise<void> {
  try {
    ensureUi()
    project.provide('wardenChromium', ensureChromium())
  } catch (error) {
    if (process.env.CI === 'true') throw error
    process.stderr.write(`Browser tests will be skipped: ${(error as Error).message}\n`)
    project.provide('wardenChromium', '')
  }
}

/** The Chromium path for a test file, or undefined (tests then skip; with CI=true it throws). */
export async function chromiumForTests(): Promise<string | undefined> {
  let provided: string | undefined
  try {
    const { inject } = await import('vitest')
    provided = inject('wardenChromium')
  } catch {
    provided = undefined
  }
  if (provided) return provided
  if (provided === '' && process.env.CI !== 'true') return undefined
  try {
    ensureUi()
    return ensureChromium()
  } catch (error) {
    if (process.env.CI === 'true') throw error
    return undefined
  }
}
