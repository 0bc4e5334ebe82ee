// ACS-Trace (trace/events.md): every evaluated step as an OpenTelemetry span named by the
// spec's table (`gen_ai.tool.call`, `acs.session`, ...) with its required attributes taken
// from the payload, provenance facts (`acs.provenance.*`) and the session's Intent, and the
// decision as the `acs.decision` span event on it. Through @opentelemetry/api only: spans
// are recorded once an OpenTelemetry SDK is registered, and emission never changes or
// delays the answer (a failure is swallowed, an unrecorded span costs one no-op call).

import { type Attributes, SpanKind, type Tracer, trace } from '@opentelemetry/api'
import type { Json, JsonObject } from '../../../core/index.js'
import type { AcsRequest } from '../core/index.js'
import type { AcsTraceSettings } from './approver-settings.js'

/** The span name of each `steps/*` hook (trace/events.md). */
const SPAN_NAMES: Record<string, string> = {
  sessionStart: 'acs.session',
  agentTrigger: 'acs.agent.trigger',
  userMessage: 'acs.message.user',
  agentResponse: 'acs.message.agent',
  toolCallRequest: 'gen_ai.tool.call',
  toolCallResult: 'gen_ai.tool.result',
  knowledgeRetrieval: 'acs.knowledge.retrieval',
  memoryStore: 'acs.memory.store',
  memoryContextRetrieval: 'acs.memory.retrieval',
  sessionEnd: 'acs.session.end',
  turnStart: 'acs.turn',
  turnEnd: 'acs.turn.end',
  preCompact: 'acs.compact',
  postCompact: 'acs.compact.complete',
  subagentStart: 'acs.subagent',
  subagentStop: 'acs.subagent.end',
  skillRegister: 'acs.skill.register',
  skillLoad: 'acs.skill.load',
  skillUnload: 'acs.skill.unload',
}

/** Attributes read from payload paths (the first present wins), per span name. */
const PAYLOAD_ATTRIBUTES: Record<string, [string, string[]][]> = {
  'acs.agent.trigger': [['acs.trigger.type', ['trigger_type']]],
  'gen_ai.tool.call': [
    ['gen_ai.tool.name', ['tool.name', 'tool.id', 'tool']],
    ['acs.capability', ['capability']],
    ['acs.tool.provider', ['tool.provider']],
  ],
  'gen_ai.tool.result': [
    ['gen_ai.tool.name', ['tool.name', 'tool.id', 'tool', 'execution_id']],
    ['acs.exit_status', ['exit_status', 'status']],
    ['acs.duration_ms', ['duration_ms']],
  ],
  'acs.knowledge.retrieval': [['acs.source.type', ['source.type', 'source_type']]],
  'acs.memory.store': [
    ['acs.memory_store.name', ['memory_store.name', 'store.name', 'memory_store']],
    ['acs.operation', ['operation']],
  ],
  'acs.memory.retrieval': [['acs.memory_store.name', ['memory_store.name', 'store.name', 'memory_store']]],
  'acs.session.end': [['acs.session.reason', ['session_reason', 'reason']]],
  'acs.turn': [
    ['acs.turn.id', ['turn_id']],
    ['acs.turn.triggered_by', ['triggered_by']],
  ],
  'acs.turn.end': [
    ['acs.turn.id', ['turn_id']],
    ['acs.turn.outcome', ['outcome']],
  ],
  'acs.compact': [
    ['acs.compact.entry_count', ['entry_count']],
    ['acs.compact.triggered_by', ['triggered_by']],
  ],
  'acs.compact.complete': [
    ['acs.compact.entry_count', ['entry_count']],
    ['acs.compact.lineage_depth_after', ['lineage_depth_after']],
  ],
  'acs.subagent': [
    ['acs.subagent.session_id', ['subagent_session_id']],
    ['acs.subagent.parent_session_id', ['parent_session_id']],
    ['acs.subagent.intent_derivation', ['intent_derivation']],
  ],
  'acs.subagent.end': [
    ['acs.subagent.session_id', ['subagent_session_id']],
    ['acs.subagent.parent_session_id', ['parent_session_id']],
    ['acs.subagent.outcome', ['outcome']],
    ['acs.subagent.final_chain_hash', ['final_chain_hash']],
  ],
  'acs.skill.register': [
    ['acs.skill.id', ['skill.id', 'skill_id']],
    ['acs.skill.digest.algorithm', ['skill.digest.algorithm', 'digest.algorithm']],
    ['acs.skill.digest.value', ['skill.digest.value', 'digest.value']],
    ['acs.skill.declared_capabilities', ['skill.declared_capabilities', 'declared_capabilities']],
  ],
  'acs.skill.load': [
    ['acs.skill.id', ['skill.id', 'skill_id']],
    ['acs.skill.digest.algorithm', ['skill.digest.algorithm', 'digest.algorithm']],
    ['acs.skill.digest.value', ['skill.digest.value', 'digest.value']],
    ['acs.skill.load_trigger', ['load_trigger']],
    ['acs.skill.load_path', ['load_path']],
  ],
  'acs.skill.unload': [
    ['acs.skill.id', ['skill.id', 'skill_id']],
    ['acs.skill.reason', ['reason']],
    ['acs.skill.replaced_by', ['replaced_by']],
  ],
  'acs.agbom': [['acs.agbom.format', ['format']]],
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function at(payload: JsonObject, path: string): Json | undefined {
  let value: Json | undefined = payload
  for (const key of path.split('.')) value = isObject(value) ? value[key] : undefined
  return value
}

/** An attribute value: a string, number or boolean, or a list of strings. */
function attributeValue(value: Json | undefined): string | number | boolean | string[] | undefined {
  if (typeof value === 'string') return value.slice(0, 1024)
  if (typeof value === 'number' || typeof value === 'boolean') return value
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.slice(0, 64) as string[]
  if (isObject(value) && typeof value.name === 'string') return value.name
  return undefined
}

/** The span name of a method: the spec's table, `acs.agbom`, or `acs.protocols.mcp` for wrapped MCP. */
export function spanNameOf(method: string): string {
  if (method.startsWith('steps/')) return SPAN_NAMES[method.slice(6)] ?? 'acs.step'
  if (method.startsWith('agbom/')) return 'acs.agbom'
  return 'acs.protocols.mcp'
}

/** The first Provenance in a payload: its own, or the first argument's (§7). */
function provenanceOf(payload: JsonObject): JsonObject | undefined {
  if (isObject(payload.provenance)) return payload.provenance
  if (isObject(payload.arguments)) {
    for (const value of Object.values(payload.arguments))
      if (isObject(value) && isObject(value.provenance)) return value.provenance
  }
  return undefined
}

/** The content types of a message payload (`acs.content.types[]`). */
function contentTypes(payload: JsonObject): string[] {
  const content = payload.message ?? payload.content
  if (typeof content === 'string') return ['text']
  if (Array.isArray(content))
    return [
      ...new Set(
        content.map((part) => (isObject(part) && typeof part.type === 'string' ? part.type : 'text')),
      ),
    ]
  return isObject(content) && typeof content.type === 'string' ? [content.type] : []
}

/** The attributes of a step's span. */
export function stepAttributes(
  request: AcsRequest,
  tenant: string | undefined,
  intent?: JsonObject,
): Attributes {
  const name = spanNameOf(request.method)
  const attributes: Attributes = {
    'acs.session.id': request.sessionId,
    'acs.agent.id': request.agentId,
    'acs.method': request.method,
    'acs.request_id': request.requestId,
  }
  if (tenant !== undefined) attributes['acs.tenant_id'] = tenant
  for (const [key, paths] of PAYLOAD_ATTRIBUTES[name] ?? []) {
    for (const path of paths) {
      const value = attributeValue(at(request.payload, path))
      if (value !== undefined) {
        attributes[key] = value
        break
      }
    }
  }
  if (name === 'acs.message.user') attributes['acs.content.types'] = contentTypes(request.payload)
  if (name === 'acs.knowledge.retrieval' || name === 'acs.memory.retrieval') {
    const results = request.payload.results ?? request.payload.entries ?? request.payload.memories
    if (Array.isArray(results)) attributes['acs.results.count'] = results.length
  }
  const provenance = provenanceOf(request.payload)
  if (provenance) {
    for (const field of ['origin', 'source_id'] as const) {
      const value = provenance[field]
      if (typeof value === 'string') attributes[`acs.provenance.${field}`] = value
    }
    if (Array.isArray(provenance.derived_from))
      attributes['acs.provenance.lineage_depth'] = provenance.derived_from.length
  }
  if (intent) {
    attributes['acs.intent.scope_mode'] = String(intent.scope_mode)
    if (typeof intent.capability === 'string' && attributes['acs.capability'] === undefined)
      attributes['acs.capability'] = intent.capability
    if (typeof intent.in_scope === 'boolean') attributes['acs.intent.in_scope'] = intent.in_scope
  }
  return attributes
}

/** The `acs.decision` span event's attributes for a result. */
export function decisionAttributes(result: JsonObject): Attributes {
  const attributes: Attributes = { 'acs.decision': String(result.decision) }
  const metadata = isObject(result.metadata) ? result.metadata : {}
  attributes['acs.evaluator'] = typeof metadata.evaluator === 'string' ? metadata.evaluator : 'deterministic'
  if (typeof result.reasoning === 'string') attributes['acs.reasoning'] = result.reasoning.slice(0, 2048)
  if (typeof metadata.confidence === 'number') attributes['acs.confidence'] = metadata.confidence
  if (Array.isArray(result.reason_codes)) attributes['acs.reason_codes'] = result.reason_codes as string[]
  if (typeof result.chain_hash === 'string') attributes['acs.chain_hash'] = result.chain_hash
  return attributes
}

/** Emits ACS-Trace spans for answered steps. */
export type TraceEmitter = (
  request: AcsRequest,
  result: JsonObject,
  tenant: string | undefined,
  intent?: JsonObject,
) => void

/** The tracer name ACS-Trace spans are created under. */
export const ACS_TRACER_NAME = 'warden.acs'

/** Creates the emitter: a no-op when `settings.otel` is off. */
export function createTraceEmitter(settings: AcsTraceSettings, tracer?: Tracer): TraceEmitter {
  if (!settings.otel) return () => undefined
  // A proxy tracer: spans reach an SDK registered later too.
  const source = tracer ?? trace.getTracer(ACS_TRACER_NAME)
  return (request, result, tenant, intent) => {
    try {
      const took = isObject(result.metadata) ? Number(result.metadata.evaluation_duration_ms) || 0 : 0
      const startTime = Date.now() - took
      const span = source.startSpan(spanNameOf(request.method), { kind: SpanKind.SERVER, startTime })
      if (!span.isRecording()) {
        span.end()
        return
      }
      span.setAttributes(stepAttributes(request, tenant, intent))
      span.addEvent('acs.decision', decisionAttributes(result))
      span.end()
    } catch {
      // Trace events must not block enforcement (trace/events.md).
    }
  }
}

/** The ServerHello's `trace_emission` (handshake.json). */
export function traceEmission(settings: AcsTraceSettings): JsonObject {
  const emission: JsonObject = { otel_enabled: settings.otel, ocsf_enabled: settings.ocsf }
  if (settings.collectorEndpoint) emission.otel_collector_endpoint = settings.collectorEndpoint
  return emission
}
