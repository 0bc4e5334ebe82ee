// Starting and stopping the server: listen on a host and port, and shut down gracefully on
// SIGTERM / SIGINT — stop accepting, let requests in flight finish, drain the hooks still
// running for non-blocking events, close the engine, then exit 0.

import { lookup } from 'node:dns/promises'
import { createServer, type Server } from 'node:http'
import type { FastifyInstance } from 'fastify'
import type { Engine } from '../core/index.js'

/** Where to listen. */
export interface ListenOptions {
  /** Default 7070; 0 picks a free port. */
  port?: number
  /** Default 127.0.0.1. */
  host?: string
}

export const LISTEN_DEFAULTS = { port: 7070, host: '127.0.0.1' } as const

/**
 * Starts listening.
 * @returns the base URL, e.g. `http://127.0.0.1:7070`.
 */
export async function listen(app: FastifyInstance, options: ListenOptions = {}): Promise<string> {
  const host = options.host ?? LISTEN_DEFAULTS.host
  await app.listen({ port: options.port ?? LISTEN_DEFAULTS.port, host })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : (options.port ?? LISTEN_DEFAULTS.port)
  if (host === 'localhost' && typeof address === 'object' && address) {
    await listenAlsoOn(app.server, address.address, port)
  }
  const shownHost = host.includes(':') ? `[${host}]` : host
  return `http://${shownHost}:${port}`
}

/**
 * `localhost` names both loopback addresses: the server listens on the first, and here on
 * the others, with the same handler and timeouts (closed once the server is). An address
 * that cannot be bound (no IPv6) is skipped, as the first one decides.
 */
async function listenAlsoOn(server: Server, bound: string, port: number): Promise<void> {
  const addresses = await lookup('localhost', { all: true }).catch(() => [])
  const handler = server.listeners('request')[0] as Parameters<typeof createServer>[1] | undefined
  if (!handler) return
  for (const { address } of addresses) {
    if (address === bound) continue
    const also = createServer(handler)
    also.keepAliveTimeout = server.keepAliveTimeout
    also.requestTimeout = server.requestTimeout
    also.setTimeout(server.timeout)
    const listening = await new Promise<boolean>((resolve) => {
      also.once('error', () => resolve(false))
      also.listen(port, address, () => resolve(true))
    })
    if (!listening) continue
    server.once('close', () => {
      also.close()
      also.closeIdleConnections()
    })
  }
}

/** Settings of {@link stopGracefully} and {@link installShutdown}. */
export interface ShutdownOptions {
  app: FastifyInstance
  engine: Engine
  /** Longest the whole shutdown may take before giving up. Default 30 000 ms. */
  timeoutMs?: number
}

/**
 * Stops the server gracefully: in-flight requests finish, background hooks drain, the
 * engine closes.
 * @returns true when everything stopped within the timeout.
 */
export async function stopGracefully(options: ShutdownOptions): Promise<boolean> {
  const work = (async () => {
    await options.app.close()
    await options.engine.drain()
    await options.engine.close()
  })()
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), options.timeoutMs ?? 30_000)
    timer.unref?.()
  })
  try {
    return await Promise.race([work.then(() => true), timeout])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Shuts down gracefully on SIGTERM and SIGINT, then calls `exit` with 0 (or 1 when the
 * shutdown timed out or failed).
 * @returns a function that removes the signal handlers.
 */
export function installShutdown(
  options: ShutdownOptions & {
    exit?: (code: number) => void
    onSignal?: (signal: NodeJS.Signals) => void
  },
): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code))
  let stopping = false
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return
    stopping = true
    options.onSignal?.(signal)
    stopGracefully(options).then(
      (clean) => exit(clean ? 0 : 1),
      () => exit(1),
    )
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  return () => {
    process.off('SIGTERM', onSignal)
    process.off('SIGINT', onSignal)
  }
}
