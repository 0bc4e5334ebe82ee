// The view of an answer hooks read whatever A2A version the client speaks: `a2a.task` (always
// an object with `id`, `contextId`, `status.state`, `artifacts` and `history`) and
// `a2a.artifacts` (always a list). A task is `result.task` on a send but `result` on
// GetTask, v0.3 stream events carry `result.kind: "artifact-update"` while current ones wrap
// `result.artifactUpdate`, and empty lists are left out on the wire; the view hides all
// three, so a CEL `if` such as `a2a.task.status.state == "failed"` or
// `size(a2a.artifacts) > 0` needs no `has()`. The view is read-only: a modify rewrites
// `a2a.payload.result`, which keeps the form the client speaks.

import type { Json, JsonObject } from '../../core/index.js'
import type { ResponseKind } from './payload.js'

/** The always-present task and artifacts of one answer or streamed event. */
export interface AnswerView {
  task: JsonObject
  artifacts: Json[]
}

/**
 * The view of an answer of `kind` whose object is `inner` (the task, message or update, in
 * either wire form).
 */
export function answerView(kind: ResponseKind, inner: JsonObject | undefined): AnswerView {
  const source = inner ?? {}
  const isTask = kind === 'task'
  const id = text(isTask ? source.id : source.taskId)
  const status = isObject(source.status) ? { ...source.status } : {}
  if (typeof status.state !== 'string') status.state = ''
  const artifacts = isTask
    ? list(source.artifacts)
    : kind === 'artifactUpdate' && isObject(source.artifact)
      ? [source.artifact]
      : []
  const history = isTask ? list(source.history) : kind === 'message' ? [source] : []
  const task: JsonObject = {
    id,
    contextId: text(source.contextId),
    status: kind === 'message' ? { state: '' } : status,
    artifacts,
    history,
  }
  return { task, artifacts }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : ''
}

function list(value: unknown): Json[] {
  return Array.isArray(value) ? (value as Json[]) : []
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
