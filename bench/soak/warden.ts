// The soaked `warden serve`: started as a child process on loopback (the compiled
// bin/warden.js, or the sources through tsx), killed with SIGKILL and started again on the
// same port, its RSS and open file descriptors read from /proc, its file-size limit
// lowered and lifted with prlimit (disk full), and stopped gracefully at the end.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const PROBE = fileURLToPath(new URL('./loop-probe.mjs', import.meta.url))

/** How to start Warden. */
export interface WardenLaunch {
  /** Arguments after `serve` (config, db, hooks), without --port. */
  args: string[]
  env: NodeJS.ProcessEnv
  cwd: string
  /** Run src/cli/run.ts through tsx instead of the compiled bin/warden.js. */
  fromSource?: boolean
  /** Where the event-loop probe writes its summary (with `.N` for the Nth process). */
  loopFile: string
}

/** The node arguments that run the warden CLI. */
export function wardenCommand(args: string[], fromSource = false): string[] {
  return fromSource
    ? ['--import', import.meta.resolve('tsx'), `${ROOT}src/cli/run.ts`, ...args]
    : [`${ROOT}bin/warden.js`, ...args]
}

/** A running (or restartable) warden serve. */
export class WardenProcess {
  private child: ChildProcess | undefined
  private port = 0
  private stderrTail = ''
  /** Started processes, the first included. */
  incarnations = 0
  /** When the current process started listening (ms since the epoch). */
  startedAt = 0
  url = ''

  constructor(private readonly launch: WardenLaunch) {}

  get pid(): number | undefined {
    return this.child?.pid
  }

  /** Error lines the servers logged, by message (numbers replaced by N). */
  readonly errors = new Map<string, number>()

  private count(line: string): void {
    let message: string | undefined
    if (line.startsWith('{')) {
      try {
        const entry = JSON.parse(line) as { level?: number; msg?: string }
        if ((entry.level ?? 0) >= 50) message = entry.msg ?? ''
      } catch {
        message = line
      }
    } else if (/uncaught|unhandled|fatal|error/i.test(line)) message = line
    if (message === undefined) return
    const key = message.replace(/\d+(\.\d+)*/g, 'N').slice(0, 160)
    this.errors.set(key, (this.errors.get(key) ?? 0) + 1)
  }

  /** The last few KB of what the server wrote on stderr. */
  stderr(): string {
    return this.stderrTail
  }

  /**
   * Starts warden serve (on the port of the last run, if any) and resolves with its URL.
   * @throws Error when it exits or prints no URL within 60 s.
   */
  async start(): Promise<string> {
    const argv = [
      '--expose-gc',
      '--import',
      PROBE,
      ...wardenCommand(['serve', '--port', String(this.port), ...this.launch.args], this.launch.fromSource),
    ]
    const child = spawn(process.execPath, argv, {
      cwd: this.launch.cwd,
      env: { ...this.launch.env, SOAK_LOOP_FILE: `${this.launch.loopFile}.${this.incarnations + 1}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    this.child = child
    this.incarnations += 1
    let partial = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8')
      this.stderrTail = (this.stderrTail + text).slice(-16_384)
      const lines = (partial + text).split('\n')
      partial = lines.pop() ?? ''
      for (const line of lines) this.count(line)
    })
    let out = ''
    this.url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`warden serve did not start: ${out}${this.stderrTail}`)),
        60_000,
      )
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8')
        const match = /listening on (http:\/\/[^\s]+)\/aos/.exec(out)
        if (match?.[1]) {
          clearTimeout(timer)
          resolve(match[1])
        }
      })
      child.once('exit', (code, signal) => {
        clearTimeout(timer)
        reject(new Error(`warden serve exited (${signal ?? code}): ${out}${this.stderrTail.slice(-2000)}`))
      })
    })
    child.stdout?.resume()
    child.kill('SIGUSR2')
    this.startedAt = Date.now()
    this.port = Number(new URL(this.url).port)
    return this.url
  }

  /**
   * Asks the probe for a full GC and the RSS left after it (restarting the event-loop
   * histogram); resolves with RSS and heap in use after it, undefined when the probe does not answer.
   */
  async settled(): Promise<{ rss: number; heapUsed: number } | undefined> {
    const asked = Date.now()
    this.child?.kill('SIGUSR2')
    for (let i = 0; i < 50; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      const settled = this.loopDelay()?.settled
      if (settled && settled.at >= asked) return settled
    }
    return undefined
  }

  /** What the probe of a process (default: the current one) last wrote. */
  loopDelay(incarnation = this.incarnations): LoopDelay | undefined {
    return readLoopDelay(`${this.launch.loopFile}.${incarnation}`)
  }

  /** Whether the current process is alive (it has not exited). */
  alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null
  }

  /** kill -9, and waits for the exit. */
  async kill9(): Promise<void> {
    const child = this.child
    if (!child || !this.alive()) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
  }

  /** SIGTERM; resolves with the exit code (null after a signal), SIGKILL after `timeoutMs`. */
  async stop(timeoutMs = 40_000): Promise<number | null> {
    const child = this.child
    if (!child) return null
    if (!this.alive()) return child.exitCode
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    const code = await exited
    clearTimeout(timer)
    return code
  }

  /** Resident set size in bytes, from /proc (undefined when not running). */
  rss(): number | undefined {
    try {
      const status = readFileSync(`/proc/${this.child?.pid}/status`, 'utf8')
      const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1]
      return kb ? Number(kb) * 1024 : undefined
    } catch {
      return undefined
    }
  }

  /**
   * Open file descriptors, from /proc, without the connections of the soak's clients (TCP
   * sockets on the server's own port), whose number follows the traffic; undefined when not
   * running.
   */
  fds(): number | undefined {
    try {
      const inbound = new Set<string>()
      const port = this.port.toString(16).toUpperCase().padStart(4, '0')
      for (const table of ['tcp', 'tcp6']) {
        const lines = readFileSync(`/proc/${this.child?.pid}/net/${table}`, 'utf8').split('\n').slice(1)
        for (const line of lines) {
          const fields = line.trim().split(/\s+/)
          if (fields[1]?.endsWith(`:${port}`) && fields[9]) inbound.add(fields[9])
        }
      }
      const links = readdirSync(`/proc/${this.child?.pid}/fd`).map((fd) => {
        try {
          return readlinkSync(`/proc/${this.child?.pid}/fd/${fd}`)
        } catch {
          return ''
        }
      })
      return links.filter((link) => !inbound.has(/^socket:\[(\d+)\]$/.exec(link)?.[1] ?? '')).length
    } catch {
      return undefined
    }
  }

  /**
   * Open file descriptors once settled: the fewest of five readings 300 ms apart, so a
   * burst of short-lived outbound connections at the moment of reading is not taken for a
   * leak (a leaked descriptor stays in every reading).
   */
  async settledFds(): Promise<number | undefined> {
    let fewest: number | undefined
    for (let n = 0; n < 5; n++) {
      if (n > 0) await new Promise((resolve) => setTimeout(resolve, 300))
      const fds = this.fds()
      if (fds !== undefined) fewest = fewest === undefined ? fds : Math.min(fewest, fds)
    }
    return fewest
  }

  /**
   * Sets the soft limit on the size of files the server writes (RLIMIT_FSIZE): writes beyond
   * `bytes` fail with EFBIG, as on a full disk. `undefined` lifts it.
   * @throws Error when prlimit is missing or refuses.
   */
  limitFileSize(bytes: number | undefined): void {
    const pid = this.child?.pid
    if (!pid) return
    const value = bytes === undefined ? 'unlimited:unlimited' : `${bytes}:unlimited`
    const result = spawnSync('prlimit', ['--pid', String(pid), `--fsize=${value}`], { encoding: 'utf8' })
    if (result.status !== 0) {
      throw new Error(`prlimit --fsize failed: ${result.stderr || result.error?.message}`)
    }
  }
}

/** Whether prlimit can be used (disk-full is simulated with it). */
export function hasPrlimit(): boolean {
  return spawnSync('prlimit', ['--version']).status === 0
}

/** The event-loop delay summary the probe last wrote, in ms. */
export interface LoopDelay {
  p50: number
  p99: number
  max: number
  samples: number
  /** RSS and V8 heap in use, in bytes, right after the last full GC the soak asked for, and when. */
  settled: { rss: number; heapUsed: number; at: number }
}

/** Reads the probe's file (undefined before the first write). */
export function readLoopDelay(file: string): LoopDelay | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as LoopDelay
  } catch {
    return undefined
  }
}
