// Relaying one streamed answer: the upstream's server-sent events are parsed (each bounded
// by llm.maxAnswerBytes), handed to the API's relay, and what it releases is written to the
// client as it comes (waiting when the client reads slowly). The stream ends with the API's
// error event when a check refuses, the upstream sends garbage, falls silent for
// llm.upstreamTimeoutMs or runs past llm.maxStreamMs; when the client leaves, the upstream
// stream is closed at once.

import type { ServerResponse } from 'node:http'
import type { Readable } from 'node:stream'
import { errorMessage } from '../../core/index.js'
import { SseParser, SseTooLargeError } from '../a2a/index.js'
import type { ApiErrorInfo, RelayStep, StreamRelay } from './api.js'
import type { LlmLimits } from './limits.js'

/** One relay's setting. */
export interface RelayOptions {
  relay: StreamRelay
  body: Readable
  res: ServerResponse
  limits: LlmLimits
  log: (line: string) => void
  /** Called once the answer went out whole (for `model.post`). */
  delivered(): void
}

/**
 * Relays the stream until it ends, is refused, fails, or the client leaves.
 * Never throws.
 */
export async function relayStream(options: RelayOptions): Promise<void> {
  const { relay, body, res, limits } = options
  const parser = new SseParser(limits.maxAnswerBytes, 'llm.maxAnswerBytes')
  let finished = false
  const stop = (error?: ApiErrorInfo) => {
    if (finished) return
    finished = true
    clearTimeout(idle)
    clearTimeout(total)
    if (error) {
      options.log(`stream ended: ${error.message}`)
      if (!res.destroyed) res.write(relay.errorFrame(error))
    }
    if (corked) uncork()
    if (!res.destroyed) res.end()
    body.destroy()
  }
  const silent = () =>
    stop({
      status: 504,
      code: 'upstream_timeout',
      message: `the model API sent nothing for ${limits.upstreamTimeoutMs} ms (llm.upstreamTimeoutMs)`,
    })
  const idle = setTimeout(silent, limits.upstreamTimeoutMs)
  const total = setTimeout(
    () =>
      stop({
        status: 504,
        code: 'stream_too_long',
        message: `the stream ran longer than ${limits.maxStreamMs} ms (llm.maxStreamMs)`,
      }),
    limits.maxStreamMs,
  )
  const onClose = () => {
    if (res.writableFinished || finished) return
    finished = true
    clearTimeout(idle)
    clearTimeout(total)
    body.destroy()
  }
  res.once('close', onClose)

  let corked = false
  const uncork = () => {
    corked = false
    if (!res.destroyed) res.uncork()
  }
  /** Writes a step: true to go on; a promise only when the client reads slowly. */
  const write = (step: RelayStep): boolean | Promise<boolean> => {
    if (finished) return false
    if (!Array.isArray(step)) {
      stop(step.error)
      return false
    }
    if (step.length === 0) return true
    // Frames written in one turn of the event loop go out in one write: an upstream chunk
    // often holds many events, and a write per event would cost a system call each.
    if (!corked) {
      corked = true
      res.cork()
      setImmediate(uncork)
    }
    if (res.write(step.length === 1 ? (step[0] as string) : step.join(''))) return !finished
    return new Promise<boolean>((resolve) => {
      const done = () => {
        res.off('drain', done)
        res.off('close', done)
        resolve(!finished)
      }
      res.once('drain', done)
      res.once('close', done)
    })
  }

  try {
    for await (const chunk of body) {
      if (finished) break
      idle.refresh()
      for (const event of parser.push(chunk as Buffer)) {
        const going = write(await relay.event(event))
        if (!(going instanceof Promise ? await going : going)) break
      }
    }
    if (!finished) {
      if (parser.pending())
        options.log('the model API stream ended in the middle of an event; it was dropped')
      if (await write(await relay.end())) {
        stop()
        options.delivered()
      }
    }
  } catch (error) {
    stop(
      error instanceof SseTooLargeError
        ? { status: 502, code: 'upstream_too_large', message: error.message }
        : {
            status: 502,
            code: 'upstream_broken',
            message: `the model API's stream broke: ${errorMessage(error)}`,
          },
    )
  } finally {
    clearTimeout(idle)
    clearTimeout(total)
    res.off('close', onClose)
    if (!body.destroyed) body.destroy()
  }
}
