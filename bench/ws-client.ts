// A `/ws` client for the management benchmark: requests answered by id, `decision` pushes
// counted without parsing them, other pushes handed to a waiter; every wait bounded.

import WebSocket from 'ws'

/** Longest wait for an answer or a push before the run fails, in ms. */
export const TIMEOUT_MS = 10_000

/** The promise, or a rejection naming what did not come within TIMEOUT_MS. */
export function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${TIMEOUT_MS} ms`)), TIMEOUT_MS)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** A decision push, told apart by its first bytes (the subscribers do not parse every push). */
export const DECISION_PREFIX = '{"type":"event","event":"decision"'

export interface Frame {
  type: 'res' | 'event'
  id?: number
  ok?: boolean
  payload?: { id?: string; count?: number } & Record<string, unknown>
  error?: { code: string; message: string }
  event?: string
}

/** A `/ws` client: requests answered by id, pushes counted or handed to a waiter. */
export class WsClient {
  decisions = 0
  dropped = 0
  private next = 1
  private readonly answers = new Map<number, (frame: Frame) => void>()
  private readonly pushWaiters = new Map<string, (frame: Frame) => void>()

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      if (
        data.length > DECISION_PREFIX.length &&
        data.toString('latin1', 0, DECISION_PREFIX.length) === DECISION_PREFIX
      ) {
        this.decisions++
        return
      }
      const frame = JSON.parse(data.toString('utf8')) as Frame
      if (frame.type === 'res' && typeof frame.id === 'number') {
        this.answers.get(frame.id)?.(frame)
        this.answers.delete(frame.id)
      } else if (frame.type === 'event' && frame.event === 'push.dropped') {
        this.dropped += frame.payload?.count ?? 0
      } else if (frame.type === 'event' && frame.event) {
        const waiter = this.pushWaiters.get(frame.event)
        this.pushWaiters.delete(frame.event)
        waiter?.(frame)
      }
    })
  }

  static connect(url: string, token: string): Promise<WsClient> {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/ws`, {
      headers: { authorization: `Bearer ${token}` },
      perMessageDeflate: false,
    })
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new WsClient(socket)))
      socket.once('unexpected-response', (_req, res) =>
        reject(new Error(`/ws answered HTTP ${res.statusCode}`)),
      )
      socket.once('error', reject)
    })
  }

  /** Sends a request; resolves with its answer's payload, rejects with its error. */
  call(method: string, params: unknown = {}): Promise<Frame['payload']> {
    const id = this.next++
    const answer = new Promise<Frame['payload']>((resolve, reject) => {
      this.answers.set(id, (frame) =>
        frame.ok
          ? resolve(frame.payload)
          : reject(new Error(`${method} failed: ${JSON.stringify(frame.error)}`)),
      )
      this.socket.send(JSON.stringify({ type: 'req', id, method, params }))
    })
    return within(answer, `answer to ${method}`)
  }

  /** The next push of an event (one waiter per event at a time). */
  nextPush(event: string): Promise<Frame> {
    return within(new Promise((resolve) => this.pushWaiters.set(event, resolve)), `${event} push`)
  }

  close(): void {
    this.socket.close()
  }
}
