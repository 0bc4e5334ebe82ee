// The faults the soak injects, each switched on for a slot and off again: a command hook
// that hangs, crashes, answers garbage or is killed by a signal; a webhook server that goes
// away; a hook file broken while live; the PostgreSQL server crashed and restarted, or
// frozen (SIGSTOP: connections open, no answers); disk
// full for SQLite (RLIMIT_FSIZE on the server); the server killed with kill -9 and started
// again. Each says which tool's answers must be denies naming the cause while it is on, and
// checks afterwards what must hold (breaker open until re-enabled, reload, recovery).

import { statSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import BetterSqlite3 from 'better-sqlite3'
import WebSocket from 'ws'
import { openStore } from '../../src/store/index.js'
import { BREAKER_FAILURES } from './config.js'
import type { SoakPostgres } from './postgres.js'
import { type Answer, CHECK_TENANT, type Traffic } from './traffic.js'
import type { WardenProcess } from './warden.js'

/** One line of what a fault checked after it was switched off. */
export interface FaultCheck {
  check: string
  ok: boolean
  detail: string
}

/** What the faults act on. */
export interface SoakContext {
  warden: WardenProcess
  traffic: Traffic
  backend: 'sqlite' | 'postgres'
  /** The store's location (SQLite file or PostgreSQL URL). */
  db: string
  modeFile: string
  hookFile: string
  webhook: Webhook
  pg: SoakPostgres | undefined
  token: string
  /** When the server was killed with kill -9 (ms since the epoch). */
  kills: number[]
  /** Results of the checks faults made. */
  checks: FaultCheck[]
  /** Version of the live hook file currently in force. */
  hookVersion: number
  log(line: string): void
}

/** A fault of the schedule. */
export interface Fault {
  name: string
  /** Tool calls for this tool must be answered deny, with `cause` in the message, while it is on. */
  target?: string
  cause?: RegExp
  /** Shortest time the fault stays on (default 2.5 s). */
  minMs?: number
  /** Requests sent while it is on must be answered within this long. */
  boundMs?: number
  applies(ctx: SoakContext): boolean
  start(ctx: SoakContext): Promise<void>
  stop(ctx: SoakContext): Promise<void>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The soak's webhook server: answers `{}` (allow) until it is taken away. */
export class Webhook {
  private server: Server | undefined
  port = 0

  async up(): Promise<void> {
    const server = createServer((request, response) => {
      request.resume()
      request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'))
    })
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve))
    const address = server.address()
    this.port = typeof address === 'object' && address ? address.port : this.port
    this.server = server
  }

  async down(): Promise<void> {
    const server = this.server
    this.server = undefined
    if (!server) return
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
}

/** The live hook file's text: version `n` denies naming its version; `broken` does not parse. */
export function hookFileText(version: number | 'broken'): string {
  const body =
    version === 'broken'
      ? '  def handle(event, payload)\n      return block("this version does not parse"\n'
      : `  def handle(event, payload):\n      return block("soak-md version ${version}")\n`
  return `---\nevent: tool.pre\nwhen: payload["name"] == "soak_md"\nscript: |\n${body}---\n\n# Soak hook file\n`
}

/**
 * Sends probes for `tool` (as `tenant`, else the rotation's next) until `accept` says yes
 * or `ms` pass; returns the last answer.
 */
async function probeUntil(
  traffic: Traffic,
  tool: string,
  accept: (answer: Answer) => boolean,
  ms: number,
  tenant?: string,
): Promise<{ answer: Answer | undefined; ok: boolean; waited: number; probes: number }> {
  const start = Date.now()
  let answer: Answer | undefined
  let probes = 0
  while (Date.now() - start < ms) {
    answer = await traffic.probe(tool, tenant)
    probes++
    if (answer && accept(answer)) return { answer, ok: true, waited: Date.now() - start, probes }
    await sleep(100)
  }
  return { answer, ok: false, waited: Date.now() - start, probes }
}

const breakerOpen = (a: Answer) => a.decision === 'deny' && /circuit breaker is open/.test(a.message)

/** How a hook fault's own failing calls opened the breaker, by fault name. */
const trips = new Map<string, { ok: boolean; probes: number; answer: Answer | undefined }>()

/**
 * While a hook fault is on: calls the hook as {@link CHECK_TENANT} until its breaker opens
 * for that tenant (breakers count per hook and tenant, and the mixed traffic spreads its
 * few calls of the hook over four tenants, so it cannot be relied on to open one). It must
 * open within the configured failures, plus the calls the traffic made meanwhile.
 */
async function tripBreaker(ctx: SoakContext, fault: string, tool: string): Promise<void> {
  const opened = await probeUntil(ctx.traffic, tool, breakerOpen, 15_000, CHECK_TENANT)
  trips.set(fault, { ok: opened.ok, probes: opened.probes, answer: opened.answer })
}

/** Re-enables a hook through the management API (`hooks.toggle`), which resets its breaker. */
async function reenable(url: string, token: string, id: string): Promise<void> {
  const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/ws?token=${encodeURIComponent(token)}`)
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve())
      socket.once('error', reject)
    })
    const answer = await new Promise<{ ok: boolean; error?: unknown }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('hooks.toggle got no answer in 10 s')), 10_000)
      socket.on('message', (data) => {
        const frame = JSON.parse(String(data)) as { id?: number; ok: boolean; error?: unknown }
        if (frame.id !== 1) return
        clearTimeout(timer)
        resolve(frame)
      })
      socket.send(
        JSON.stringify({ type: 'req', id: 1, method: 'hooks.toggle', params: { id, enabled: true } }),
      )
    })
    if (!answer.ok) throw new Error(`hooks.toggle refused: ${JSON.stringify(answer.error)}`)
  } finally {
    socket.close()
  }
}

/**
 * After a hook fault: the breaker its failing calls opened for {@link CHECK_TENANT} must
 * still be open (it stays off until re-enabled), then re-enabling the hook must let that
 * tenant's calls through again.
 */
async function breakerCheck(ctx: SoakContext, fault: string, hook: string, tool: string): Promise<void> {
  const trip = trips.get(fault)
  const stillOpen = await probeUntil(ctx.traffic, tool, breakerOpen, 2000, CHECK_TENANT)
  let recovered = { ok: false, waited: 0, answer: undefined as Answer | undefined }
  let error = ''
  try {
    await reenable(ctx.warden.url, ctx.token, hook)
    recovered = await probeUntil(ctx.traffic, tool, (a) => a.decision === 'allow', 10_000, CHECK_TENANT)
  } catch (cause) {
    error = (cause as Error).message
  }
  const opened = trip?.ok
    ? `open at call ${trip.probes} (${BREAKER_FAILURES} failures open it; the next call finds it open)`
    : `did not open in ${trip?.probes ?? 0} failing calls (${trip?.answer?.message.slice(0, 80)})`
  ctx.checks.push({
    check: `breaker ${fault}`,
    ok: (trip?.ok ?? false) && (trip?.probes ?? 0) <= BREAKER_FAILURES + 1 && stillOpen.ok && recovered.ok,
    detail: `${opened}, ${stillOpen.ok ? 'open after the fault' : `not open after the fault (${stillOpen.answer?.message.slice(0, 80)})`}, ${recovered.ok ? `allows ${recovered.waited} ms after re-enabling` : `still failing after re-enabling ${error || recovered.answer?.message.slice(0, 80)}`}`,
  })
}

/** The audit queue depth the server reports on /metrics (undefined when unreachable). */
async function queueDepth(url: string): Promise<number | undefined> {
  try {
    const text = await (await fetch(`${url}/metrics`)).text()
    const depth = /^warden_audit_queue_depth (\d+)/m.exec(text)?.[1]
    return depth === undefined ? undefined : Number(depth)
  } catch {
    return undefined
  }
}

/** Waits for a plain tool call to be allowed again and the audit queue to be empty (the store is back). */
async function recoveryCheck(ctx: SoakContext, fault: string, ms: number): Promise<void> {
  const start = Date.now()
  const back = await probeUntil(ctx.traffic, 'tool_1', (a) => a.decision === 'allow', ms)
  let depth = await queueDepth(ctx.warden.url)
  // under load a few decisions are always on their way: "drained" is below one batch
  while ((depth === undefined || depth > 256) && Date.now() - start < ms) {
    await sleep(200)
    depth = await queueDepth(ctx.warden.url)
  }
  const drained = depth !== undefined && depth <= 256
  ctx.checks.push({
    check: `recovered ${fault}`,
    ok: back.ok && drained,
    detail: back.ok
      ? `allowing again ${back.waited} ms after the fault, audit queue ${drained ? `drained (${depth}) after ${Date.now() - start} ms` : `still at ${depth}`}`
      : `${back.answer?.message.slice(0, 100)}`,
  })
}

/** Whether the store opens (and, for SQLite, passes quick_check) after a crash. */
export async function storeOpens(ctx: SoakContext): Promise<FaultCheck> {
  const started = Date.now()
  try {
    if (ctx.backend === 'sqlite') {
      const db = new BetterSqlite3(ctx.db)
      try {
        const result = db.pragma('quick_check', { simple: true })
        if (result !== 'ok') throw new Error(`quick_check: ${String(result)}`)
      } finally {
        db.close()
      }
    }
    const store = await openStore(ctx.db)
    await store.listDecisions({ limit: 1 })
    await store.close()
    return { check: 'store opens after crash', ok: true, detail: `${Date.now() - started} ms` }
  } catch (error) {
    return { check: 'store opens after crash', ok: false, detail: (error as Error).message.slice(0, 200) }
  }
}

function commandFault(mode: 'hang' | 'crash' | 'garbage' | 'signal'): Fault {
  return {
    name: `hook-${mode}`,
    target: 'soak_cmd',
    cause: /hook "soak-cmd" failed closed/,
    applies: () => true,
    async start(ctx) {
      writeFileSync(ctx.modeFile, mode)
      await tripBreaker(ctx, `hook-${mode}`, 'soak_cmd')
    },
    async stop(ctx) {
      writeFileSync(ctx.modeFile, 'ok')
      await breakerCheck(ctx, `hook-${mode}`, 'soak-cmd', 'soak_cmd')
    },
  }
}

/** Every fault, in the order of the schedule. */
export const FAULTS: Fault[] = [
  commandFault('hang'),
  {
    name: 'kill-9',
    applies: () => true,
    async start(ctx) {
      ctx.kills.push(Date.now())
      await ctx.warden.kill9()
      ctx.checks.push(await storeOpens(ctx))
      ctx.traffic.setOrigin(await ctx.warden.start())
    },
    async stop() {},
  },
  commandFault('crash'),
  {
    name: 'webhook-down',
    target: 'soak_web',
    cause: /hook "soak-web" failed closed/,
    applies: () => true,
    async start(ctx) {
      await ctx.webhook.down()
      await tripBreaker(ctx, 'webhook-down', 'soak_web')
    },
    async stop(ctx) {
      await ctx.webhook.up()
      await breakerCheck(ctx, 'webhook-down', 'soak-web', 'soak_web')
    },
  },
  commandFault('garbage'),
  {
    name: 'hook-file-broken',
    target: 'soak_md',
    cause: /soak-md version/,
    applies: () => true,
    async start(ctx) {
      // the version in force before the edit must stay in force while the file is broken
      this.cause = new RegExp(`soak-md version ${ctx.hookVersion}$`)
      writeFileSync(ctx.hookFile, hookFileText('broken'))
    },
    async stop(ctx) {
      ctx.hookVersion += 1
      const version = ctx.hookVersion
      writeFileSync(ctx.hookFile, hookFileText(version))
      const seen = await probeUntil(
        ctx.traffic,
        'soak_md',
        (a) => a.message.includes(`version ${version}`),
        10_000,
      )
      ctx.checks.push({
        check: 'hook file reloaded',
        ok: seen.ok,
        detail: seen.ok
          ? `version ${version} in force ${seen.waited} ms after the edit`
          : `${seen.answer?.message}`,
      })
    },
  },
  {
    name: 'disk-full',
    applies: (ctx) => ctx.backend === 'sqlite',
    async start(ctx) {
      const size = (path: string) => {
        try {
          return statSync(path).size
        } catch {
          return 0
        }
      }
      ctx.warden.limitFileSize(Math.min(size(ctx.db), size(`${ctx.db}-wal`)))
    },
    async stop(ctx) {
      ctx.warden.limitFileSize(undefined)
      await recoveryCheck(ctx, 'disk-full', 20_000)
    },
  },
  {
    name: 'postgres-restart',
    applies: (ctx) => ctx.backend === 'postgres',
    async start(ctx) {
      ctx.pg?.crash()
    },
    async stop(ctx) {
      ctx.pg?.start()
      await recoveryCheck(ctx, 'postgres-restart', 30_000)
    },
  },
  commandFault('signal'),
  {
    name: 'postgres-freeze',
    // a sync audit write waits at most 10 s (the writer's default deadline); 5 s more for a
    // busy machine; the freeze lasts longer than that
    minMs: 20_000,
    boundMs: 15_000,
    applies: (ctx) => ctx.backend === 'postgres',
    async start(ctx) {
      ctx.pg?.freeze(true)
    },
    async stop(ctx) {
      ctx.pg?.freeze(false)
      await recoveryCheck(ctx, 'postgres-freeze', 30_000)
    },
  },
]
