// Prometheus metrics: decisions by event and outcome, dispatch and per-hook latency,
// hook errors, breaker trips, the audit queue depth and audit records dropped or failed,
// in a registry of their own, fed by a Recorder and served on GET /metrics.

import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { Recorder } from '../core/index.js'

const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** Warden's metrics and the recorder that feeds them. */
export interface WardenMetrics {
  registry: Registry
  /** Add to the engine's recorders. */
  recorder: Recorder
  /** Reports the audit queue depth on every scrape. */
  watchAuditQueue(depth: () => number): void
  /** Counts a decision whose audit record was refused (queue full, writer closed). */
  auditDropped(drop: { event: string; blocking: boolean; cause: string }): void
  /** Counts an audit batch that could not be written (it is retried). */
  auditWriteFailed(): void
  /** The exposition text. */
  render(): Promise<string>
  contentType: string
}

/** Creates the metrics in a fresh registry (or the one given). */
export function createMetrics(options: { registry?: Registry } = {}): WardenMetrics {
  const registry = options.registry ?? new Registry()
  const registers = [registry]
  const decisions = new Counter({
    name: 'warden_decisions_total',
    help: 'Decisions by event and final decision.',
    labelNames: ['event', 'decision'] as const,
    registers,
  })
  const dispatch = new Histogram({
    name: 'warden_dispatch_duration_seconds',
    help: 'Time to decide one event, all hooks included.',
    labelNames: ['event'] as const,
    buckets: SECONDS,
    registers,
  })
  const hookLatency = new Histogram({
    name: 'warden_hook_duration_seconds',
    help: 'Time one hook took, by handler type, event and outcome.',
    labelNames: ['handler', 'event', 'outcome'] as const,
    buckets: SECONDS,
    registers,
  })
  const hookErrors = new Counter({
    name: 'warden_hook_errors_total',
    help: 'Hooks that failed, timed out, answered garbage or were held by an open breaker.',
    labelNames: ['handler', 'event', 'kind'] as const,
    registers,
  })
  const trips = new Counter({
    name: 'warden_breaker_trips_total',
    help: 'Circuit breakers opened, by hook.',
    labelNames: ['hook'] as const,
    registers,
  })
  let queueDepth: (() => number) | undefined
  new Gauge({
    name: 'warden_audit_queue_depth',
    help: 'Decisions waiting to be written to the audit store.',
    registers,
    collect() {
      this.set(queueDepth ? queueDepth() : 0)
    },
  })
  const dropped = new Counter({
    name: 'warden_audit_dropped_total',
    help: 'Decisions whose audit record was refused (queue full or writer closed); blocking ones were denied.',
    labelNames: ['event', 'blocking', 'cause'] as const,
    registers,
  })
  const writeErrors = new Counter({
    name: 'warden_audit_write_errors_total',
    help: 'Audit batches the store refused; their records stay queued and are retried.',
    registers,
  })
  const recorder: Recorder = {
    record({ decision }) {
      decisions.inc({ event: decision.event, decision: decision.decision })
      dispatch.observe({ event: decision.event }, decision.durationMs / 1000)
      for (const step of decision.trace) {
        if (step.outcome === 'skipped') continue
        hookLatency.observe(
          { handler: step.handler, event: decision.event, outcome: step.outcome },
          step.durationMs / 1000,
        )
        if (step.error)
          hookErrors.inc({ handler: step.handler, event: decision.event, kind: step.error.kind })
      }
    },
    breakerTripped(trip) {
      trips.inc({ hook: trip.hookId })
    },
  }
  return {
    registry,
    recorder,
    watchAuditQueue(depth) {
      queueDepth = depth
    },
    auditDropped({ event, blocking, cause }) {
      dropped.inc({ event, blocking: blocking ? 'true' : 'false', cause })
    },
    auditWriteFailed() {
      writeErrors.inc()
    },
    render: () => registry.metrics(),
    contentType: registry.contentType,
  }
}

/** The smallest part of an HTTP app the metrics route needs (Fastify fits). */
export interface RouteHost {
  get(
    path: string,
    handler: (
      request: unknown,
      reply: { header(name: string, value: string): unknown; send(body: string): unknown },
    ) => Promise<unknown>,
  ): unknown
}

/** Adds GET /metrics to an app. */
export function registerMetrics(app: RouteHost, metrics: WardenMetrics): void {
  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', metrics.contentType)
    return reply.send(await metrics.render())
  })
}

/** A server plugin that adds GET /metrics. */
export function metricsPlugin(metrics: WardenMetrics): (app: RouteHost) => void {
  return (app) => registerMetrics(app, metrics)
}
