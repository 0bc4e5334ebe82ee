// The management API client: one WebSocket to `/ws`, requests answered by id, pushes
// delivered to listeners. Errors carry the server's code, message and field.

/** An error answer from the server (or the connection failing). */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message)
  }
}

type Listener = (payload: unknown) => void

/**
 * Why a socket closed before it opened: a browser does not tell a refused upgrade (401) from
 * a server that is down, so the health endpoint is asked. An answer means the server is up
 * and refused the token; no answer means it cannot be reached.
 */
async function whyRefused(base: string): Promise<ApiError> {
  const health = new URL('healthz', base.replace(/#.*$/, ''))
  try {
    await fetch(health, { cache: 'no-store' })
  } catch {
    return new ApiError(
      'unavailable',
      `The server cannot be reached at ${health.host}. Check that warden serve is running, then try again.`,
    )
  }
  return new ApiError(
    'unauthorized',
    'The server refused this token: it is mistyped, revoked or from another server. Make a new one with warden tokens create.',
  )
}

/** The close code the server sends when the token was revoked (the session is over). */
export const REVOKED_CLOSE_CODE = 4401

/** A connected client. */
export class Client {
  private next = 1
  private readonly waiting = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: ApiError) => void }
  >()
  private readonly listeners = new Map<string, Set<Listener>>()
  private readonly closers = new Set<(reason: string, code: number) => void>()

  private constructor(private readonly socket: WebSocket) {
    socket.addEventListener('message', (message) => this.receive(String(message.data)))
    socket.addEventListener('close', (event) => {
      const reason =
        event.code === REVOKED_CLOSE_CODE
          ? 'the access token was revoked'
          : event.reason || 'the connection closed'
      for (const [, waiter] of this.waiting) waiter.reject(new ApiError('unavailable', reason))
      this.waiting.clear()
      for (const closer of this.closers) closer(reason, event.code)
    })
  }

  /** Connects with a token; rejects when the server refuses it or cannot be reached. */
  static connect(token: string, base: string = location.href): Promise<Client> {
    const url = new URL('ws', base.replace(/#.*$/, ''))
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
    url.searchParams.set('token', token)
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url)
      socket.addEventListener('open', () => resolve(new Client(socket)), { once: true })
      socket.addEventListener('close', () => void whyRefused(base).then(reject), { once: true })
    })
  }

  /** Calls a method; resolves with its payload, rejects with an {@link ApiError}. */
  call<T = unknown>(method: string, params: unknown = {}): Promise<T> {
    const id = this.next++
    if (this.socket.readyState !== WebSocket.OPEN) {
      return Promise.reject(new ApiError('unavailable', 'the connection to the server is lost'))
    }
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject })
      this.socket.send(JSON.stringify({ type: 'req', id, method, params }))
    })
  }

  /** Listens to a push; returns a function that stops listening. */
  on(event: string, listener: Listener): () => void {
    const set = this.listeners.get(event) ?? new Set()
    set.add(listener)
    this.listeners.set(event, set)
    return () => set.delete(listener)
  }

  /** Listens to the connection closing, with the reason and the WebSocket close code. */
  onClose(listener: (reason: string, code: number) => void): () => void {
    this.closers.add(listener)
    return () => this.closers.delete(listener)
  }

  close(): void {
    this.socket.close()
  }

  private receive(text: string): void {
    const frame = JSON.parse(text) as {
      type: string
      id?: number
      ok?: boolean
      payload?: unknown
      error?: { code: string; message: string; field?: string }
      event?: string
    }
    if (frame.type === 'event' && frame.event) {
      for (const listener of this.listeners.get(frame.event) ?? []) listener(frame.payload)
      return
    }
    if (frame.type !== 'res' || typeof frame.id !== 'number') return
    const waiter = this.waiting.get(frame.id)
    if (!waiter) return
    this.waiting.delete(frame.id)
    if (frame.ok) waiter.resolve(frame.payload)
    else
      waiter.reject(
        new ApiError(frame.error?.code ?? 'internal', frame.error?.message ?? 'failed', frame.error?.field),
      )
  }
}
