// The `steps/*` methods mapped both ways: trigger, tool call request and result (nested
// schema form and flat prose form), messages by role, memory and knowledge retrieval.

import type { CheckedEvent, Json, JsonObject } from '../../core/index.js'
import { fromStepContext, toolName, toStepContext } from './context.js'
import {
  invalid,
  isObject,
  jsonEqual,
  optionalOf,
  partsText,
  requireArray,
  requireObject,
  requireObjects,
  requireString,
  withPartsText,
} from './fields.js'
import type { EventEncoder, MethodMapping } from './mapping.js'

function withReasoning(payload: JsonObject, params: JsonObject): JsonObject {
  optionalOf(params.reasoning, 'string', 'params.reasoning')
  if (typeof params.reasoning === 'string') payload.reasoning = params.reasoning
  return payload
}

function objectAt(payload: JsonObject, key: string): JsonObject {
  const value = payload[key]
  if (!isObject(value)) throw new Error(`the modified payload has no ${key} object`)
  return value
}

function stepParams(event: CheckedEvent, part: JsonObject): JsonObject {
  const params: JsonObject = { ...part, context: toStepContext(event.context) }
  if (typeof event.payload.reasoning === 'string') params.reasoning = event.payload.reasoning
  return params
}

export const agentTrigger: MethodMapping = {
  toEvent(params, meta, requestId) {
    const trigger = requireObject(params.trigger, 'params.trigger')
    optionalOf(trigger.type, 'string', 'params.trigger.type')
    optionalOf(trigger.content, 'array', 'params.trigger.content')
    optionalOf(trigger.event, 'object', 'params.trigger.event')
    const context = fromStepContext(params.context, 'params.context', meta, requestId)
    return { event: 'agent.trigger', payload: withReasoning({ trigger }, params), context }
  },
  toParams(params, _original, modified) {
    return { ...params, trigger: objectAt(modified, 'trigger') }
  },
}

function inputsOf(request: JsonObject): JsonObject[] {
  const inputs = requireObjects(
    requireArray(request.inputs, 'params.toolCallRequest.inputs'),
    'params.toolCallRequest.inputs',
  )
  for (let i = 0; i < inputs.length; i++) {
    const entry = inputs[i] as JsonObject
    // The field is named only when it is wrong: the common case builds no strings.
    if (typeof entry.name !== 'string' || entry.name.length === 0) {
      requireString(entry.name, `params.toolCallRequest.inputs[${i}].name`)
    }
    if (!('value' in entry))
      invalid(`params.toolCallRequest.inputs[${i}].value`, 'is required (use null for no value)')
  }
  return inputs
}

export const toolCallRequest: MethodMapping = {
  toEvent(params, meta, requestId, state) {
    const request = requireObject(params.toolCallRequest, 'params.toolCallRequest')
    const toolId = requireString(request.toolId, 'params.toolCallRequest.toolId')
    optionalOf(request.executionId, 'string', 'params.toolCallRequest.executionId')
    const input: JsonObject = {}
    for (const entry of inputsOf(request)) input[entry.name as string] = entry.value ?? null
    const context = fromStepContext(params.context, 'params.context', meta, requestId)
    const name = toolName(context, toolId)
    const tool: JsonObject = { name, input }
    if (typeof request.executionId === 'string') {
      tool.id = request.executionId
      state.rememberTool(request.executionId, name)
    }
    return { event: 'tool.pre', payload: withReasoning({ tool }, params), context }
  },
  toParams(params, original, modified) {
    const request = params.toolCallRequest as JsonObject
    const before = objectAt(objectAt(original, 'tool'), 'input')
    const after = objectAt(objectAt(modified, 'tool'), 'input')
    const inputs: Json[] = []
    const seen = new Set<string>()
    for (const entry of request.inputs as JsonObject[]) {
      const name = entry.name as string
      seen.add(name)
      if (!Object.hasOwn(after, name)) continue
      if (Object.hasOwn(before, name) && jsonEqual(after[name], before[name])) inputs.push(entry)
      else inputs.push({ ...entry, value: after[name] as Json })
    }
    for (const [name, value] of Object.entries(after)) {
      if (!seen.has(name)) inputs.push({ name, value })
    }
    return { ...params, toolCallRequest: { ...request, inputs } }
  },
}

function outputsOf(output: Json | undefined): Json[] {
  if (Array.isArray(output)) return output
  if (typeof output === 'string') return [{ kind: 'text', text: output }]
  if (output === undefined || output === null) return []
  return [{ kind: 'text', text: JSON.stringify(output) }]
}

export const toolCallResult: MethodMapping = {
  toEvent(params, meta, requestId, state) {
    const nested = params.toolCallResult !== undefined
    if (!nested && params.result === undefined) {
      invalid('params.toolCallResult', 'is required: {executionId, result: {outputs, isError}}')
    }
    const base = nested ? requireObject(params.toolCallResult, 'params.toolCallResult') : params
    const where = nested ? 'params.toolCallResult' : 'params'
    optionalOf(base.executionId, 'string', `${where}.executionId`)
    optionalOf(base.toolId, 'string', `${where}.toolId`)
    const result = requireObject(base.result, `${where}.result`)
    const outputs = requireArray(result.outputs, `${where}.result.outputs`)
    optionalOf(result.isError, 'boolean', `${where}.result.isError`)
    const context = fromStepContext(params.context, 'params.context', meta, requestId)
    const executionId = typeof base.executionId === 'string' ? base.executionId : undefined
    const name =
      typeof base.toolId === 'string' && base.toolId.length > 0
        ? toolName(context, base.toolId)
        : ((executionId && state.toolFor(executionId)) ?? 'unknown')
    const tool: JsonObject = { name, input: {}, output: outputs, isError: result.isError === true }
    if (executionId) tool.id = executionId
    return { event: 'tool.post', payload: withReasoning({ tool }, params), context }
  },
  toParams(params, _original, modified) {
    const tool = objectAt(modified, 'tool')
    const nested = isObject(params.toolCallResult)
    const base = (nested ? params.toolCallResult : params) as JsonObject
    const result: JsonObject = { ...(base.result as JsonObject), outputs: outputsOf(tool.output) }
    if (typeof tool.isError === 'boolean') result.isError = tool.isError
    if (nested) return { ...params, toolCallResult: { ...base, result } }
    // The flat form of the spec prose is answered in the schema's nested form, which both
    // schemas validate.
    const { executionId, result: _flat, ...rest } = params
    const toolCallResult: JsonObject = { result }
    if (executionId !== undefined) toolCallResult.executionId = executionId
    return { ...rest, toolCallResult }
  },
}

const ROLE_EVENTS = { user: 'user.message', agent: 'agent.response', system: 'system.message' } as const

export const message: MethodMapping = {
  toEvent(params, meta, requestId) {
    const msg = requireObject(params.message, 'params.message')
    const role = msg.role
    if (role !== 'user' && role !== 'agent' && role !== 'system') {
      invalid(
        'params.message.role',
        `must be "user", "agent" or "system" (got ${JSON.stringify(role) ?? 'nothing'})`,
      )
    }
    const content = requireObjects(
      requireArray(msg.content, 'params.message.content'),
      'params.message.content',
    )
    optionalOf(msg.id, 'string', 'params.message.id')
    optionalOf(params.citations, 'array', 'params.citations')
    const context = fromStepContext(params.context, 'params.context', meta, requestId)
    const payload: JsonObject = { message: { role, text: partsText(content), content } }
    if (Array.isArray(params.citations)) payload.citations = params.citations
    return { event: ROLE_EVENTS[role], payload: withReasoning(payload, params), context }
  },
  toParams(params, original, modified) {
    const before = objectAt(original, 'message')
    const after = objectAt(modified, 'message')
    const msg = params.message as JsonObject
    let content = msg.content as Json[]
    if (!jsonEqual(after.content, before.content)) {
      if (!Array.isArray(after.content))
        throw new Error('the modified message.content is not a list of parts')
      content = after.content
    } else if (after.text !== before.text) {
      content = withPartsText(content, String(after.text))
    }
    const result: JsonObject = { ...params, message: { ...msg, content } }
    if (Array.isArray(modified.citations) && !jsonEqual(modified.citations, original.citations)) {
      result.citations = modified.citations
    }
    return result
  },
}

function memoryMapping(event: 'memory.retrieve' | 'memory.store'): MethodMapping {
  return {
    toEvent(params, meta, requestId) {
      const items = requireArray(params.memory, 'params.memory')
      const context = fromStepContext(params.context, 'params.context', meta, requestId)
      return { event, payload: withReasoning({ memory: { items } }, params), context }
    },
    toParams(params, _original, modified) {
      const items = objectAt(modified, 'memory').items
      if (!Array.isArray(items)) throw new Error('the modified memory.items is not a list')
      return { ...params, memory: items }
    },
  }
}

export const memoryContextRetrieval = memoryMapping('memory.retrieve')
export const memoryStore = memoryMapping('memory.store')

export const knowledgeRetrieval: MethodMapping = {
  toEvent(params, meta, requestId) {
    const step = requireObject(params.knowledgeStep, 'params.knowledgeStep')
    optionalOf(step.query, 'string', 'params.knowledgeStep.query')
    optionalOf(step.keywords, 'array', 'params.knowledgeStep.keywords')
    const results = requireObjects(
      requireArray(step.results, 'params.knowledgeStep.results'),
      'params.knowledgeStep.results',
    )
    const context = fromStepContext(params.context, 'params.context', meta, requestId)
    const knowledge: JsonObject = { results }
    if (step.query !== undefined) knowledge.query = step.query
    if (step.keywords !== undefined) knowledge.keywords = step.keywords
    return { event: 'knowledge.retrieve', payload: withReasoning({ knowledge }, params), context }
  },
  toParams(params, original, modified) {
    const before = objectAt(original, 'knowledge')
    const after = objectAt(modified, 'knowledge')
    const step: JsonObject = { ...(params.knowledgeStep as JsonObject) }
    for (const key of ['query', 'keywords', 'results'] as const) {
      if (jsonEqual(after[key], before[key])) continue
      if (after[key] === undefined) delete step[key]
      else step[key] = after[key] as Json
    }
    if (!Array.isArray(step.results)) throw new Error('the modified knowledge.results is not a list')
    return { ...params, knowledgeStep: step }
  },
}

/** Encoders from Warden events to `steps/*` params, by event. */
export const STEP_ENCODERS: Record<string, { method: string; encode: EventEncoder }> = {
  'agent.trigger': {
    method: 'steps/agentTrigger',
    encode: (e) => stepParams(e, { trigger: e.payload.trigger as Json }),
  },
  'tool.pre': {
    method: 'steps/toolCallRequest',
    encode(e) {
      const tool = objectAt(e.payload, 'tool')
      const inputs = Object.entries(objectAt(tool, 'input')).map(([name, value]) => ({ name, value }))
      const id = typeof tool.id === 'string' ? tool.id : globalThis.crypto.randomUUID()
      return stepParams(e, { toolCallRequest: { executionId: id, toolId: String(tool.name), inputs } })
    },
  },
  'tool.post': {
    method: 'steps/toolCallResult',
    encode(e) {
      const tool = objectAt(e.payload, 'tool')
      const executionId = typeof tool.id === 'string' ? tool.id : globalThis.crypto.randomUUID()
      const result = { outputs: outputsOf(tool.output), isError: tool.isError === true }
      return stepParams(e, { toolCallResult: { executionId, toolId: String(tool.name), result } })
    },
  },
  'user.message': { method: 'steps/message', encode: (e) => messageParams(e, 'user') },
  'agent.response': { method: 'steps/message', encode: (e) => messageParams(e, 'agent') },
  'system.message': { method: 'steps/message', encode: (e) => messageParams(e, 'system') },
  'memory.retrieve': {
    method: 'steps/memoryContextRetrieval',
    encode: (e) => stepParams(e, { memory: objectAt(e.payload, 'memory').items ?? [] }),
  },
  'memory.store': {
    method: 'steps/memoryStore',
    encode: (e) => stepParams(e, { memory: objectAt(e.payload, 'memory').items ?? [] }),
  },
  'knowledge.retrieve': {
    method: 'steps/knowledgeRetrieval',
    encode(e) {
      const { query, keywords, results } = objectAt(e.payload, 'knowledge')
      const step: JsonObject = { results: results ?? [] }
      if (query !== undefined) step.query = query
      if (keywords !== undefined) step.keywords = keywords
      return stepParams(e, { knowledgeStep: step })
    },
  },
}

function messageParams(event: CheckedEvent, role: 'user' | 'agent' | 'system'): JsonObject {
  const msg = objectAt(event.payload, 'message')
  const content = Array.isArray(msg.content) ? msg.content : [{ kind: 'text', text: String(msg.text ?? '') }]
  const out: JsonObject = {
    role,
    content,
    id: typeof msg.id === 'string' ? msg.id : globalThis.crypto.randomUUID(),
  }
  const params = stepParams(event, { message: out })
  if (Array.isArray(event.payload.citations)) params.citations = event.payload.citations
  return params
}
