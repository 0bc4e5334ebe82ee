// The bounds of the A2A gateway (`a2a:` in warden.yaml): request body size, streamed event
// size, stream duration, upstream wait, how streamed artifacts are checked (each event on its
// own, or a whole artifact at once with `stream.buffer: artifact`), how many task ids are
// remembered with their tenant, and the unknown types an operator lets through.

import { z } from 'zod'
import { formatZodError, WardenError } from '../../core/index.js'
import { byteSetting, inFlightSettings, millisSetting } from '../kit/index.js'
import { a2aUnknownTypePolicy } from './tables.js'

/** How streamed artifact chunks are checked. */
export type StreamBuffer = 'event' | 'artifact'

/** The gateway's limits; every one has a default. */
export interface A2aLimits {
  /** Largest request body accepted, in bytes. Default 4 MiB. */
  maxBodyBytes: number
  /** Largest single streamed event or upstream answer, in bytes. Default 4 MiB. */
  maxEventBytes: number
  /** Longest a stream may stay open, in ms. Default 10 minutes. */
  maxStreamMs: number
  /** Longest wait for the upstream's answer (or its first streamed byte), in ms. Default 30 s. */
  upstreamTimeoutMs: number
  /** `event`: every streamed event is checked as it comes; `artifact`: artifact chunks are held and checked as one. */
  buffer: StreamBuffer
  /** Most bytes of one artifact held while buffering, in bytes. Default 4 MiB. */
  maxBufferBytes: number
  /** How long the upstream's agent card is reused before it is fetched again, in ms. Default 30 s. */
  cardTtlMs: number
  /** Most requests with a body in flight at once. Default: derived from the machine. */
  maxInFlight?: number
  /** Most body bytes those requests hold together. Default: derived from the machine. */
  maxInFlightBytes?: number
  /** Most task ids remembered with their tenant (the least recently used is forgotten). Default 100,000. */
  maxTrackedTasks: number
  /** `protocol/place/type` keys of unknown part kinds, file shapes or answer kinds let through unchecked. */
  allowUnknownTypes: readonly string[]
}

export const A2A_DEFAULTS: A2aLimits = {
  maxBodyBytes: 4 * 1024 * 1024,
  maxEventBytes: 4 * 1024 * 1024,
  maxStreamMs: 600_000,
  upstreamTimeoutMs: 30_000,
  buffer: 'event',
  maxBufferBytes: 4 * 1024 * 1024,
  cardTtlMs: 30_000,
  maxTrackedTasks: 100_000,
  allowUnknownTypes: [],
}

const bytes = byteSetting
const millis = millisSetting

/** Schema of the `a2a:` section. */
export const a2aSettingsSchema = z
  .object({
    maxBodyBytes: bytes.optional(),
    maxEventBytes: bytes.optional(),
    maxStreamMs: millis.optional(),
    upstreamTimeoutMs: millis.optional(),
    cardTtlMs: z.number().int().min(0).max(86_400_000).optional(),
    ...inFlightSettings,
    maxTrackedTasks: z.number().int().positive().max(10_000_000).optional(),
    allowUnknownTypes: z.array(z.string().min(1).max(200)).max(100).optional(),
    stream: z
      .object({
        buffer: z.enum(['event', 'artifact'], { error: 'must be "event" or "artifact"' }).optional(),
        maxBufferBytes: bytes.optional(),
      })
      .strict()
      .optional(),
  })
  .strict()

/**
 * The limits an `a2a:` section sets, over the defaults.
 * @throws WardenError `invalid-config` naming the field.
 */
export function a2aLimits(section: unknown, overrides: Partial<A2aLimits> = {}): A2aLimits {
  const parsed = a2aSettingsSchema.safeParse(section ?? {})
  if (!parsed.success) throw new WardenError('invalid-config', formatZodError(parsed.error, 'a2a'))
  const s = parsed.data
  const limits: A2aLimits = { ...A2A_DEFAULTS }
  if (s.maxBodyBytes) limits.maxBodyBytes = s.maxBodyBytes
  if (s.maxEventBytes) limits.maxEventBytes = s.maxEventBytes
  if (s.maxStreamMs) limits.maxStreamMs = s.maxStreamMs
  if (s.upstreamTimeoutMs) limits.upstreamTimeoutMs = s.upstreamTimeoutMs
  if (s.cardTtlMs !== undefined) limits.cardTtlMs = s.cardTtlMs
  if (s.maxInFlight) limits.maxInFlight = s.maxInFlight
  if (s.maxInFlightBytes) limits.maxInFlightBytes = s.maxInFlightBytes
  if (s.stream?.buffer) limits.buffer = s.stream.buffer
  if (s.stream?.maxBufferBytes) limits.maxBufferBytes = s.stream.maxBufferBytes
  if (s.maxTrackedTasks) limits.maxTrackedTasks = s.maxTrackedTasks
  if (s.allowUnknownTypes) {
    try {
      a2aUnknownTypePolicy(s.allowUnknownTypes)
    } catch (error) {
      throw new WardenError('invalid-config', (error as Error).message)
    }
    limits.allowUnknownTypes = s.allowUnknownTypes
  }
  return { ...limits, ...overrides }
}
