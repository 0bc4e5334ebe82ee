// What loom meters on `model.post`, from whatever the agent SDK reports: the stop reason,
// tokens (input, output, total), cost and the number of tool calls. Fields the SDK does not
// report are left out, never guessed.

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

/** The metering an AI SDK result reports (`finishReason`, `usage`, tool-call parts). */
export function aiSdkMetering(
  result: { finishReason?: unknown; usage?: unknown },
  toolCalls: number,
): ModelMetering {
  const metering: ModelMetering = { toolCalls }
  if (typeof result.finishReason === 'string') metering.stopReason = result.finishReason
  const usage = result.usage as Record<string, unknown> | undefined
  if (usage && typeof usage === 'object') {
    const input = usage.inputTokens ?? usage.promptTokens
    const output = usage.outputTokens ?? usage.completionTokens
    if (isCount(input)) metering.inputTokens = input
    if (isCount(output)) metering.outputTokens = output
    if (isCount(usage.totalTokens)) metering.totalTokens = usage.totalTokens
  }
  return metering
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0
}
