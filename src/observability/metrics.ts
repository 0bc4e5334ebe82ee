// Prometheus metrics: decisions by event and outcome, dispatch and per-hook latency,
// hook errors, would-be denials of hooks in shadow mode, breaker trips, the audit queue depth and audit records dropped or failed,
// payload sizes, hooks registered per event and the event loop's delay, in a registry of
// their own, fed by a Recorder and served on GET /metrics.

import { monitorEventLoopDelay } from 'node:perf_hooks'
import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import { knownPayloadBytes, payloadBytes, type Recorder } from '../core/index.js'

const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
const BYTES = [256, 1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304]
/** The event-loop delay figures reported, as `quantile` label and percentile. */
const LOOP_QUANTILES = [
  ['0.5', 50],
  ['0.9', 90],
  ['0.99', 99],
  ['1', 100],
] as const

/** What the hooks-per-event gauge reads: anything listing hooks with their event (an Engine). */
export interface HookSource {
  hooks(): readonly { event: string }[]
}

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
  /** Reports the hooks registered per event on every scrape (pass the engine). */
  watchHooks(source: HookSource): void
  /** Stops sampling the event-loop delay. */
  close(): void
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
  const shadowDenials = new Counter({
    name: 'warden_shadow_denials_total',
    help: 'Denials hooks in shadow mode would have made (recorded, not applied), by hook and event.',
    labelNames: ['hook', 'event'] as const,
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
  const payloadSize = new Histogram({
    name: 'warden_payload_bytes',
    help: 'Size of event payloads as JSON: UTF-8 bytes when near the payload cap, characters (exact for ASCII) below a sixth of it.',
    labelNames: ['event'] as const,
    buckets: BYTES,
    registers,
  })
  let hookSource: HookSource | undefined
  new Gauge({
    name: 'warden_hooks_registered',
    help: 'Hooks registered, by the event they are registered for (wildcards such as custom.* as written).',
    labelNames: ['event'] as const,
    registers,
    collect() {
      this.reset()
      if (!hookSource) return
      const counts = new Map<string, number>()
      for (const hook of hookSource.hooks()) counts.set(hook.event, (counts.get(hook.event) ?? 0) + 1)
      for (const [event, count] of counts) this.set({ event }, count)
    },
  })
  const loop = monitorEventLoopDelay({ resolution: 10 })
  loop.enable()
  new Gauge({
    name: 'warden_event_loop_delay_seconds',
    help: 'How late the event loop ran timers since the previous scrape (quantile 1 is the maximum); a high figure means synchronous work held every request up.',
    labelNames: ['quantile'] as const,
    registers,
    collect() {
      for (const [quantile, percentile] of LOOP_QUANTILES) {
        const nanoseconds = loop.count > 0 ? loop.percentile(percentile) : 0
        this.set({ quantile }, nanoseconds / 1e9)
      }
      loop.reset()
    },
  })
  const recorder: Recorder = {
    record({ decision, event }) {
      const bytes = knownPayloadBytes(event.payload) ?? payloadBytes(event.payload, Number.POSITIVE_INFINITY)
      payloadSize.observe({ event: decision.event }, bytes)
      decisions.inc({ event: decision.event, decision: decision.decision })
      dispatch.observe({ event: decision.event }, decision.durationMs / 1000)
      for (const step of decision.trace) {
        if (step.outcome === 'skipped' || step.warden) continue
        hookLatency.observe(
          { handler: step.handler, event: decision.event, outcome: step.outcome },
          step.durationMs / 1000,
        )
        if (step.error)
          hookErrors.inc({ handler: step.handler, event: decision.event, kind: step.error.kind })
        if (step.shadow && step.outcome === 'deny')
          shadowDenials.inc({ hook: step.id, event: decision.event })
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
    watchHooks(source) {
      hookSource = source
    },
    close() {
      loop.disable()
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
