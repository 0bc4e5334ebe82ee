// What the JSON-RPC routes (`POST /aos`, `POST /acs`) share: bodies read raw, so that bad
// UTF-8, bad JSON, deep nesting and bodies over the limit become JSON-RPC errors rather
// than HTTP failures, compressed bodies refused naming content-encoding, and how a held
// request learns that its caller went away.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { OnCallerGone } from '../core/index.js'
import { answeredRefusal } from '../inflight/index.js'
import { errorResponse, RPC_ERRORS, rpcError } from '../protocols/aos/index.js'

/** Settings of {@link rawRpcScope}. */
export interface RpcScopeOptions {
  bodyLimitBytes: number
  /** Told about failures of the server itself (status 500 and up). */
  onInternalError?: ((error: unknown) => void) | undefined
}

/**
 * Makes a route scope read every body as a Buffer and answer its errors as JSON-RPC: 413
 * names the limit, other client errors their message, server errors a generic message
 * (the cause goes to `onInternalError`).
 */
export function rawRpcScope(scope: FastifyInstance, options: RpcScopeOptions): void {
  scope.removeAllContentTypeParsers()
  scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
  scope.setErrorHandler((error, _request, reply) => {
    if (answeredRefusal(error, reply)) return reply
    const status = (error as { statusCode?: number }).statusCode ?? 500
    const rpc =
      status === 413
        ? rpcError(
            RPC_ERRORS.invalidRequest,
            'body',
            `the body is over the limit of ${options.bodyLimitBytes} bytes`,
          )
        : status < 500
          ? rpcError(RPC_ERRORS.invalidRequest, 'body', (error as Error).message)
          : rpcError(
              RPC_ERRORS.internal,
              'server',
              'an internal error occurred; the request was not evaluated',
            )
    if (status >= 500) options.onInternalError?.(error)
    return reply.code(status).send(errorResponse(null, rpc))
  })
}

/**
 * Answers 415 when the body is compressed (only `identity` is read).
 * @returns true when the request was refused and answered.
 */
export function refusedEncoding(request: FastifyRequest, reply: FastifyReply): boolean {
  const encoding = request.headers['content-encoding']
  if (encoding === undefined || encoding.toLowerCase() === 'identity') return false
  const rpc = rpcError(
    RPC_ERRORS.invalidRequest,
    'content-encoding',
    `content-encoding "${encoding.slice(0, 40)}" is not supported; send the body uncompressed`,
  )
  reply.code(415).send(errorResponse(null, rpc))
  return true
}

/** The raw body of a request read by a {@link rawRpcScope} (empty when there was none). */
export function rawBody(request: FastifyRequest): Buffer {
  return Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
}

/**
 * How a held request learns that its caller went away: a listener on the response's
 * `close`, called when the connection closed before the answer was written (so a held ask
 * is marked abandoned at once). Registered only when an approver asks for it.
 */
export function callerGone(reply: FastifyReply): OnCallerGone {
  return (listener) => {
    const raw = reply.raw
    if (raw.writableFinished) return
    if (raw.destroyed) return listener()
    raw.once('close', () => {
      if (!raw.writableFinished) listener()
    })
  }
}
