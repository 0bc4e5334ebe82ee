// A streamed answer passed on event by event. Every event the upstream sends goes through
// `a2a.response` before the client sees it: a modify rewrites that event, a deny ends the
// stream with an error event and closes the upstream stream. With `stream.buffer: artifact`
// artifact chunks are held until their artifact is complete (`lastChunk`, or the stream's
// end) and checked as one artifact whose text parts are joined, so a secret split across
// chunks is still seen whole; events after a held chunk wait so the order is kept. A chunk
// with `append: false` starts a new version of its artifact: the chunks held before it are
// checked as they stand first, so every chunk sent was part of a checked whole.

import type { Readable } from 'node:stream'
import type { EventContext, Json, JsonObject } from '../../core/index.js'
import type { CallerGone } from '../kit/index.js'
import type { A2aChecks } from './checks.js'
import type { A2aLimits } from './limits.js'
import type { A2aOperation } from './methods.js'
import { type Caller, isObject, type RpcId, responseKind, type Target } from './payload.js'
import { type SseEvent, SseParser } from './sse.js'
import { type Refusal, refusedBy, upstreamFailure } from './wire.js'

/** What one upstream event is, as the transport reads it. */
export type Decoded =
  | { type: 'result'; result: Json }
  | { type: 'error'; raw: JsonObject }
  | { type: 'garbage'; reason: string }

/** The transport's side of a relay. */
export interface RelaySink {
  /** Reads one upstream event (JSON-RPC envelope or REST body). */
  decode(event: SseEvent): Decoded
  /** Writes one checked event to the client. */
  write(result: Json): void
  /** Writes an upstream error event as it came. */
  passError(raw: JsonObject): void
  /** Writes the gateway's error event. */
  fail(refusal: Refusal): void
  end(): void
}

/** One relay's setting. */
export interface RelayOptions {
  checks: A2aChecks
  context: EventContext
  target: Target
  /** The call: its method name, operation and caller (whose tenant the stream's tasks are bound to). */
  call: { method: string; operation: A2aOperation; caller: Caller }
  /** The JSON-RPC id of the call, for the response each event is seen in. */
  id: RpcId
  limits: A2aLimits
  body: Readable
  sink: RelaySink
  /** Aborted when the client goes away. */
  clientGone: CallerGone
  log?: (line: string) => void
}

interface HeldEvent {
  result: Json
  /** The artifact this chunk belongs to (as held: one version, checked as a whole). */
  artifact?: PendingArtifact
}

interface PendingArtifact {
  first: JsonObject
  inner: JsonObject
  parts: Json[]
  bytes: number
  complete: boolean
  /** Set when a modify replaced the whole artifact. */
  replacement?: Json
  sent?: boolean
}

/**
 * Relays one stream until it ends, is denied, runs past its time, or the client leaves.
 * Never throws: every failure ends the stream with an error event.
 */
export async function relayStream(options: RelayOptions): Promise<void> {
  const { body, sink, limits } = options
  const parser = new SseParser(limits.maxEventBytes)
  const held: HeldEvent[] = []
  const pending = new Map<string, PendingArtifact>()
  let finished = false
  const stop = (refusal?: Refusal) => {
    if (finished) return
    finished = true
    if (refusal) sink.fail(refusal)
    sink.end()
    body.destroy()
  }
  const timer = setTimeout(
    () => stop(refusedBy(`the stream ran longer than ${limits.maxStreamMs} ms (a2a.maxStreamMs)`)),
    limits.maxStreamMs,
  )
  const onGone = () => {
    finished = true
    body.destroy()
  }
  options.clientGone.once('abort', onGone)

  const respond = (result: Json) =>
    options.checks.response(options.call, options.id, result, options.context, options.target)

  const check = async (result: Json): Promise<boolean> => {
    const checked = await respond(result)
    if (finished) return false
    if (!checked.ok) {
      stop(checked.refusal)
      return false
    }
    sink.write(checked.value)
    return true
  }

  const release = async (): Promise<boolean> => {
    const events = held.splice(0)
    for (const event of events) {
      const artifact = event.artifact
      if (artifact === undefined) {
        if (!(await check(event.result))) return false
        continue
      }
      if (artifact.replacement === undefined) sink.write(event.result)
      else if (!artifact.sent) {
        artifact.sent = true
        sink.write(artifact.replacement)
      }
    }
    pending.clear()
    return true
  }

  const checkArtifact = async (artifact: PendingArtifact): Promise<boolean> => {
    artifact.complete = true
    const whole = wholeArtifact(artifact)
    const checked = await respond(whole)
    if (finished) return false
    if (!checked.ok) {
      stop(checked.refusal)
      return false
    }
    if (checked.value !== whole) artifact.replacement = checked.value
    return true
  }

  const handle = async (result: Json): Promise<boolean> => {
    const { kind, inner } = responseKind(result)
    if (limits.buffer !== 'artifact' || kind !== 'artifactUpdate' || !inner) {
      if (pending.size > 0) {
        held.push({ result })
        return true
      }
      return check(result)
    }
    const artifactObject = isObject(inner.artifact) ? inner.artifact : {}
    const key = `${String(inner.taskId ?? '')}/${String(artifactObject.artifactId ?? '')}`
    let artifact = pending.get(key)
    if (artifact && !artifact.complete && inner.append !== true) {
      // A chunk that replaces the artifact: what was held so far is checked as it stands (it
      // is sent as it came), and the new version is held on its own.
      if (!(await checkArtifact(artifact))) return false
    }
    if (!artifact || artifact.complete) {
      artifact = { first: result as JsonObject, inner, parts: [], bytes: 0, complete: false }
      pending.set(key, artifact)
    }
    const parts = Array.isArray(artifactObject.parts) ? artifactObject.parts : []
    artifact.parts.push(...parts)
    artifact.bytes += JSON.stringify(parts).length
    if (artifact.bytes > limits.maxBufferBytes) {
      stop(
        refusedBy(
          `an artifact grew past ${limits.maxBufferBytes} bytes while held for checking (a2a.stream.maxBufferBytes)`,
        ),
      )
      return false
    }
    held.push({ result, artifact })
    if (inner.lastChunk !== true) return true
    if (!(await checkArtifact(artifact))) return false
    if ([...pending.values()].every((a) => a.complete)) return release()
    return true
  }

  const drainPending = async (): Promise<boolean> => {
    for (const artifact of pending.values()) {
      if (!artifact.complete && !(await checkArtifact(artifact))) return false
    }
    return release()
  }

  try {
    for await (const chunk of body) {
      if (finished) break
      const events = parser.push(chunk as Buffer)
      for (const event of events) {
        const decoded = sink.decode(event)
        if (decoded.type === 'garbage') {
          stop(upstreamFailure('garbage', decoded.reason))
          break
        }
        if (decoded.type === 'error') {
          if (!(await drainPending())) break
          finished = true
          sink.passError(decoded.raw)
          sink.end()
          body.destroy()
          break
        }
        if (!(await handle(decoded.result))) break
      }
    }
    if (!finished) {
      if (parser.pending())
        options.log?.('the upstream stream ended in the middle of an event; that event was dropped')
      if (await drainPending()) stop()
    }
  } catch (error) {
    if (!finished) {
      const message = error instanceof Error ? error.message : String(error)
      stop(
        error instanceof Error && error.name === 'SseTooLargeError'
          ? refusedBy(message)
          : upstreamFailure('unreachable', `the upstream stream broke: ${message}`),
      )
    }
  } finally {
    clearTimeout(timer)
    options.clientGone.off('abort', onGone)
    if (!body.destroyed) body.destroy()
  }
}

/** The held chunks of one artifact as one event of the same form, text parts joined. */
function wholeArtifact(artifact: PendingArtifact): Json {
  const source = isObject(artifact.inner.artifact) ? artifact.inner.artifact : {}
  const inner: JsonObject = {
    ...artifact.inner,
    artifact: { ...source, parts: joinText(artifact.parts) },
    append: false,
    lastChunk: true,
  }
  const first = artifact.first
  return typeof first.kind === 'string' ? inner : { ...first, artifactUpdate: inner }
}

/** Adjacent text parts joined into one (streamed text is one text cut in pieces). */
export function joinText(parts: Json[]): Json[] {
  const joined: Json[] = []
  for (const part of parts) {
    const last = joined[joined.length - 1]
    if (isText(part) && last !== undefined && isText(last)) {
      joined[joined.length - 1] = { ...last, text: `${last.text}${part.text}` }
    } else {
      joined.push(part)
    }
  }
  return joined
}

function isText(part: Json): part is JsonObject & { text: string } {
  return isObject(part) && typeof part.text === 'string' && (part.kind === undefined || part.kind === 'text')
}
