// Shared benchmark helpers: timing loops, percentiles and the one report format every
// benchmark prints (a figure, the baseline measured in the same run, their ratio, the goal).

/** One line of a benchmark report. */
export interface BenchResult {
  /** What was measured, e.g. "dispatch, no hook for the event". */
  name: string
  /** The measured figure. */
  value: number
  /** The baseline measured in the same run, in the same unit. */
  baseline: number
  unit: string
  /** How the goal reads, e.g. "ratio <= 2" or "us <= 10". */
  goal: string
  /** Whether the goal is met. */
  pass: boolean
  /** Extra figures worth printing (p50, p99, ...). */
  extra?: Record<string, number | string>
}

/** A benchmark module's default export. */
export type Benchmark = () => Promise<BenchResult[]>

/** Runs `fn` for `iterations` and returns nanoseconds per call (after a warm-up of a tenth). */
export async function nsPerOp(fn: () => unknown, iterations: number): Promise<number> {
  const warm = Math.max(1, Math.floor(iterations / 10))
  for (let i = 0; i < warm; i++) await fn()
  const start = process.hrtime.bigint()
  for (let i = 0; i < iterations; i++) await fn()
  return Number(process.hrtime.bigint() - start) / iterations
}

/** Same as {@link nsPerOp} for synchronous code, without an await per call. */
export function nsPerOpSync(fn: () => unknown, iterations: number): number {
  const warm = Math.max(1, Math.floor(iterations / 10))
  for (let i = 0; i < warm; i++) fn()
  const start = process.hrtime.bigint()
  for (let i = 0; i < iterations; i++) fn()
  return Number(process.hrtime.bigint() - start) / iterations
}

/**
 * Measures `candidate` and `baseline` interleaved over several rounds and keeps the best
 * round of each, so that noise from the machine hits both sides alike.
 */
export async function compare(
  candidate: () => unknown,
  baseline: () => unknown,
  iterations: number,
  rounds = 5,
): Promise<{ candidateNs: number; baselineNs: number }> {
  let candidateNs = Number.POSITIVE_INFINITY
  let baselineNs = Number.POSITIVE_INFINITY
  for (let r = 0; r < rounds; r++) {
    baselineNs = Math.min(baselineNs, await nsPerOp(baseline, iterations))
    candidateNs = Math.min(candidateNs, await nsPerOp(candidate, iterations))
  }
  return { candidateNs, baselineNs }
}

/** Returns the q-th quantile (0..1) of the samples. */
export function quantile(samples: number[], q: number): number {
  if (samples.length === 0) return Number.NaN
  const sorted = [...samples].sort((a, b) => a - b)
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  return sorted[index] as number
}

/** Formats a number with at most three significant decimals. */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n)
  if (Math.abs(n) >= 100) return n.toFixed(0)
  if (Math.abs(n) >= 10) return n.toFixed(1)
  return n.toFixed(2)
}

/** Prints results as a Markdown table (the README copies it as it is). */
export function printResults(title: string, results: BenchResult[]): void {
  process.stdout.write(`\n### ${title}\n\n`)
  process.stdout.write('| benchmark | value | baseline | ratio | goal | met |\n|---|---|---|---|---|---|\n')
  for (const r of results) {
    const ratio = r.baseline > 0 ? r.value / r.baseline : Number.NaN
    const extra = r.extra
      ? ` (${Object.entries(r.extra)
          .map(([k, v]) => `${k} ${typeof v === 'number' ? fmt(v) : v}`)
          .join(', ')})`
      : ''
    process.stdout.write(
      `| ${r.name}${extra} | ${fmt(r.value)} ${r.unit} | ${fmt(r.baseline)} ${r.unit} | ${fmt(ratio)}x | ${r.goal} | ${r.pass ? 'yes' : 'NO'} |\n`,
    )
  }
}

/** A `warden serve` started from the compiled package. */
export interface ServedWarden {
  url: string
  proc: import('node:child_process').ChildProcess
  stderr: () => string
  stop(): Promise<void>
}

/**
 * Starts `node bin/warden.js serve` (the compiled package, as users run it) on a free port
 * with the given warden.yaml text and database, and resolves once it listens.
 */
export async function serveCompiledWarden(options: {
  dir: string
  db: string
  config: string
  env?: NodeJS.ProcessEnv
  /** Options for Node itself, before the script (e.g. `--cpu-prof`). */
  nodeArgs?: string[]
}): Promise<ServedWarden> {
  const { spawn } = await import('node:child_process')
  const { writeFileSync } = await import('node:fs')
  const { join } = await import('node:path')
  const root = new URL('../', import.meta.url).pathname
  const config = join(options.dir, 'warden.yaml')
  writeFileSync(config, options.config)
  const proc = spawn(
    process.execPath,
    [
      ...(options.nodeArgs ?? []),
      `${root}bin/warden.js`,
      'serve',
      '--config',
      config,
      '--port',
      '0',
      '--db',
      options.db,
    ],
    { cwd: options.dir, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let out = ''
  let err = ''
  proc.stderr?.on('data', (d) => {
    err += d
  })
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()))
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout?.on('data', (d) => {
      out += d
      const match = /listening on (http:\/\/\S+)\/aos/.exec(out)
      if (match?.[1]) resolve(match[1])
    })
    void exited.then(() => reject(new Error(`warden serve exited with ${proc.exitCode}: ${err}`)))
  })
  return {
    url,
    proc,
    stderr: () => err,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM')
      await exited
    },
  }
}
