// The soak's /aos traffic: one request template per AOS method (taken from the AOS spec's
// examples in test/fixtures), sent for several tenants, alone, as batches and as
// notifications, with tool calls aimed at the hooks that faults are injected into. Every
// request is followed to its end: an answer, a connection error, or (past HANG_MS) a hang.
// Each answered decision id is logged with when it was answered.

import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Pool } from 'undici'
import { ROOT } from './warden.js'

/** A request that got no answer and no connection error within this long counts as hung. */
export const HANG_MS = 20_000
const TENANTS = ['t0', 't1', 't2', 't3']
/** The tenant the fault checks call as (a breaker counts failures per hook and tenant). */
export const CHECK_TENANT = 't0'
/** Tools the faults aim at: each picked for this share of tool calls. */
export const FAULT_TOOLS = ['soak_cmd', 'soak_web', 'soak_md'] as const
type Json = Record<string, unknown>

/** One answered decision as the client saw it. */
export interface Answer {
  decisionId: string
  decision: string
  message: string
  reasonCode: string[]
  tool: string | undefined
  sentAt: number
  answeredAt: number
}

/** Told about every answered decision (used by faults to check what was answered). */
export type AnswerListener = (answer: Answer) => void

function requestTemplates(): Json[] {
  const dir = join(ROOT, 'test/fixtures/aos/examples')
  const byMethod = new Map<string, Json>()
  for (const file of readdirSync(dir).sort()) {
    const value = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Json
    const params = value.params as Json | undefined
    // the A2A and MCP examples come in pairs: the bare protocol message, then the AOS
    // request that carries it in params.payload; only the latter is an AOS request
    const method = typeof value.method === 'string' ? value.method : ''
    const aos = method.startsWith('steps/') || (method !== '' && typeof params?.payload === 'object')
    if (aos && !byMethod.has(method)) byMethod.set(method, value)
  }
  byMethod.set('ping', { jsonrpc: '2.0', method: 'ping', params: {} })
  return [...byMethod.values()]
}

/**
 * A tool call for `tool`, with a shell command: sometimes one the config denies, never for
 * the tools faults aim at (their denies must come from the fault).
 */
function toolCall(tool: string, n: number): Json {
  const denied = n % 7 === 0 && !(FAULT_TOOLS as readonly string[]).includes(tool)
  const cmd = denied ? 'rm -rf /srv/data' : `ls -la /srv/${n % 100}`
  return {
    jsonrpc: '2.0',
    method: 'steps/toolCallRequest',
    params: {
      toolCallRequest: { executionId: `x${n}`, toolId: tool, inputs: [{ name: 'cmd', value: cmd }] },
      context: { agent: { id: `agent-${n % 5}`, name: 'soak' }, session: { id: `s${n % 50}` } },
    },
  }
}

/** Counters of what happened to the requests. */
export interface TrafficStats {
  sent: number
  answered: number
  decisions: number
  connectionErrors: number
  hung: number
  httpErrors: number
  rpcErrors: number
  /** Same decision id answered twice. */
  duplicateIds: number
  /** Not sent because too many were outstanding (the server was far behind). */
  shed: number
  lastRpcError: string
  lastHttpError: string
}

/** Sends the mixed traffic and keeps the client's log. */
export class Traffic {
  private pool: Pool
  private readonly templates = requestTemplates()
  private n = 0
  /** Tool calls aimed at a fault's tool so far (round robin over them). */
  private aimed = 0
  private outstanding = 0
  private settled: (() => void)[] = []
  /** Decision id → when it was answered (ms since the epoch). */
  readonly answered = new Map<string, number>()
  /** Decisions denied because their record could not be written (reasonCode `audit`). */
  readonly refused = new Set<string>()
  readonly stats: TrafficStats = {
    sent: 0,
    answered: 0,
    decisions: 0,
    connectionErrors: 0,
    hung: 0,
    httpErrors: 0,
    rpcErrors: 0,
    duplicateIds: 0,
    shed: 0,
    lastRpcError: '',
    lastHttpError: '',
  }
  listener: AnswerListener | undefined

  constructor(
    private origin: string,
    private readonly maxOutstanding = 4000,
  ) {
    this.pool = this.newPool()
  }

  private newPool(): Pool {
    return new Pool(this.origin, {
      // a connection for every request that may be out (agents do not queue behind each
      // other), closed again after 4 s idle so that the server's fds settle after a fault
      connections: this.maxOutstanding,
      headersTimeout: HANG_MS,
      bodyTimeout: HANG_MS,
      keepAliveTimeout: 4000,
      keepAliveMaxTimeout: 4000,
      connect: { timeout: 5000 },
    })
  }

  /** Points the traffic at a restarted server (when its URL changed). */
  setOrigin(origin: string): void {
    if (origin === this.origin) return
    this.origin = origin
    const old = this.pool
    this.pool = this.newPool()
    void old.destroy().catch(() => undefined)
  }

  /** The next body of the mix: mostly single requests, some batches and notifications. */
  private nextBody(): string {
    const n = ++this.n
    const one = (k: number): Json => {
      if (k % 3 === 0) {
        const tool =
          k % 4 === 0 ? (FAULT_TOOLS[this.aimed++ % FAULT_TOOLS.length] as string) : `tool_${k % 20}`
        return toolCall(tool, k)
      }
      return this.templates[k % this.templates.length] as Json
    }
    const withId = (request: Json, id: string): Json => ({ ...request, id })
    const notification = (request: Json): Json => {
      const { id: _id, ...rest } = request
      return rest
    }
    if (n % 20 === 0) {
      const batch = [0, 1, 2].map((i) => withId(one(n * 3 + i), `b${n}-${i}`))
      batch.push(notification(one(n * 3 + 3)))
      return JSON.stringify(batch)
    }
    if (n % 25 === 1) return JSON.stringify(notification(one(n)))
    return JSON.stringify(withId(one(n), `r${n}`))
  }

  /** Sends one request of the mix; resolves when it is over, however it ended. */
  sendNext(): Promise<void> {
    return this.send(this.nextBody())
  }

  /**
   * Sends a tool call for `tool` (a probe), as `tenant` when given (else the next tenant of
   * the rotation); resolves with the decision, if one came.
   */
  async probe(tool: string, tenant?: string): Promise<Answer | undefined> {
    let got: Answer | undefined
    const body = JSON.stringify({ ...toolCall(tool, ++this.n), id: `p${this.n}` })
    await this.send(
      body,
      (a) => {
        got = a
      },
      tenant,
    )
    return got
  }

  /** Sends a body as `tenant` (default: the next of the rotation); resolves when it is over. */
  async send(body: string, onAnswer?: (answer: Answer) => void, as?: string): Promise<void> {
    if (this.outstanding >= this.maxOutstanding) {
      this.stats.shed++
      return
    }
    this.outstanding++
    this.stats.sent++
    const sentAt = Date.now()
    const tenant = as ?? (TENANTS[this.n % TENANTS.length] as string)
    try {
      const response = await this.pool.request({
        path: '/aos',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-warden-tenant': tenant },
        body,
      })
      const text = await response.body.text()
      this.stats.answered++
      if (response.statusCode >= 300) {
        this.stats.httpErrors++
        this.stats.lastHttpError = `${response.statusCode} ${text.slice(0, 200)}`
        return
      }
      if (text.length > 0) this.read(JSON.parse(text), body, sentAt, onAnswer)
    } catch (error) {
      const code = (error as { code?: string }).code ?? ''
      if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') this.stats.hung++
      else this.stats.connectionErrors++
    } finally {
      this.outstanding--
      if (this.outstanding === 0) for (const done of this.settled.splice(0)) done()
    }
  }

  private read(value: unknown, body: string, sentAt: number, onAnswer?: (answer: Answer) => void): void {
    const answeredAt = Date.now()
    const sent = JSON.parse(body) as Json | Json[]
    const requests = Array.isArray(sent) ? sent : [sent]
    for (const item of Array.isArray(value) ? value : [value]) {
      const response = item as { id?: unknown; result?: Json; error?: { message?: string } }
      if (response.error) {
        this.stats.rpcErrors++
        this.stats.lastRpcError = String(response.error.message).slice(0, 200)
        continue
      }
      const result = response.result
      const data = result?.data as { decisionId?: string } | undefined
      if (!result || !data?.decisionId) continue
      const request = requests.find((r) => r.id === response.id)
      const params = request?.params as { toolCallRequest?: { toolId?: string } } | undefined
      const answer: Answer = {
        decisionId: data.decisionId,
        decision: String(result.decision),
        message: String(result.message),
        reasonCode: Array.isArray(result.reasonCode) ? (result.reasonCode as string[]) : [],
        tool: params?.toolCallRequest?.toolId,
        sentAt,
        answeredAt,
      }
      this.stats.decisions++
      if (this.answered.has(answer.decisionId)) this.stats.duplicateIds++
      this.answered.set(answer.decisionId, answeredAt)
      if (answer.reasonCode.includes('audit')) this.refused.add(answer.decisionId)
      onAnswer?.(answer)
      this.listener?.(answer)
    }
  }

  /** Waits until no request is outstanding (each ends by HANG_MS at the latest). */
  drained(): Promise<void> {
    if (this.outstanding === 0) return Promise.resolve()
    return new Promise((resolve) => this.settled.push(resolve))
  }

  /** Sends at most `concurrency` at a time for `ms`; returns the answered requests per second. */
  async closedLoop(concurrency: number, ms: number): Promise<number> {
    const end = Date.now() + ms
    const before = this.stats.answered
    const worker = async () => {
      while (Date.now() < end) await this.sendNext()
    }
    await Promise.all(Array.from({ length: concurrency }, worker))
    return ((this.stats.answered - before) * 1000) / ms
  }

  /** Sends at `rate` per second, open loop, until `until()` says stop. */
  async paced(rate: () => number, until: () => boolean): Promise<void> {
    let last = performance.now()
    let credit = 0
    while (!until()) {
      await new Promise((resolve) => setTimeout(resolve, 5))
      const now = performance.now()
      credit += ((now - last) / 1000) * rate()
      last = now
      while (credit >= 1) {
        credit -= 1
        void this.sendNext()
      }
    }
  }

  async close(): Promise<void> {
    await this.pool.destroy().catch(() => undefined)
  }
}
