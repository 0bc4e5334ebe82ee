// The settings of the model-API gateway (`llm:` in warden.yaml): body and answer sizes,
// how long the upstream may take, how streamed text is held for checking, and the
// upstream's API key (sealed, or from WARDEN_LLM_API_KEY).

import { z } from 'zod'
import { formatZodError, WardenError } from '../../core/index.js'
import { byteSetting, inFlightSettings, millisSetting } from '../kit/index.js'

/** The gateway's limits; every one has a default. */
export interface LlmLimits {
  /** Largest request body accepted, in bytes. Default 16 MiB (prompts carry images). */
  maxBodyBytes: number
  /** Largest non-streamed answer, or single streamed event, in bytes. Default 16 MiB. */
  maxAnswerBytes: number
  /** Longest wait for the upstream's answer to start (and between streamed bytes), in ms. Default 120 s. */
  upstreamTimeoutMs: number
  /** Longest a stream may stay open, in ms. Default 30 minutes. */
  maxStreamMs: number
  /**
   * Streamed text is checked (`agent.response`) each time this many new characters have
   * come, and at the end of each text. Default 128.
   */
  checkEveryChars: number
  /**
   * After a check, the last this many characters stay held until the next one, so a pattern
   * cut across a check is seen whole before any of it is released. Default 64. Nothing is
   * held when no hook runs on `agent.response`.
   */
  holdBackChars: number
  /**
   * The longest streamed text checked, in characters: past it the stream ends with an error
   * naming this setting. Default 1 MiB (the whole text is given to hooks once at its end).
   */
  maxTextChars: number
  /** Most requests with a body in flight at once. Default: derived from the machine. */
  maxInFlight?: number
  /** Most body bytes those requests hold together. Default: derived from the machine. */
  maxInFlightBytes?: number
}

export const LLM_DEFAULTS: LlmLimits = {
  maxBodyBytes: 16 * 1024 * 1024,
  maxAnswerBytes: 16 * 1024 * 1024,
  upstreamTimeoutMs: 120_000,
  maxStreamMs: 1_800_000,
  checkEveryChars: 128,
  holdBackChars: 64,
  maxTextChars: 1024 * 1024,
}

const bytes = byteSetting
const millis = millisSetting
const chars = z.number({ error: 'must be a number of characters' }).int().min(0).max(1_000_000)

/** Schema of the `llm:` section. */
export const llmSettingsSchema = z
  .object({
    maxBodyBytes: bytes.optional(),
    maxAnswerBytes: bytes.optional(),
    upstreamTimeoutMs: millis.optional(),
    maxStreamMs: millis.optional(),
    ...inFlightSettings,
    stream: z
      .object({
        checkEveryChars: chars.min(1).optional(),
        holdBackChars: chars.optional(),
        maxTextChars: z
          .number({ error: 'must be a number of characters' })
          .int()
          .min(1)
          .max(64 * 1024 * 1024)
          .optional(),
      })
      .strict()
      .optional(),
    /**
     * Item types Warden does not check that the operator lets through, as
     * `protocol/place/type` keys (`anthropic.messages/tool/web_search_20250305`); each use is
     * audited. Everything else Warden does not model is refused.
     */
    allowUnknownTypes: z.array(z.string().min(3).max(200)).max(500).optional(),
    /** The upstream's API key, sealed (`wsec:v1:…`, see `warden secrets`), used when callers send none. */
    apiKey: z.string().min(1).optional(),
  })
  .strict()

/** The `llm:` section as parsed. */
export type LlmSettings = z.infer<typeof llmSettingsSchema>

/**
 * The limits an `llm:` section sets, over the defaults.
 * @throws WardenError `invalid-config` naming the field.
 */
export function llmLimits(section: unknown, overrides: Partial<LlmLimits> = {}): LlmLimits {
  const s = llmSettings(section)
  const limits: LlmLimits = { ...LLM_DEFAULTS }
  if (s.maxBodyBytes) limits.maxBodyBytes = s.maxBodyBytes
  if (s.maxAnswerBytes) limits.maxAnswerBytes = s.maxAnswerBytes
  if (s.upstreamTimeoutMs) limits.upstreamTimeoutMs = s.upstreamTimeoutMs
  if (s.maxStreamMs) limits.maxStreamMs = s.maxStreamMs
  if (s.maxInFlight) limits.maxInFlight = s.maxInFlight
  if (s.maxInFlightBytes) limits.maxInFlightBytes = s.maxInFlightBytes
  if (s.stream?.checkEveryChars) limits.checkEveryChars = s.stream.checkEveryChars
  if (s.stream?.holdBackChars !== undefined) limits.holdBackChars = s.stream.holdBackChars
  if (s.stream?.maxTextChars) limits.maxTextChars = s.stream.maxTextChars
  return { ...limits, ...overrides }
}

/**
 * The `llm:` section, checked.
 * @throws WardenError `invalid-config` naming the field.
 */
export function llmSettings(section: unknown): LlmSettings {
  const parsed = llmSettingsSchema.safeParse(section ?? {})
  if (!parsed.success) throw new WardenError('invalid-config', formatZodError(parsed.error, 'llm'))
  return parsed.data
}
