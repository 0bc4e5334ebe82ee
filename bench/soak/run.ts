// `npm run soak [-- --minutes 10 --db sqlite|postgres --audit sync|async]`: drives a real
// `warden serve` with mixed /aos traffic at half of its measured capacity while injecting
// faults on a schedule (bench/soak/faults.ts), then checks that nothing hung, every
// blocking decision during a fault was a deny naming the cause, breakers tripped and
// recovered, every answered decision has exactly one audit row, RSS and open fds stayed
// level, the store opened after each crash; prints the table and exits 1 when a check fails.

import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { ASYNC_INTERVAL_MS, writeConfig } from './config.js'
import {
  FAULTS,
  type Fault,
  type FaultCheck,
  hookFileText,
  type SoakContext,
  storeOpens,
  Webhook,
} from './faults.js'
import { type SoakPostgres, startSoakPostgres } from './postgres.js'
import { HANG_MS, Traffic } from './traffic.js'
import { compareAudit, printTable, type Row, readStore, steadyRow } from './verdict.js'
import { hasPrlimit, WardenProcess, wardenCommand } from './warden.js'

/** Allowance on top of the interval for the write itself on a busy machine. */
const WINDOW_SLACK_MS = 1000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Options of one soak run. */
export interface SoakOptions {
  minutes: number
  backend: 'sqlite' | 'postgres'
  audit: 'sync' | 'async'
  fromSource: boolean
  /** Names of the faults to inject (default: every one that applies). */
  faults?: string[]
  log: (line: string) => void
}

/** The outcome: the table's rows and whether all passed. */
export interface SoakResult {
  ok: boolean
  rows: Row[]
}

async function metricsText(url: string): Promise<string> {
  try {
    return await (await fetch(`${url}/metrics`)).text()
  } catch {
    return ''
  }
}

/** Runs one soak; prints as it goes and the table at the end. */
export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const log = options.log
  const totalMs = options.minutes * 60_000
  const began = Date.now()
  const dir = mkdtempSync(join(tmpdir(), 'warden-soak-'))
  const hooksDir = join(dir, 'hooks')
  mkdirSync(hooksDir)
  const modeFile = join(dir, 'mode')
  writeFileSync(modeFile, 'ok')
  const hookFile = join(hooksDir, 'soak-md.md')
  writeFileSync(hookFile, hookFileText(1))
  const env = {
    ...process.env,
    WARDEN_SECRET_KEY: Buffer.alloc(32, 11).toString('base64'),
    WARDEN_DATABASE_URL: '',
    WARDEN_LOG_LEVEL: 'error',
  }
  const webhook = new Webhook()
  await webhook.up()
  let pgServer: SoakPostgres | undefined
  let warden: WardenProcess | undefined
  let traffic: Traffic | undefined
  try {
    if (options.backend === 'postgres') pgServer = await startSoakPostgres()
    const db = pgServer?.url ?? join(dir, 'soak.db')
    const config = writeConfig(dir, options.audit, webhook.port, modeFile)
    const created = spawnSync(
      process.execPath,
      wardenCommand(
        ['tokens', 'create', '--name', 'soak', '--role', 'editor', '--json', '--db', db],
        options.fromSource,
      ),
      { cwd: dir, env, encoding: 'utf8' },
    )
    if (created.status !== 0) throw new Error(`warden tokens create failed: ${created.stderr}`)
    const token = (JSON.parse(created.stdout) as { token: string }).token
    const loopFile = join(dir, 'loop.json')
    warden = new WardenProcess({
      args: ['--config', config, '--db', db, '--hooks', hooksDir],
      env,
      cwd: dir,
      fromSource: options.fromSource,
      loopFile,
    })
    const url = await warden.start()
    log(`soak: ${options.minutes} min, ${options.backend}, audit ${options.audit}, warden at ${url}`)
    traffic = new Traffic(url)
    const ctx: SoakContext = {
      warden,
      traffic,
      backend: options.backend,
      db,
      modeFile,
      hookFile,
      webhook,
      pg: pgServer,
      token,
      kills: [],
      checks: [],
      hookVersion: 1,
      log,
    }
    // capacity: closed loop, after a second of warming up
    const capacityMs = Math.min(5000, Math.max(2000, totalMs * 0.05))
    await traffic.closedLoop(32, 1000)
    const capacity = await traffic.closedLoop(32, capacityMs)
    const rate = Math.max(20, capacity / 2)
    log(`soak: capacity ${capacity.toFixed(0)} req/s; driving ${rate.toFixed(0)} req/s`)
    let stopping = false
    const paced = traffic.paced(
      () => rate,
      () => stopping,
    )
    const warmMs = Math.max(6000, totalMs * 0.1)
    const tailMs = Math.max(8000, totalMs * 0.1)
    await sleep(warmMs)
    const warm = {
      ...((await warden.settled()) ?? { rss: 0, heapUsed: 0 }),
      fds: (await warden.settledFds()) ?? 0,
    }
    log(`soak: after warm-up RSS ${(warm.rss / 2 ** 20).toFixed(1)} MB, ${warm.fds} fds`)

    const faults = FAULTS.filter((f) => f.applies(ctx) && (options.faults?.includes(f.name) ?? true))
    const faultsMs = totalMs - (Date.now() - began) - tailMs
    const cycles = faults.length === 0 ? 0 : Math.max(1, Math.floor(faultsMs / (faults.length * 20_000)))
    const slotMs = faultsMs / Math.max(1, cycles * faults.length)
    const watch = setInterval(
      () => {
        const rss = warden?.rss()
        const delay = warden?.loopDelay()
        log(
          `soak: ${((Date.now() - began) / 1000).toFixed(0)} s: RSS ${((rss ?? 0) / 2 ** 20).toFixed(1)} MB, ${warden?.fds()} fds, loop p99 ${delay?.p99} ms, ${traffic?.stats.decisions} decisions`,
        )
      },
      Math.max(10_000, totalMs / 20),
    )
    const tallies = new Map<string, { targeted: number; ok: number; violations: string[] }>()
    const windows: { fault: Fault; since: number; until?: number }[] = []
    const slowest = new Map<string, number>()
    traffic.listener = (answer) => {
      let on: (typeof windows)[number] | undefined
      for (let i = windows.length - 1; i >= 0 && !on; i--) {
        const w = windows[i]
        if (w && answer.sentAt >= w.since && answer.sentAt <= (w.until ?? Number.POSITIVE_INFINITY)) on = w
      }
      if (!on) return
      const took = answer.answeredAt - answer.sentAt
      slowest.set(on.fault.name, Math.max(slowest.get(on.fault.name) ?? 0, took))
      // answered after the fault was switched off: only how long it took counts
      if (on.until !== undefined && answer.answeredAt > on.until) return
      const tally = tallies.get(on.fault.name) ?? { targeted: 0, ok: 0, violations: [] }
      tallies.set(on.fault.name, tally)
      if (!on.fault.target) {
        // a store fault: the decisions denied because their record could not be written
        if (!answer.reasonCode.includes('audit')) return
        tally.targeted++
        if (answer.decision === 'deny' && /could not be recorded/.test(answer.message)) tally.ok++
        else tally.violations.push(`${answer.decision}: ${answer.message.slice(0, 120)}`)
        return
      }
      if (answer.tool !== on.fault.target) return
      tally.targeted++
      if (answer.decision === 'deny' && on.fault.cause?.test(answer.message)) tally.ok++
      else tally.violations.push(`${answer.decision}: ${answer.message.slice(0, 120)}`)
    }
    const writeErrorsBefore = /warden_audit_write_errors_total (\d+)/.exec(await metricsText(warden.url))?.[1]
    for (let cycle = 0; cycle < cycles; cycle++) {
      for (const fault of faults) {
        const slotEnd = Date.now() + slotMs
        log(`soak: ${((Date.now() - began) / 1000).toFixed(0)} s: ${fault.name}`)
        const window: (typeof windows)[number] = { fault, since: Date.now() }
        windows.push(window)
        await fault.start(ctx)
        await sleep(Math.max(fault.minMs ?? 2500, slotMs * 0.5))
        window.until = Date.now()
        await fault.stop(ctx)
        await sleep(Math.max(0, slotEnd - Date.now()))
      }
    }
    log(`soak: ${((Date.now() - began) / 1000).toFixed(0)} s: calm tail`)
    await sleep(Math.max(5000, began + totalMs - Date.now()))
    clearInterval(watch)
    const delay = warden.loopDelay()
    const earlier: string[] = []
    for (let n = 1; n < warden.incarnations; n++) earlier.push(`${warden.loopDelay(n)?.p99 ?? '?'} ms`)
    const end = {
      ...((await warden.settled()) ?? { rss: 0, heapUsed: 0 }),
      fds: (await warden.settledFds()) ?? 0,
    }
    stopping = true
    await paced
    await traffic.drained()
    const metrics = await metricsText(warden.url)
    const loopLines = metrics.split('\n').filter((l) => /^[a-z_]*event_?loop/i.test(l))
    const exposed = loopLines.find((l) => /0\.99"/.test(l)) ?? loopLines[0]
    const exit = await warden.stop()
    const storeCheck = await storeOpens(ctx)
    const stored = await readStore(options.backend, db)
    const audit = compareAudit(
      traffic.answered,
      traffic.refused,
      stored.ids,
      options.audit,
      ctx.kills,
      ASYNC_INTERVAL_MS + WINDOW_SLACK_MS,
    )
    const s = traffic.stats
    const rows: Row[] = []
    const add = (check: string, ok: boolean | 'info', detail: string) =>
      rows.push({ check, result: ok === 'info' ? 'INFO' : ok ? 'PASS' : 'FAIL', detail })
    add(
      'load',
      'info',
      `${options.backend}, audit ${options.audit}, ${options.minutes} min, capacity ${capacity.toFixed(0)} req/s, driven at ${rate.toFixed(0)} req/s; ${faults.length} faults x ${cycles} cycle(s), ${(slotMs / 1000).toFixed(1)} s each`,
    )
    add(
      'no request hung',
      s.hung === 0 && s.sent === s.answered + s.connectionErrors + s.hung,
      `${s.sent} sent: ${s.answered} answered, ${s.connectionErrors} connection errors, ${s.hung} hung (> ${HANG_MS / 1000} s), ${s.shed} shed`,
    )
    add(
      'no protocol errors',
      s.httpErrors === 0 && s.rpcErrors === 0,
      `${s.httpErrors} HTTP errors ${s.lastHttpError}, ${s.rpcErrors} JSON-RPC errors ${s.lastRpcError}`,
    )
    for (const fault of faults.filter((f) => f.name !== 'kill-9')) {
      const t = tallies.get(fault.name) ?? { targeted: 0, ok: 0, violations: [] }
      const not = t.violations.length ? `; not: ${t.violations.slice(0, 3).join(' / ')}` : ''
      if (fault.target) {
        const ok = t.targeted > 0 && t.ok === t.targeted
        add(
          `deny with cause: ${fault.name}`,
          ok,
          `${t.ok}/${t.targeted} calls to ${fault.target} denied naming the cause${not}`,
        )
        continue
      }
      // a store fault must be felt in sync mode, as denies naming the unwritable record
      const felt = options.audit === 'async' || t.targeted > 0
      add(
        `deny with cause: ${fault.name}`,
        felt && t.ok === t.targeted,
        `${t.ok}/${t.targeted} decisions whose record could not be written denied naming the cause${not}${options.audit === 'async' ? ' (async: decisions wait in the queue instead)' : ''}`,
      )
    }
    for (const fault of faults.filter((f) => f.boundMs !== undefined)) {
      const took = slowest.get(fault.name) ?? 0
      add(
        `answered in time: ${fault.name}`,
        took <= (fault.boundMs ?? 0),
        `slowest answer to a request sent during the fault: ${took} ms (limit ${fault.boundMs} ms)`,
      )
    }
    add('slowest answer per fault', 'info', [...slowest].map(([name, ms]) => `${name} ${ms} ms`).join(', '))
    const grouped = new Map<string, FaultCheck[]>()
    for (const check of [...ctx.checks, storeCheck])
      grouped.set(check.check, [...(grouped.get(check.check) ?? []), check])
    for (const [check, list] of grouped) {
      const failed = list.filter((c) => !c.ok)
      add(
        check,
        failed.length === 0,
        `${list.length - failed.length}/${list.length} ok; ${(failed[0] ?? list[list.length - 1])?.detail}`,
      )
    }
    const writeErrors =
      Number(/warden_audit_write_errors_total (\d+)/.exec(metrics)?.[1] ?? 0) - Number(writeErrorsBefore ?? 0)
    add(
      'store faults hit the audit writer',
      'info',
      `${writeErrors} failed audit batches in the last process; ${audit.refused} decisions denied because their record could not be written`,
    )
    add(
      `audit rows (${options.audit})`,
      audit.lost === 0 && (options.audit === 'async' || audit.inWindow === 0),
      `${audit.answered} answered, ${audit.refused} refused (denied, not recorded), ${audit.inWindow} missing within ${ASYNC_INTERVAL_MS}+${WINDOW_SLACK_MS} ms before a kill -9, ${audit.lost} lost${audit.lostSample.length ? `: ${audit.lostSample.join(', ')}` : ''}; ${audit.unanswered} stored rows without an answer (notifications, cut-off answers)`,
    )
    add(
      'no duplicates',
      s.duplicateIds === 0 && stored.duplicateExecutions === 0,
      `${s.duplicateIds} decision ids answered twice, ${stored.duplicateExecutions} execution rows stored twice`,
    )
    const mb = (v: number) => `${(v / 2 ** 20).toFixed(1)} MB`
    const rss = steadyRow('RSS after a full GC steady', warm.rss, end.rss, 0.1, mb)
    rss.detail += `; V8 heap in use ${mb(warm.heapUsed)} -> ${mb(end.heapUsed)}`
    rows.push(rss)
    rows.push(
      steadyRow('open fds steady (without client connections)', warm.fds, end.fds, 0.1, (v) => String(v)),
    )
    add(
      'event-loop delay p99',
      'info',
      `${delay ? `${delay.p99} ms p99, ${delay.p50} ms p50, ${delay.max} ms max in the last process (probe)` : 'no probe data'}${earlier.length ? `; p99 of the processes killed: ${earlier.join(', ')}` : ''}; /metrics: ${exposed ?? 'no event-loop metric exposed'}`,
    )
    const logged = [...warden.errors].sort((a, b) => b[1] - a[1])
    // expected: audit writes, the approvals' expiry and the instance heartbeat failing while
    // the store is down or full, the broken hook file
    const expected =
      /could not write N audit record|cannot expire old approvals|instance heartbeat failed|soak-md\.md/
    const unexpected = logged.filter(([m]) => !expected.test(m))
    add(
      'no unexpected server errors',
      unexpected.length === 0,
      `${
        logged.length === 0
          ? 'none logged'
          : logged
              .slice(0, 4)
              .map(([m, n]) => `${n}x "${m}"`)
              .join('; ')
      }${unexpected.length ? ` (unexpected: ${unexpected.length} kinds)` : ''}`,
    )
    add(
      'graceful stop at the end',
      exit === 0,
      `exit code ${exit}; ${warden.incarnations} process(es) in all`,
    )
    const ok = printTable(rows, log)
    if (!ok) log(`soak: server stderr (tail):\n${warden.stderr().slice(-3000)}`)
    return { ok, rows }
  } finally {
    await traffic?.close()
    if (warden?.alive()) await warden.kill9()
    await webhook.down()
    pgServer?.destroy()
    rmSync(dir, { recursive: true, force: true })
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '10' },
      db: { type: 'string', default: 'sqlite' },
      audit: { type: 'string', default: 'sync' },
      source: { type: 'boolean', default: false },
      json: { type: 'string' },
      faults: { type: 'string' },
    },
  })
  const minutes = Number(values.minutes)
  if (!(minutes >= 0.5 && minutes <= 24 * 60))
    throw new Error(`--minutes must be from 0.5 to 1440 (got "${values.minutes}")`)
  if (values.db !== 'sqlite' && values.db !== 'postgres')
    throw new Error(`--db must be sqlite or postgres (got "${values.db}")`)
  if (values.audit !== 'sync' && values.audit !== 'async')
    throw new Error(`--audit must be sync or async (got "${values.audit}")`)
  if (values.db === 'sqlite' && !hasPrlimit())
    throw new Error('prlimit (util-linux) is needed to simulate a full disk')
  const result = await runSoak({
    minutes,
    backend: values.db,
    audit: values.audit,
    fromSource: values.source === true,
    ...(values.faults !== undefined ? { faults: values.faults.split(',').filter(Boolean) } : {}),
    log: (line) => process.stdout.write(`${line}\n`),
  })
  if (values.json) writeFileSync(values.json, JSON.stringify(result, null, 2))
  process.exitCode = result.ok ? 0 : 1
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() ?? '')) {
  main().catch((error: unknown) => {
    process.stderr.write(`soak: ${(error as Error).message}\n`)
    process.exitCode = 1
  })
}
