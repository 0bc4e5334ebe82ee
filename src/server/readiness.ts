// `GET /readyz`: whether this instance should be sent traffic. It fails (503, the cause as
// JSON) while the store cannot be reached within two seconds or the audit queue holds more
// than half of `audit.maxQueue` (so a load balancer drains the instance before its records
// are refused), and while shutting down. `GET /healthz` stays the liveness check: it answers
// as long as the process serves HTTP.

import type { FastifyInstance } from 'fastify'
import { errorMessage } from '../core/index.js'

/** What {@link readinessPlugin} checks. */
export interface ReadinessOptions {
  /** One round trip to the database. */
  ping(): Promise<void>
  /** Decisions waiting to be written. */
  queueDepth(): number
  /** `audit.maxQueue`: readiness fails beyond half of it. */
  maxQueue: number
  /** Longest wait for the ping, in ms. Default 2000. */
  timeoutMs?: number
}

/** The outcome of one readiness check. */
export interface Readiness {
  ready: boolean
  cause?: string
  store: 'ok' | 'unreachable'
  auditQueue: { depth: number; limit: number }
}

/** Runs the checks once. */
export async function checkReadiness(options: ReadinessOptions): Promise<Readiness> {
  const timeoutMs = options.timeoutMs ?? 2_000
  const limit = Math.max(1, Math.floor(options.maxQueue / 2))
  const depth = options.queueDepth()
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`it did not answer within ${timeoutMs} ms`)), timeoutMs)
  })
  let storeProblem: string | undefined
  try {
    await Promise.race([options.ping(), late])
  } catch (error) {
    // The driver's error code rather than its message, which may name the database's address.
    const code = (error as { code?: unknown }).code
    storeProblem = `the database cannot be reached: ${typeof code === 'string' ? code : errorMessage(error)}`
  } finally {
    clearTimeout(timer)
  }
  const queueProblem =
    depth > limit
      ? `the audit queue holds ${depth} decisions, over the readiness limit of ${limit} (half of audit.maxQueue)`
      : undefined
  const cause = [storeProblem, queueProblem].filter(Boolean).join('; ')
  return {
    ready: cause === '',
    ...(cause ? { cause } : {}),
    store: storeProblem ? 'unreachable' : 'ok',
    auditQueue: { depth, limit },
  }
}

/** Mounts `GET /readyz`. */
export function readinessPlugin(options: ReadinessOptions): (app: FastifyInstance) => void {
  return (app) => {
    let closing = false
    app.addHook('preClose', async () => {
      closing = true
    })
    app.get('/readyz', async (_request, reply) => {
      if (closing) {
        return reply
          .code(503)
          .header('connection', 'close')
          .send({ status: 'not-ready', cause: 'the instance is shutting down' })
      }
      const result = await checkReadiness(options)
      const body = {
        status: result.ready ? 'ready' : 'not-ready',
        ...(result.cause ? { cause: result.cause } : {}),
        checks: { store: result.store, auditQueue: result.auditQueue },
      }
      return reply.code(result.ready ? 200 : 503).send(body)
    })
  }
}
