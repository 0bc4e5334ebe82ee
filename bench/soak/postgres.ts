// The soak's own PostgreSQL server, so it can be stopped and started again under load
// (or frozen) without touching any other server on the machine: initdb + pg_ctl into a temporary
// folder on a free loopback port, found the way the test suite finds the binaries
// (test/setup/postgres.ts), run as the `postgres` user when this process is root.

import { execFileSync, spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { binDir, freePort, runPg } from '../../test/setup/postgres.js'

const RUN_AS = 'postgres'

/** A PostgreSQL server the soak controls. */
export interface SoakPostgres {
  /** URL of the `postgres` database (superuser, trust auth on loopback). */
  url: string
  /** Stops it the hard way (`-m immediate`, as a crash would): it recovers at the next start. */
  crash(): void
  /** Starts it again on the same port and data folder. */
  start(): void
  /**
   * Freezes (SIGSTOP) or thaws (SIGCONT) the server and its backends: it keeps its
   * connections open and answers nothing, as a hung host or a network partition would.
   */
  freeze(frozen: boolean): void
  /** Stops it and removes its folder. */
  destroy(): void
}

/**
 * Creates and starts a PostgreSQL server of the soak's own.
 * @throws Error when no PostgreSQL server binaries can be found.
 */
export async function startSoakPostgres(): Promise<SoakPostgres> {
  const bin = binDir()
  if (!bin) {
    throw new Error(
      'PostgreSQL server binaries (initdb, pg_ctl) not found; install the postgresql package or soak with --db sqlite',
    )
  }
  const asRoot = process.getuid?.() === 0
  if (asRoot && spawnSync('id', ['-u', RUN_AS]).status !== 0) {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', RUN_AS])
  }
  const dir = mkdtempSync(join(tmpdir(), 'warden-soak-pg-'))
  chmodSync(dir, 0o700)
  if (asRoot) execFileSync('chown', [RUN_AS, dir])
  const data = join(dir, 'data')
  const port = await freePort()
  runPg(
    join(bin, 'initdb'),
    ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C'],
    dir,
  )
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=on -c max_connections=100`
  const start = () =>
    runPg(
      join(bin, 'pg_ctl'),
      ['start', '-D', data, '-w', '-t', '60', '-l', join(dir, 'server.log'), '-o', options],
      dir,
    )
  const stop = (mode: 'immediate' | 'fast') =>
    runPg(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', mode, '-w'], dir)
  start()
  let running = true
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    crash() {
      stop('immediate')
      running = false
    },
    start() {
      start()
      running = true
    },
    freeze(frozen) {
      const postmaster = readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0] ?? ''
      const children = spawnSync('ps', ['-o', 'pid=', '--ppid', postmaster], { encoding: 'utf8' })
      const pids = [postmaster, ...children.stdout.trim().split(/\s+/)].filter((p) => /^\d+$/.test(p))
      for (const pid of pids) process.kill(Number(pid), frozen ? 'SIGSTOP' : 'SIGCONT')
    },
    destroy() {
      try {
        if (running) stop('immediate')
      } finally {
        running = false
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}
