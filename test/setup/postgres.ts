// A real PostgreSQL server for the tests: initdb + pg_ctl into a temporary folder on a free
// loopback port (as the `postgres` system user when running as root), or the server named by
// WARDEN_TEST_DATABASE_URL. The server binaries are looked for under /usr/lib/postgresql
// (Debian), then through pg_config and the PATH; where there are none, Debian's postgresql
// package is installed (as root). Usable as a vitest globalSetup (one server per run, its URL
// provided as `wardenPostgresUrl`, "" when none could be had) or per file through
// `postgresForTests()`; each test file gets a database of its own. With CI=true a missing
// PostgreSQL fails instead of skipping.

import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import pg from 'pg'

declare module 'vitest' {
  export interface ProvidedContext {
    wardenPostgresUrl: string | undefined
  }
}

/** A running server and how to stop it. */
export interface PostgresServer {
  /** Connection URL of the `postgres` database, superuser, trust auth on loopback. */
  url: string
  stop(): Promise<void>
}

const RUN_AS = 'postgres'

/** A folder holding both initdb and pg_ctl. */
function usable(dir: string | undefined): string | undefined {
  return dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')) ? dir : undefined
}

/** Where {@link binDir} looks (the defaults are the machine's). */
export interface BinSearch {
  root?: string
  path?: string
  pgConfig?: boolean
}

/** The server binaries: Debian's newest version, else pg_config's bindir, else the PATH. */
export function binDir(search: BinSearch = {}): string | undefined {
  const root = search.root ?? '/usr/lib/postgresql'
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => usable(join(root, v, 'bin')))
      .sort((a, b) => Number(b) - Number(a))
    if (versions[0]) return join(root, versions[0], 'bin')
  }
  if (search.pgConfig ?? true) {
    const config = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' })
    const fromConfig = config.status === 0 ? usable(config.stdout.trim()) : undefined
    if (fromConfig) return fromConfig
  }
  for (const dir of (search.path ?? process.env.PATH ?? '').split(delimiter)) {
    if (!dir || !existsSync(join(dir, 'initdb'))) continue
    const real = usable(dirname(realpathSync(join(dir, 'initdb'))))
    if (real) return real
  }
  return undefined
}

/** Installs Debian's postgresql package; returns what went wrong, if anything. */
function installPostgres(): string | undefined {
  if (process.getuid?.() !== 0) return 'not running as root, so the postgresql package cannot be installed'
  const apt = {
    encoding: 'utf8' as const,
    timeout: 600_000,
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  }
  spawnSync('apt-get', ['update'], apt)
  const install = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'postgresql'], apt)
  if (install.status === 0) return undefined
  const said = `${install.stderr ?? ''}${install.stdout ?? ''}`.trim().split('\n').slice(-3).join(' / ')
  return `apt-get install postgresql failed (${install.error?.message ?? `exit ${install.status}`}): ${said}`
}

function ensureUser(): void {
  if (spawnSync('id', ['-u', RUN_AS]).status === 0) return
  execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', RUN_AS])
}

/** A free loopback TCP port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/**
 * Runs a PostgreSQL binary, as the postgres user when this process is root, from a folder
 * that user can enter (the working directory may be one it cannot).
 */
export function runPg(bin: string, args: string[], cwd: string): void {
  const asRoot = process.getuid?.() === 0
  const [file, argv] = asRoot ? ['runuser', ['-u', RUN_AS, '--', bin, ...args]] : [bin, args]
  const result = spawnSync(file, argv, { encoding: 'utf8', timeout: 120_000, cwd })
  if (result.status !== 0) {
    throw new Error(`${bin} ${args.join(' ')} failed: ${result.stderr || result.stdout || result.error}`)
  }
}

/**
 * Starts a throwaway PostgreSQL server.
 * @throws Error when PostgreSQL is not installed and cannot be installed.
 */
export async function startPostgres(): Promise<PostgresServer> {
  let bin = binDir()
  let problem: string | undefined
  if (!bin) {
    problem = installPostgres()
    bin = binDir()
  }
  if (!bin) {
    throw new Error(
      `PostgreSQL server binaries (initdb, pg_ctl) not found under /usr/lib/postgresql, through pg_config or on the PATH${problem ? `; ${problem}` : ''}. Install the postgresql package or set WARDEN_TEST_DATABASE_URL`,
    )
  }
  const asRoot = process.getuid?.() === 0
  if (asRoot) ensureUser()
  const dir = mkdtempSync(join(tmpdir(), 'warden-pg-'))
  chmodSync(dir, 0o700)
  if (asRoot) execFileSync('chown', [RUN_AS, dir])
  const data = join(dir, 'data')
  const port = await freePort()
  runPg(
    join(bin, 'initdb'),
    ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C'],
    dir,
  )
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`
  runPg(
    join(bin, 'pg_ctl'),
    ['start', '-D', data, '-w', '-t', '60', '-l', join(dir, 'server.log'), '-o', options],
    dir,
  )
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      try {
        runPg(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate', '-w'], dir)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}

/** vitest globalSetup: one server for the whole run, its URL provided to every test file. */
export default async function setup(project: {
  provide(key: 'wardenPostgresUrl', value: string | undefined): void
}): Promise<() => Promise<void>> {
  if (process.env.WARDEN_TEST_DATABASE_URL) {
    project.provide('wardenPostgresUrl', process.env.WARDEN_TEST_DATABASE_URL)
    return async () => undefined
  }
  try {
    const server = await startPostgres()
    project.provide('wardenPostgresUrl', server.url)
    return () => server.stop()
  } catch (error) {
    if (process.env.CI === 'true') throw error
    process.stderr.write(`PostgreSQL tests will be skipped: ${(error as Error).message}\n`)
    project.provide('wardenPostgresUrl', '')
    return async () => undefined
  }
}

/** A database for one test file. */
export interface TestDatabase {
  url: string
  /** Drops the database (and stops the server when this file started one). */
  release(): Promise<void>
}

async function providedUrl(): Promise<string | undefined> {
  try {
    const { inject } = await import('vitest')
    return inject('wardenPostgresUrl')
  } catch {
    return undefined
  }
}

/**
 * A fresh database for the calling test file: in the server of the globalSetup, the one
 * named by WARDEN_TEST_DATABASE_URL, or a server started for this file (when there is no
 * globalSetup). Undefined when no PostgreSQL can be had outside CI (tests then skip); with
 * CI=true it throws instead.
 */
export async function postgresForTests(): Promise<TestDatabase | undefined> {
  const provided = await providedUrl()
  if (provided === '') {
    if (process.env.CI === 'true')
      throw new Error('no PostgreSQL server for the tests (see the setup output)')
    return undefined
  }
  let serverUrl = provided ?? process.env.WARDEN_TEST_DATABASE_URL
  let own: PostgresServer | undefined
  if (!serverUrl) {
    try {
      own = await startPostgres()
      serverUrl = own.url
    } catch (error) {
      if (process.env.CI === 'true') throw error
      return undefined
    }
  }
  const name = `warden_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async release() {
      const client = new pg.Client({ connectionString: serverUrl })
      try {
        await client.connect()
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } catch {
        // the server may already be gone at the end of a run
      } finally {
        await client.end().catch(() => undefined)
        await own?.stop()
      }
    },
  }
}
