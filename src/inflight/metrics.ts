// The in-flight limits on /metrics: refusals by limit, and the requests and bytes in
// flight at each scrape.

import { Counter, Gauge, type Registry } from 'prom-client'
import type { InFlightLimiter } from './limiter.js'

/** Registers the limiter's metrics in `registry` (call once per registry). */
export function registerInFlightMetrics(registry: Registry, limiter: InFlightLimiter): void {
  const registers = [registry]
  const refused = new Counter({
    name: 'warden_inflight_refused_total',
    help: 'Requests answered 503 because a limit on requests or bytes in flight was reached, by limit.',
    labelNames: ['limit'] as const,
    registers,
  })
  for (const limit of ['maxInFlight', 'maxInFlightBytes'] as const) refused.inc({ limit }, 0)
  limiter.onRefused((refusal) => refused.inc({ limit: refusal.limit }))
  new Gauge({
    name: 'warden_inflight_requests',
    help: 'Requests with a body being read or answered now.',
    registers,
    collect() {
      this.set(limiter.requests())
    },
  })
  new Gauge({
    name: 'warden_inflight_bytes',
    help: 'Body bytes held by the requests in flight now.',
    registers,
    collect() {
      this.set(limiter.bytes())
    },
  })
}
