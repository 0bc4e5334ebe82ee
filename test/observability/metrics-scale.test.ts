// The scale metrics on /metrics: payload sizes per event, hooks registered per event (read
// from the engine at each scrape) and the event loop's delay since the previous scrape.

import Fastify from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/index.js'
import { createMetrics, registerMetrics, type WardenMetrics } from '../../src/observability/index.js'

const opened: WardenMetrics[] = []
afterEach(() => {
  for (const metrics of opened.splice(0)) metrics.close()
})

function fresh(): WardenMetrics {
  const metrics = createMetrics()
  opened.push(metrics)
  return metrics
}

/** The value of one exposition line, e.g. `name{label="x"}`. */
function seriesValue(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  if (line === undefined) throw new Error(`no series ${series} in:\n${text}`)
  return Number(line.slice(series.length + 1))
}

describe('scale metrics', () => {
  it('puts payload sizes in byte buckets per event, for events with and without hooks', async () => {
    const metrics = fresh()
    const engine = createEngine({
      hooks: [{ name: 'any', event: 'tool.pre', handler: { type: 'allow' } }],
      recorder: metrics.recorder,
    })
    const write = (content: string) =>
      engine.dispatch({ event: 'tool.pre', payload: { tool: { name: 'w', input: { content } } } })
    await write('small')
    await write('x'.repeat(3000))
    await write('y'.repeat(300_000))
    await engine.dispatch({
      event: 'user.message',
      payload: { message: { role: 'user', text: 'z'.repeat(2000) } },
    })
    const text = await metrics.render()
    expect(seriesValue(text, 'warden_payload_bytes_bucket{le="256",event="tool.pre"}')).toBe(1)
    expect(seriesValue(text, 'warden_payload_bytes_bucket{le="4096",event="tool.pre"}')).toBe(2)
    expect(seriesValue(text, 'warden_payload_bytes_bucket{le="262144",event="tool.pre"}')).toBe(2)
    expect(seriesValue(text, 'warden_payload_bytes_bucket{le="1048576",event="tool.pre"}')).toBe(3)
    expect(seriesValue(text, 'warden_payload_bytes_count{event="tool.pre"}')).toBe(3)
    const big = JSON.stringify({ tool: { name: 'w', input: { content: 'y'.repeat(300_000) } } }).length
    const small = JSON.stringify({ tool: { name: 'w', input: { content: 'small' } } }).length
    const middle = JSON.stringify({ tool: { name: 'w', input: { content: 'x'.repeat(3000) } } }).length
    expect(seriesValue(text, 'warden_payload_bytes_sum{event="tool.pre"}')).toBe(big + small + middle)
    // No hook for user.message: measured by the metrics themselves.
    expect(seriesValue(text, 'warden_payload_bytes_bucket{le="1024",event="user.message"}')).toBe(0)
    expect(seriesValue(text, 'warden_payload_bytes_bucket{le="4096",event="user.message"}')).toBe(1)
  })

  it('reports hooks registered per event at each scrape, following registrations', async () => {
    const metrics = fresh()
    const engine = createEngine({
      hooks: [
        { name: 'a', event: 'PreToolUse', handler: { type: 'allow' } },
        { name: 'b', event: 'tool.pre', scope: { tenant: 'acme' }, handler: { type: 'allow' } },
        { name: 'c', event: 'custom.*', handler: { type: 'allow' } },
      ],
    })
    let text = await metrics.render()
    expect(text).not.toContain('warden_hooks_registered{')
    metrics.watchHooks(engine)
    text = await metrics.render()
    expect(seriesValue(text, 'warden_hooks_registered{event="tool.pre"}')).toBe(2)
    expect(seriesValue(text, 'warden_hooks_registered{event="custom.*"}')).toBe(1)
    engine.unregister('c')
    engine.register({ name: 'd', event: 'user.message', handler: { type: 'allow' } })
    text = await metrics.render()
    expect(text).not.toContain('warden_hooks_registered{event="custom.*"}')
    expect(seriesValue(text, 'warden_hooks_registered{event="user.message"}')).toBe(1)
  })

  it('shows the event loop held up by synchronous work, then calm again after the scrape', async () => {
    const metrics = fresh()
    await new Promise((resolve) => setTimeout(resolve, 50))
    const until = performance.now() + 120
    while (performance.now() < until) {
      // Busy: the loop cannot run its timers.
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
    const app = Fastify()
    registerMetrics(app, metrics)
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    try {
      const held = await (await fetch(`${url}/metrics`)).text()
      expect(seriesValue(held, 'warden_event_loop_delay_seconds{quantile="1"}')).toBeGreaterThanOrEqual(0.1)
      expect(seriesValue(held, 'warden_event_loop_delay_seconds{quantile="0.5"}')).toBeLessThan(0.1)
      await new Promise((resolve) => setTimeout(resolve, 100))
      const calm = await (await fetch(`${url}/metrics`)).text()
      expect(seriesValue(calm, 'warden_event_loop_delay_seconds{quantile="1"}')).toBeLessThan(0.1)
    } finally {
      await app.close()
    }
  })
})
