// What loom meters on `model.post`, from whatever the agent SDK reports: the stop reason,
// tokens (input, output, total), cost and the number of tool calls; and what `error` carries
// of a failed model call (message, code). Fields the SDK does not report are left out,
// never guessed.

import type { JsonObject } from '../core/index.js'

/** A model call's metering as the host or SDK reports it (any subset). */
export interface ModelMetering {
  stopReason?: string
  inputTokens?: number
  outputTokens?: number
  totalTokens?: number
  /** In US dollars, when the host prices the call. */
  costUsd?: number
  toolCalls?: number
}

/** The metering as `model.post` payload fields: `stopReason`, `toolCalls` and `usage`. */
export function meteringFields(metering: ModelMetering | undefined): JsonObject {
  if (!metering) return {}
  const out: JsonObject = {}
  if (typeof metering.stopReason === 'string' && metering.stopReason !== '')
    out.stopReason = metering.stopReason
  if (isCount(metering.toolCalls)) out.toolCalls = metering.toolCalls
  const usage: JsonObject = {}
  for (const key of ['inputTokens', 'outputTokens', 'totalTokens'] as const)
    if (isCount(metering[key])) usage[key] = metering[key]
  if (typeof metering.costUsd === 'number' && Number.isFinite(metering.costUsd) && metering.costUsd >= 0)
    usage.costUsd = metering.costUsd
  if (Object.keys(usage).length > 0) out.usage = usage
  return out
}

/**
 * The metering an AI SDK result or stream `finish` part reports: `finishReason` (a string,
 * or the v3 `{unified, raw}` object: the raw reason when given, else the unified one),
 * `usage` (flat counts, or the v3 `{inputTokens: {total}, outputTokens: {total}}`) and the
 * number of tool calls.
 */
export function aiSdkMetering(
  result: { finishReason?: unknown; usage?: unknown },
  toolCalls: number,
): ModelMetering {
  const metering: ModelMetering = { toolCalls }
  const reason = result.finishReason as { unified?: unknown; raw?: unknown } | string | undefined
  if (typeof reason === 'string') metering.stopReason = reason
  else if (typeof reason?.raw === 'string' && reason.raw !== '') metering.stopReason = reason.raw
  else if (typeof reason?.unified === 'string') metering.stopReason = reason.unified
  const usage = result.usage as Record<string, unknown> | undefined
  if (usage && typeof usage === 'object') {
    const input = count(usage.inputTokens) ?? count(usage.promptTokens)
    const output = count(usage.outputTokens) ?? count(usage.completionTokens)
    if (input !== undefined) metering.inputTokens = input
    if (output !== undefined) metering.outputTokens = output
    const total =
      count(usage.totalTokens) ?? (input !== undefined && output !== undefined ? input + output : undefined)
    if (total !== undefined) metering.totalTokens = total
  }
  return metering
}

/** A token count: a number, or the v3 `{ total }`. */
function count(value: unknown): number | undefined {
  if (isCount(value)) return value
  const total = (value as { total?: unknown } | null)?.total
  return typeof value === 'object' && isCount(total) ? total : undefined
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0
}

/** The `error` event's payload of what a model call threw or streamed: its message and code. */
export function errorPayload(error: unknown): JsonObject {
  const message =
    error instanceof Error ? error.message : typeof error === 'string' ? error : JSON.stringify(error ?? null)
  const code =
    (error as { code?: unknown; name?: unknown } | null)?.code ?? (error as { name?: unknown } | null)?.name
  return { message: message.slice(0, 2000), ...(typeof code === 'string' && code !== '' ? { code } : {}) }
}
