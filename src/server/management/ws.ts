// `GET /ws`: the management WebSocket. The token is checked before the upgrade (401 when
// missing, bad or revoked; 403 for an agent token); each text frame is one request,
// checked for size, rate, shape, method, role and params, each failure answered with an
// error frame naming it while the connection carries on. A revoked token's connections
// are closed as soon as the change feed says so. Pushes to many connections are framed
// once and written to each socket as they are, a short window's pushes in one write
// (push-writer.ts).

import websocket from '@fastify/websocket'
import type { FastifyInstance } from 'fastify'
import type { WebSocket } from 'ws'
import { errorMessage, withArticle } from '../../core/index.js'
import { decodeBody, RpcError } from '../../protocols/index.js'
import type { PushHub, PushTopic, Subscriber } from './hub.js'
import {
  ApiError,
  type ConnectionHandle,
  errorFrame,
  type MethodDef,
  okFrame,
  type PushFilter,
  parseParams,
} from './protocol.js'
import {
  corkUntilNextTurn,
  flushTarget,
  type PushTarget,
  queuePush,
  textFrame,
  waitingBytes,
} from './push-writer.js'
import { type Principal, type TokenAuthority, tokenFromRequest } from './tokens.js'

/** Options of {@link managementSocket}. */
export interface SocketOptions {
  authority: TokenAuthority
  hub: PushHub
  methods: Record<string, MethodDef>
  maxFrameBytes: number
  requestsPerSecond: number
  onInternalError?: (error: unknown) => void
}

/** Deepest JSON nesting a frame may have (as `/aos` bodies). */
const MAX_FRAME_DEPTH = 64

/** Close code for a revoked token (4000 + HTTP 401). */
export const CLOSE_REVOKED = 4401

/** Frames bigger than this are cut off by the socket itself (close 1009); smaller ones over the limit get an error frame. */
function hardCap(maxFrameBytes: number): number {
  return maxFrameBytes * 4 + 64 * 1024
}

/** A token bucket: `rate` per second, bursts of twice that. */
class Bucket {
  private tokens: number
  private last = performance.now()
  constructor(private readonly rate: number) {
    this.tokens = rate * 2
  }
  take(): boolean {
    const now = performance.now()
    this.tokens = Math.min(this.rate * 2, this.tokens + ((now - this.last) / 1000) * this.rate)
    this.last = now
    if (this.tokens < 1) return false
    this.tokens -= 1
    return true
  }
}

/** Closest method names, for "did you mean". */
function suggest(name: string, methods: string[]): string[] {
  const prefix = name.split('.')[0] ?? ''
  return methods.filter((m) => m.startsWith(`${prefix}.`)).slice(0, 8)
}

/** A short description of a value for an error message (never the whole value: it may be huge or nested very deep). */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (typeof value === 'string') return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value)
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return String(value)
  return Array.isArray(value) ? 'a list' : 'an object'
}

function idOf(frame: unknown): string | number | null {
  if (typeof frame !== 'object' || frame === null) return null
  const id = (frame as { id?: unknown }).id
  return typeof id === 'string' || typeof id === 'number' ? id : null
}

/** One open connection. */
class Connection implements ConnectionHandle {
  readonly subscriber: Subscriber
  private readonly bucket: Bucket
  /** Where this connection's gathered pushes are written. */
  private readonly pushes: PushTarget

  constructor(
    readonly socket: WebSocket,
    readonly principal: Principal,
    readonly token: string,
    private readonly options: SocketOptions,
  ) {
    this.bucket = new Bucket(options.requestsPerSecond)
    // `_socket` is ws's underlying net.Socket. A push that goes to many connections comes as
    // bytes: its frame is built once and gathered with the other pushes of its window
    // (push-writer.ts), unless an extension (compression) changes frames per connection;
    // then, or without the socket, ws frames it and the writes of one turn leave together.
    const tcp = (
      socket as unknown as { _socket?: { cork(): void; uncork(): void; write(bytes: Buffer): boolean } }
    )._socket
    const framed = tcp !== undefined && socket.extensions === ''
    const target: PushTarget = {
      write: (bytes) => void tcp?.write(bytes),
      open: () => socket.readyState === socket.OPEN,
    }
    this.pushes = target
    this.subscriber = {
      topics: new Map(),
      dropped: 0,
      buffered: () => socket.bufferedAmount + waitingBytes(target),
      send: (frame, urgent = true) => {
        if (framed && typeof frame !== 'string') {
          if (socket.readyState === socket.OPEN) queuePush(target, textFrame(frame), urgent)
          return
        }
        flushTarget(target)
        if (tcp) corkUntilNextTurn(tcp)
        socket.send(frame, { binary: false })
      },
      ...(principal.tenant !== undefined ? { tenant: principal.tenant } : {}),
    }
  }

  subscribe(events: readonly string[], filter: PushFilter): string[] {
    for (const event of events) this.subscriber.topics.set(event as PushTopic, filter)
    this.options.hub.add(this.subscriber)
    return [...this.subscriber.topics.keys()]
  }

  unsubscribe(events: readonly string[] | undefined): string[] {
    if (events === undefined) this.subscriber.topics.clear()
    else for (const event of events) this.subscriber.topics.delete(event as PushTopic)
    this.options.hub.recount()
    return [...this.subscriber.topics.keys()]
  }

  send(frame: string): void {
    // Pushes waiting for this connection leave first: answers and pushes keep their order.
    flushTarget(this.pushes)
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(frame)
  }

  async receive(data: Buffer, isBinary: boolean): Promise<void> {
    const { maxFrameBytes, methods } = this.options
    if (data.length > maxFrameBytes) {
      return this.send(
        errorFrame(
          null,
          new ApiError(
            'frame-too-large',
            `the frame is ${data.length} bytes, over the limit of ${maxFrameBytes} bytes`,
          ),
        ),
      )
    }
    let frame: unknown
    if (!this.bucket.take()) {
      try {
        frame = data.length < 4096 ? JSON.parse(data.toString('utf8')) : undefined
      } catch {
        frame = undefined
      }
      const rate = this.options.requestsPerSecond
      return this.send(
        errorFrame(
          idOf(frame),
          new ApiError(
            'rate-limited',
            `too many requests: at most ${rate} per second (bursts of ${rate * 2}); slow down and send it again`,
          ),
        ),
      )
    }
    if (isBinary) {
      return this.send(
        errorFrame(
          null,
          new ApiError('bad-frame', 'binary frames are not accepted; send each request as a JSON text frame'),
        ),
      )
    }
    try {
      frame = decodeBody(data, MAX_FRAME_DEPTH)
    } catch (error) {
      const reason = error instanceof RpcError ? error.data.reason : errorMessage(error)
      return this.send(
        errorFrame(null, new ApiError('bad-frame', reason.replace(/^the body /, 'the frame '))),
      )
    }
    const id = idOf(frame)
    const request = frame as { type?: unknown; id?: unknown; method?: unknown; params?: unknown }
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) {
      return this.send(
        errorFrame(
          null,
          new ApiError(
            'bad-frame',
            'a frame must be an object {"type":"req","id":…,"method":…,"params":{…}}',
          ),
        ),
      )
    }
    const extra = Object.keys(request).filter((k) => !['type', 'id', 'method', 'params'].includes(k))
    const problem =
      request.type !== 'req'
        ? new ApiError('bad-frame', `type must be "req" (got ${describe(request.type)})`, 'type')
        : id === null
          ? new ApiError('bad-frame', 'id must be a string or a number, echoed in the answer', 'id')
          : typeof request.method !== 'string'
            ? new ApiError('bad-frame', 'method must be a string such as "hooks.list"', 'method')
            : extra.length > 0
              ? new ApiError(
                  'bad-frame',
                  `unknown field "${extra[0]}" in the frame; a request has type, id, method and params`,
                  extra[0],
                )
              : undefined
    if (problem) return this.send(errorFrame(id, problem))
    const name = request.method as string
    const def = Object.hasOwn(methods, name) ? methods[name] : undefined
    if (!def) {
      const close = suggest(name, Object.keys(methods))
      const hint = close.length ? `; the methods of "${name.split('.')[0]}" are ${close.join(', ')}` : ''
      return this.send(
        errorFrame(
          id,
          new ApiError('unknown-method', `unknown method "${name.slice(0, 100)}"${hint}`, 'method'),
        ),
      )
    }
    if (!def.roles.includes(this.principal.role)) {
      return this.send(
        errorFrame(
          id,
          new ApiError(
            'forbidden',
            `${withArticle(this.principal.role)} token may not call ${name}`,
            'method',
          ),
        ),
      )
    }
    try {
      const params = parseParams(def.params, request.params, name)
      const payload = await def.run(params, { principal: this.principal, connection: this })
      this.send(okFrame(id as string | number, payload))
    } catch (error) {
      if (error instanceof ApiError) return this.send(errorFrame(id, error))
      this.options.onInternalError?.(error)
      this.send(errorFrame(id, new ApiError('internal', `${name} failed: ${errorMessage(error)}`)))
    }
  }
}

/** Registers `GET /ws` on the app. */
export async function managementSocket(app: FastifyInstance, options: SocketOptions): Promise<() => void> {
  const connections = new Set<Connection>()
  await app.register(websocket, { options: { maxPayload: hardCap(options.maxFrameBytes) } })
  const principals = new WeakMap<object, { principal: Principal; token: string }>()

  app.get(
    '/ws',
    {
      websocket: true,
      preValidation: async (request, reply) => {
        const token = tokenFromRequest(request.headers.authorization, request.query)
        const verdict = await options.authority.verify(token)
        if ('error' in verdict) return reply.code(401).send({ error: verdict.error })
        if (verdict.principal.role === 'agent') {
          return reply.code(403).send({
            error: 'an agent token may call /aos only; use an admin, editor, approver or viewer token',
          })
        }
        principals.set(request.raw, { principal: verdict.principal, token: token as string })
      },
    },
    (socket, request) => {
      const who = principals.get(request.raw)
      if (!who) return socket.close(1011, 'not authenticated')
      const connection = new Connection(socket, who.principal, who.token, options)
      connections.add(connection)
      socket.on('message', (data, isBinary) => {
        const buffer = Buffer.isBuffer(data)
          ? data
          : Array.isArray(data)
            ? Buffer.concat(data)
            : Buffer.from(data)
        connection.receive(buffer, isBinary).catch((error: unknown) => {
          // A failure outside the method call must not take the server down.
          options.onInternalError?.(error)
          connection.send(
            errorFrame(
              null,
              new ApiError('internal', `the frame could not be handled: ${errorMessage(error)}`),
            ),
          )
        })
      })
      socket.on('close', () => {
        connections.delete(connection)
        options.hub.remove(connection.subscriber)
      })
      socket.on('error', () => undefined)
    },
  )

  // A revocation (here or on another instance) closes the connections of that token.
  const stop = options.authority.onChange(() => {
    for (const connection of connections) {
      void options.authority.verify(connection.token).then((verdict) => {
        if ('error' in verdict) connection.socket.close(CLOSE_REVOKED, 'the access token has been revoked')
      })
    }
  })
  app.addHook('preClose', async () => {
    for (const connection of connections) connection.socket.close(1001, 'Warden is shutting down')
  })
  return stop
}

/** The push framing, kept importable from here. */
export { corkUntilNextTurn, textFrame } from './push-writer.js'
