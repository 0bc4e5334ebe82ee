// Spans per dispatch and per hook (through a recording tracer), Prometheus metrics served
// by a real Fastify server on loopback, and JSON logs with secrets redacted.

import { Writable } from 'node:stream'
import { type Context, type Span, type SpanOptions, type Tracer, trace } from '@opentelemetry/api'
import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { fanOutRecorders } from '../../src/audit/index.js'
import { createEngine } from '../../src/index.js'
import {
  activeTraceId,
  createLogger,
  createMetrics,
  registerMetrics,
  traceEngine,
} from '../../src/observability/index.js'

interface Recorded {
  name: string
  attributes: Record<string, unknown>
  parent?: string
  id: string
  status?: { code: number; message?: string }
  start?: unknown
  end?: unknown
}

/** A tracer that keeps every span it makes, with its parent. */
function recordingTracer(): { tracer: Tracer; spans: Recorded[] } {
  const spans: Recorded[] = []
  let next = 0
  const make = (name: string, options: SpanOptions = {}, ctx?: Context): Span => {
    const id = (++next).toString(16).padStart(16, '0')
    const parent = ctx ? trace.getSpan(ctx)?.spanContext().spanId : undefined
    const record: Recorded = { name, attributes: { ...options.attributes }, id, start: options.startTime }
    if (parent) record.parent = parent
    spans.push(record)
    const span: Span = {
      spanContext: () => ({ traceId: 'a'.repeat(32), spanId: id, traceFlags: 1 }),
      setAttribute: (k, v) => {
        record.attributes[k] = v
        return span
      },
      setAttributes: (a) => {
        Object.assign(record.attributes, a)
        return span
      },
      addEvent: () => span,
      addLink: () => span,
      addLinks: () => span,
      setStatus: (s) => {
        record.status = s
        return span
      },
      updateName: () => span,
      end: (t) => {
        record.end = t ?? 'now'
      },
      isRecording: () => true,
      recordException: () => undefined,
    }
    return span
  }
  const tracer = {
    startSpan: make,
    startActiveSpan: (name: string, ...rest: unknown[]) => {
      const fn = rest[rest.length - 1] as (span: Span) => unknown
      const options = (rest.length > 1 ? rest[0] : {}) as SpanOptions
      return fn(make(name, options))
    },
  } as unknown as Tracer
  return { tracer, spans }
}

const exec = (cmd: string, tenantId = 'acme') => ({
  event: 'tool.pre',
  payload: { tool: { name: 'exec', input: { cmd } } },
  context: { tenantId },
})

describe('tracing', () => {
  it('makes a dispatch span with one child per hook that ran, carrying decision, hook, policy version and tenant', async () => {
    const { tracer, spans } = recordingTracer()
    const engine = traceEngine(
      createEngine({
        hooks: [
          {
            name: 'audit-only',
            event: 'tool.pre',
            priority: 1,
            handler: { type: 'fn', fn: () => undefined },
          },
          {
            name: 'no-rm',
            event: 'tool.pre',
            priority: 2,
            policy: { id: 'shell-safety', version: '7' },
            handler: { type: 'fn', fn: () => ({ decision: 'deny', reason: 'rm is not allowed' }) },
          },
          {
            name: 'other-tool',
            event: 'tool.pre',
            matcher: '^write$',
            handler: { type: 'fn', fn: () => undefined },
          },
        ],
      }),
      { tracer },
    )
    const decision = await engine.dispatch(exec('rm -rf /'))
    expect(decision.decision).toBe('deny')
    const root = spans.find((s) => s.name === 'warden.dispatch')
    expect(root?.attributes).toMatchObject({
      'warden.decision': 'deny',
      'warden.hook': 'no-rm',
      'warden.tenant': 'acme',
      'warden.event': 'tool.pre',
      'warden.policy.version': '7',
      'warden.decision.id': decision.id,
    })
    const children = spans.filter((s) => s.parent === root?.id)
    expect(children.map((c) => c.name)).toEqual(['hook.fn.tool.pre', 'hook.fn.tool.pre'])
    expect(children[1]?.attributes).toMatchObject({
      'warden.hook': 'no-rm',
      'warden.decision': 'deny',
      'warden.policy.version': '7',
      'warden.tenant': 'acme',
      'goclaw.event': 'pre_tool_use',
    })
    expect(children.every((c) => c.end !== undefined)).toBe(true)
    expect(root?.end).toBeDefined()
  })

  it('marks a failing hook span as an error, and is a no-op without an SDK', async () => {
    const { tracer, spans } = recordingTracer()
    const engine = traceEngine(
      createEngine({
        hooks: [
          {
            name: 'boom',
            event: 'tool.pre',
            handler: {
              type: 'fn',
              fn: () => {
                throw new Error('kaput')
              },
            },
          },
        ],
      }),
      { tracer },
    )
    await engine.dispatch(exec('ls'))
    expect(spans.find((s) => s.name === 'hook.fn.tool.pre')?.status).toMatchObject({
      code: 2,
      message: 'kaput',
    })
    const plain = traceEngine(createEngine({ hooks: [] }))
    expect((await plain.dispatch(exec('ls'))).decision).toBe('allow')
    expect(activeTraceId()).toBeUndefined()
  })
})

describe('metrics', () => {
  it('serves decisions, hook latency, errors, breaker trips and audit queue depth on /metrics', async () => {
    const metrics = createMetrics()
    metrics.watchAuditQueue(() => 42)
    metrics.auditDropped({ event: 'tool.pre', blocking: true, cause: 'queue-full' })
    metrics.auditWriteFailed()
    const engine = createEngine({
      hooks: [
        {
          name: 'no-rm',
          event: 'tool.pre',
          handler: {
            type: 'fn',
            fn: ({ event }: { event: { payload: { tool: { input: { cmd: string } } } } }) =>
              event.payload.tool.input.cmd.includes('rm') ? { decision: 'deny', reason: 'no' } : undefined,
          },
        },
        {
          name: 'flaky',
          event: 'user.message',
          handler: {
            type: 'fn',
            fn: () => {
              throw new Error('down')
            },
          },
        },
      ],
      recorder: fanOutRecorders([metrics.recorder]),
      limits: { breaker: { failures: 2, windowMs: 60_000 } },
    })
    await engine.dispatch(exec('rm x'))
    await engine.dispatch(exec('ls'))
    await engine.dispatch(exec('ls'))
    for (let i = 0; i < 2; i++)
      await engine.dispatch({ event: 'user.message', payload: { message: { role: 'user', text: 'hi' } } })
    await new Promise((r) => setTimeout(r, 10))

    const app = Fastify()
    registerMetrics(app, metrics)
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    try {
      const response = await fetch(`${url}/metrics`)
      expect(response.headers.get('content-type')).toContain('text/plain')
      const text = await response.text()
      expect(text).toContain('warden_decisions_total{event="tool.pre",decision="deny"} 1')
      expect(text).toContain('warden_decisions_total{event="tool.pre",decision="allow"} 2')
      expect(text).toContain('warden_decisions_total{event="user.message",decision="deny"} 2')
      expect(text).toMatch(
        /warden_hook_duration_seconds_count\{handler="fn",event="tool.pre",outcome="deny"\} 1/,
      )
      expect(text).toContain('warden_hook_errors_total{handler="fn",event="user.message",kind="error"} 2')
      expect(text).toContain('warden_breaker_trips_total{hook="flaky"} 1')
      expect(text).toContain('warden_audit_queue_depth 42')
      expect(text).toContain(
        'warden_audit_dropped_total{event="tool.pre",blocking="true",cause="queue-full"} 1',
      )
      expect(text).toContain('warden_audit_write_errors_total 1')
    } finally {
      await app.close()
    }
  })
})

describe('logger', () => {
  function memoryLogger() {
    const lines: string[] = []
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk))
        done()
      },
    })
    return { lines, logger: createLogger({ level: 'info', destination }) }
  }

  it('writes JSON lines and redacts secret fields', async () => {
    const { lines, logger } = memoryLogger()
    logger.info({ hook: 'remote', headers: { Authorization: 'Bearer s3cret' }, token: 'tok' }, 'hook saved')
    logger.debug('hidden at info')
    await new Promise((r) => setImmediate(r))
    expect(lines).toHaveLength(1)
    const line = JSON.parse(lines[0]!)
    expect(line).toMatchObject({ msg: 'hook saved', service: 'warden', hook: 'remote', level: 30 })
    expect(lines[0]).not.toContain('s3cret')
    expect(lines[0]).not.toContain('"tok"')
    expect(line.headers.Authorization).toBe('[redacted]')
  })

  it('keeps secrets out at any depth, in any case, in messages, URLs and errors', async () => {
    const { lines, logger } = memoryLogger()
    logger.warn(
      {
        hook: {
          handler: {
            type: 'http',
            headers: { 'X-Api-Key': 'k-111', cookie: 'sid=c-222', 'Set-Cookie': 'c-333' },
            auth: { clientSecret: 'cs-444', accessToken: 'at-555', passphrase: 'pp-666' },
          },
        },
        maxTokens: 5,
        db: 'postgres://warden:pw-777@db.internal:5432/warden',
        deep: { a: { b: { c: { d: { e: { password: 'pw-888' } } } } } },
      },
      'calling with Authorization: Bearer tok-999 against postgres://u:pw-000@h/x',
    )
    logger.error(new Error('connect to postgres://u:pw-aaa@h/x failed'))
    await new Promise((r) => setImmediate(r))
    expect(lines).toHaveLength(2)
    const all = lines.join('')
    for (const secret of [
      'k-111',
      'c-222',
      'c-333',
      'cs-444',
      'at-555',
      'pp-666',
      'pw-777',
      'pw-888',
      'tok-999',
      'pw-000',
      'pw-aaa',
    ])
      expect(all).not.toContain(secret)
    const first = JSON.parse(lines[0]!)
    expect(first.maxTokens).toBe(5)
    expect(first.db).toBe('postgres://warden:***@db.internal:5432/warden')
    expect(first.hook.handler.type).toBe('http')
    expect(first.msg).toContain('Bearer [redacted]')
    expect(JSON.parse(lines[1]!).err.message).toBe('connect to postgres://u:***@h/x failed')
  })
})
