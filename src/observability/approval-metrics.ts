// Approvals on /metrics: how many asks this instance holds for a person right now, for
// dashboards and alerts ("approvals pending" in the Grafana example).

import { Gauge, type Registry } from 'prom-client'

/** Registers `warden_approvals_pending` in `registry`, read from `pending` at each scrape. */
export function registerApprovalMetrics(registry: Registry, pending: () => number): void {
  new Gauge({
    name: 'warden_approvals_pending',
    help: 'Asks held by this instance waiting for a person to approve, reject or edit them.',
    registers: [registry],
    collect() {
      this.set(pending())
    },
  })
}
