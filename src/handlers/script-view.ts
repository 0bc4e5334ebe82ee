// Payload views for Starlark hooks, as AI Harness gives them: tool.pre `{name, args}`,
// tool.post `{name, args, result, error}`, model.pre `{messages}`, every other event its
// canonical payload. A `modify(payload)` written in the view is mapped back onto the
// canonical payload here, so the rest of Warden only ever sees canonical events.

import type { CheckedEvent, Json, JsonObject } from '../core/index.js'

/** The payload a script sees for an event. */
export function payloadView(event: CheckedEvent): JsonObject {
  const payload = event.payload
  switch (event.event) {
    case 'tool.pre': {
      const tool = record(payload.tool)
      return { name: tool?.name ?? '', args: tool?.input ?? {} }
    }
    case 'tool.post': {
      const tool = record(payload.tool)
      const failed = tool?.isError === true
      return {
        name: tool?.name ?? '',
        args: tool?.input ?? {},
        result: failed ? null : (tool?.output ?? null),
        error: failed ? errorText(tool?.output) : null,
      }
    }
    case 'model.pre': {
      const model = record(payload.model)
      return { messages: model?.messages ?? [] }
    }
    default:
      return payload
  }
}

/**
 * Maps a payload a script passed to `modify` (in the event's view) back onto the canonical
 * payload.
 * @throws Error naming the field that does not fit the view.
 */
export function fromPayloadView(event: CheckedEvent, view: unknown): JsonObject {
  const edited = record(view)
  if (!edited) throw new Error('modify(payload) needs a dict')
  const payload = event.payload
  switch (event.event) {
    case 'tool.pre':
    case 'tool.post': {
      const tool = record(payload.tool) ?? {}
      const next: JsonObject = { ...tool }
      if (edited.name !== undefined) {
        if (typeof edited.name !== 'string' || edited.name === '')
          throw new Error('modify(payload): "name" must be a non-empty string')
        next.name = edited.name
      }
      if (edited.args !== undefined) {
        const args = record(edited.args)
        if (!args) throw new Error('modify(payload): "args" must be a dict')
        next.input = args
      }
      if (event.event === 'tool.post') applyResult(next, edited)
      return { ...payload, tool: next }
    }
    case 'model.pre': {
      if (!Array.isArray(edited.messages)) throw new Error('modify(payload): "messages" must be a list')
      const model = record(payload.model) ?? {}
      return { ...payload, model: { ...model, messages: edited.messages } }
    }
    default:
      return edited
  }
}

function applyResult(tool: JsonObject, edited: JsonObject): void {
  const error = edited.error
  if (error !== undefined && error !== null && error !== false && error !== '') {
    tool.isError = true
    tool.output = typeof error === 'string' ? error : JSON.stringify(error)
    return
  }
  if (error === null || error === false || error === '') tool.isError = false
  if (edited.result !== undefined) tool.output = edited.result
}

function errorText(output: Json | undefined): string {
  if (typeof output === 'string' && output !== '') return output
  if (output === undefined || output === null) return 'the tool failed'
  return JSON.stringify(output)
}

function record(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as JsonObject)
    : undefined
}
