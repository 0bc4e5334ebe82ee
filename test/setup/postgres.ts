// A real PostgreSQL server for the tests: initdb + pg_ctl into a temporary folder on a free
// loopback port (as the `postgres` system user when running as root), or the server named by
// WARDEN_TEST_DATABASE_URL. Usable as a vitest globalSetup (one server per run, its URL
// provided as `wardenPostgresUrl`) or per file through `postgresForTests()`; each test file
// gets a database of its own. With CI=true a missing PostgreSQL fails instead of skipping.

import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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

function binDir(): string | undefined {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] ? join(root, versions[0], 'bin') : undefined
}

function installPostgres(): void {
  const apt = { stdio: 'ignore' as const, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }
  spawnSync('apt-get', ['update'], apt)
  spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'postgresql'], apt)
}

function ensureUser(): void {
  if (spawnSync('id', ['-u', RUN_AS]).status === 0) return
  execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', RUN_AS])
}

function freePort(): Promise<number> {
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

/** Runs a PostgreSQL binary, as the postgres user when this process is root. */
function runPg(bin: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0
  const [file, argv] = asRoot ? ['runuser', ['-u', RUN_AS, '--', bin, ...args]] : [bin, args]
  const result = spawnSync(file, argv, { encoding: 'utf8', timeout: 120_000 })
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
  if (!bin) {
    installPostgres()
    bin = binDir()
  }
  if (!bin)
    throw new Error(
      'PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql)',
    )
  const asRoot = process.getuid?.() === 0
  if (asRoot) ensureUser()
  const dir = mkdtempSync(join(tmpdir(), 'warden-pg-'))
  chmodSync(dir, 0o700)
  if (asRoot) execFileSync('chown', [RUN_AS, dir])
  const data = join(dir, 'data')
  const port = await freePort()
  runPg(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'])
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`
  runPg(join(bin, 'pg_ctl'), [
    'start',
    '-D',
    data,
    '-w',
    '-t',
    '60',
    '-l',
    join(dir, 'server.log'),
    '-o',
    options,
  ])
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      try {
        runPg(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate', '-w'])
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
    project.provide('wardenPostgresUrl', undefined)
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
 * named by WARDEN_TEST_DATABASE_URL, or a server started for this file. Undefined when no
 * PostgreSQL can be had outside CI (tests then skip); with CI=true it throws instead.
 */
export async function postgresForTests(): Promise<TestDatabase | undefined> {
  let serverUrl = (await providedUrl()) ?? process.env.WARDEN_TEST_DATABASE_URL
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
