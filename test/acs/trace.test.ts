// ACS-Trace over real `/acs` (trace/events.md, handshake.json `trace_emission`): with an
// OpenTelemetry tracer provider registered, every answered step is a span named by the
// spec's table with its required attributes, provenance and Intent facts, and the decision
// as the `acs.decision` span event; a failing trace sink never changes an answer.

import { type Attributes, type Span, type SpanContext, type Tracer, trace } from '@opentelemetry/api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/index.js'
import type { AcsRequest } from '../../src/protocols/acs/core/index.js'
import { acsRequest, clientHello, createAcsService, settingsWith } from '../../src/protocols/acs/index.js'
import { createTraceEmitter, traceEmission } from '../../src/protocols/acs/profiles/index.js'
import { type AcsGuardian, KEY, startAcs } from './helper.js'

interface Recorded {
  name: string
  attributes: Attributes
  events: { name: string; attributes: Attributes }[]
  ended: boolean
}

const spans: Recorded[] = []

/** A span that keeps what it is given. */
function recordingSpan(name: string): Span {
  const record: Recorded = { name, attributes: {}, events: [], ended: false }
  spans.push(record)
  const context: SpanContext = { traceId: `${'0'.repeat(31)}1`, spanId: `${'0'.repeat(15)}1`, traceFlags: 1 }
  const span: Span = {
    spanContext: () => context,
    setAttribute: (key, value) => {
      if (value !== undefined) record.attributes[key] = value
      return span
    },
    setAttributes: (attributes) => {
      Object.assign(record.attributes, attributes)
      return span
    },
    addEvent: (eventName, attributes) => {
      record.events.push({ name: eventName, attributes: (attributes ?? {}) as Attributes })
      return span
    },
    addLink: () => span,
    addLinks: () => span,
    setStatus: () => span,
    updateName: () => span,
    end: () => {
      record.ended = true
    },
    isRecording: () => true,
    recordException: () => undefined,
  }
  return span
}

const tracer = {
  startSpan: (name: string) => recordingSpan(name),
  startActiveSpan: (name: string, ...rest: unknown[]) =>
    (rest[rest.length - 1] as (span: Span) => unknown)(recordingSpan(name)),
} as unknown as Tracer

let g: AcsGuardian

beforeAll(async () => {
  trace.setGlobalTracerProvider({ getTracer: () => tracer })
  g = await startAcs({
    hooks: [
      { name: 'no-delete', event: 'tool.pre', matcher: '^rm$', handler: { type: 'deny', reason: 'no rm' } },
    ],
  })
})
afterAll(async () => {
  await g?.close()
  trace.disable()
})

function acsSpans(name: string): Recorded[] {
  return spans.filter((s) => s.name === name)
}

describe('ACS-Trace', () => {
  it('announces trace_emission in the ServerHello and accepts acs-trace', async () => {
    const hello = await g.post(
      clientHello('s-trace-hello', { profiles_supported: ['acs-core', 'acs-trace'] }, { key: KEY }),
    )
    expect(hello.body.result.trace_emission).toEqual({ otel_enabled: true, ocsf_enabled: false })
    expect(hello.body.result.profiles_accepted).toEqual(['acs-core', 'acs-trace'])
    expect(traceEmission({ otel: false, ocsf: false, collectorEndpoint: 'https://otel.example' })).toEqual({
      otel_enabled: false,
      ocsf_enabled: false,
      otel_collector_endpoint: 'https://otel.example',
    })
  })

  it('emits each step as its span with the required attributes and the decision as an event', async () => {
    const sessionId = await g.session()
    const intent = { parsed: ['*'], parser_provenance: { origin: 'user_input' }, scope_mode: 'permissive' }
    await g.post(acsRequest('steps/sessionStart', { intent }, { sessionId, key: KEY }))
    await g.post(acsRequest('steps/userMessage', { message: 'hello' }, { sessionId, key: KEY }))
    const call = {
      tool: { name: 'rm', provider: 'local' },
      capability: 'filesystem.delete',
      arguments: { path: { value: '/tmp/x', provenance: { origin: 'tool_output', source_id: 'ls' } } },
    }
    const denied = await g.post(acsRequest('steps/toolCallRequest', call, { sessionId, key: KEY }))
    expect(denied.body.result.decision).toBe('deny')

    const session = acsSpans('acs.session').find((s) => s.attributes['acs.session.id'] === sessionId)
    expect(session?.attributes['acs.intent.scope_mode']).toBe('permissive')
    const message = acsSpans('acs.message.user').find((s) => s.attributes['acs.session.id'] === sessionId)
    expect(message?.attributes['acs.content.types']).toEqual(['text'])
    const tool = acsSpans('gen_ai.tool.call').find((s) => s.attributes['acs.session.id'] === sessionId)
    expect(tool?.ended).toBe(true)
    expect(tool?.attributes).toMatchObject({
      'gen_ai.tool.name': 'rm',
      'acs.capability': 'filesystem.delete',
      'acs.tool.provider': 'local',
      'acs.provenance.origin': 'tool_output',
      'acs.provenance.source_id': 'ls',
      'acs.agent.id': 'agent-1',
    })
    expect(tool?.events).toHaveLength(1)
    expect(tool?.events[0]?.name).toBe('acs.decision')
    expect(tool?.events[0]?.attributes).toMatchObject({
      'acs.decision': 'deny',
      'acs.evaluator': 'deterministic',
      'acs.reasoning': 'no rm',
      'acs.chain_hash': denied.body.result.chain_hash,
    })
  })

  it('a failing tracer changes nothing, and emission can be switched off', () => {
    const broken = {
      startSpan: () => {
        throw new Error('sink down')
      },
    } as unknown as Tracer
    const request = {
      method: 'steps/toolCallRequest',
      sessionId: 's',
      agentId: 'a',
      requestId: 'r',
      payload: { tool: { name: 'x' } },
    } as unknown as AcsRequest
    expect(() =>
      createTraceEmitter({ otel: true, ocsf: false }, broken)(request, { decision: 'allow' }, undefined),
    ).not.toThrow()
    const before = spans.length
    createTraceEmitter({ otel: false, ocsf: false }, tracer)(request, { decision: 'allow' }, undefined)
    expect(spans.length).toBe(before)
  })
})

describe('OCSF emission announced in the ServerHello', () => {
  const hello = async (ocsfEnabled: boolean | undefined, otel: boolean) => {
    const engine = createEngine({ hooks: [] })
    const service = createAcsService({
      engine,
      settings: settingsWith({ keys: [{ ...KEY }], trace: { otel, ocsf: false } }),
      ...(ocsfEnabled === undefined ? {} : { ocsfEnabled }),
    })
    const reply = (await service.handle(
      clientHello('s-ocsf', { profiles_supported: ['acs-core', 'acs-trace'] }, { key: KEY }),
    )) as { result: { trace_emission: unknown; profiles_accepted: string[] } }
    await engine.close()
    return reply.result
  }

  it('says ocsf_enabled only when the server turns it on, and then accepts acs-trace without OTel', async () => {
    expect((await hello(undefined, false)).trace_emission).toEqual({
      otel_enabled: false,
      ocsf_enabled: false,
    })
    expect((await hello(undefined, false)).profiles_accepted).not.toContain('acs-trace')
    const on = await hello(true, false)
    expect(on.trace_emission).toEqual({ otel_enabled: false, ocsf_enabled: true })
    expect(on.profiles_accepted).toContain('acs-trace')
    expect((await hello(false, true)).trace_emission).toEqual({ otel_enabled: true, ocsf_enabled: false })
  })
})
