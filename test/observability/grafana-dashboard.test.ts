// The Grafana dashboard in examples/grafana/warden.json: it loads as a dashboard (panels
// with unique ids, a Prometheus datasource input, every panel with a query), and every
// metric its PromQL names is one a real `warden serve` exports on /metrics (with
// notifications: and ocsf: configured, so their metrics are there too).

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/cli.js'
import { aos, type Loose, type Served, serve, tempDir, toolCall } from '../server/management-helper.js'

const dashboard = JSON.parse(readFileSync(join(ROOT, 'examples/grafana/warden.json'), 'utf8'))
const dir = tempDir('warden-grafana-')
let warden: Served
/** Sample names /metrics exposes (histograms as _bucket, _sum and _count). */
const exported = new Set<string>()

beforeAll(async () => {
  warden = await serve({
    dir,
    name: 'grafana',
    db: join(dir, 'warden.db'),
    env: { NOTIFY_SECRET: 'grafana-test-secret' },
    yaml: `
notifications:
  routes: [{ name: ops, type: webhook, url: "https://hooks.example.invalid/warden", secret: env:NOTIFY_SECRET }]
ocsf:
  file: { path: ocsf/decisions.jsonl }
hooks:
  - { name: no-rm, event: tool.pre, matcher: "^rm$", handler: { type: deny, reason: "no rm" } }
`,
  })
  await aos(warden.url, toolCall('rm', {}))
  const text = await (await fetch(`${warden.url}/metrics`)).text()
  for (const line of text.split('\n')) {
    const typed = /^# TYPE (\S+) (\S+)/.exec(line)
    if (typed?.[1]) {
      exported.add(typed[1])
      if (typed[2] === 'histogram')
        for (const end of ['_bucket', '_sum', '_count']) exported.add(`${typed[1]}${end}`)
    }
  }
})

afterAll(async () => {
  await warden?.stop()
})

function queries(): { panel: string; expr: string }[] {
  const found: { panel: string; expr: string }[] = []
  for (const panel of dashboard.panels as Loose[])
    for (const target of panel.targets ?? []) found.push({ panel: panel.title, expr: target.expr })
  for (const variable of dashboard.templating.list as Loose[])
    found.push({ panel: `$${variable.name}`, expr: variable.query.query })
  return found
}

describe('examples/grafana/warden.json', () => {
  it('is a dashboard with a Prometheus input and a query in every panel', () => {
    expect(dashboard.__inputs).toEqual([
      expect.objectContaining({ name: 'DS_PROMETHEUS', pluginId: 'prometheus' }),
    ])
    const ids = dashboard.panels.map((p: Loose) => p.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const panel of dashboard.panels as Loose[]) {
      if (panel.type === 'row') continue
      expect(panel.datasource.uid, panel.title).toBe(['$', '{DS_PROMETHEUS}'].join(''))
      expect(panel.targets.length, panel.title).toBeGreaterThan(0)
      expect(panel.gridPos).toMatchObject({ w: expect.any(Number), h: expect.any(Number) })
    }
    const titles = dashboard.panels.map((p: Loose) => p.title)
    for (const wanted of [
      'Decisions by outcome',
      'Deny rate',
      'Hook latency p99 by handler',
      'Breakers opened',
      'Approvals pending',
      'Audit queue depth',
      'In-flight refusals',
    ])
      expect(titles).toContain(wanted)
  })

  it('names only metrics that warden serve exports', () => {
    expect(exported.size).toBeGreaterThan(10)
    const all = queries()
    expect(all.length).toBeGreaterThan(15)
    for (const { panel, expr } of all) {
      const names = expr.match(/\bwarden_[a-z0-9_]+/g) ?? []
      expect(names.length, `${panel}: ${expr}`).toBeGreaterThan(0)
      for (const name of names)
        expect(exported.has(name), `${panel} names ${name}, which /metrics lacks`).toBe(true)
      let depth = 0
      for (const char of expr) {
        if (char === '(' || char === '{' || char === '[') depth++
        if (char === ')' || char === '}' || char === ']') depth--
        expect(depth, `${panel}: unbalanced ${expr}`).toBeGreaterThanOrEqual(0)
      }
      expect(depth, `${panel}: unbalanced ${expr}`).toBe(0)
    }
  })
})
