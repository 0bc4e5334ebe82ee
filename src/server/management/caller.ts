// Whether the HTTP caller of the request being answered is still there: a signal, carried
// through the request's asynchronous work, that aborts when its connection closes before
// the answer was sent. The approval broker marks a held ask abandoned at once when it fires.

import { AsyncLocalStorage } from 'node:async_hooks'
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'

const callers = new AsyncLocalStorage<AbortSignal>()

/**
 * A Fastify `preValidation` hook (the body is read by then): the rest of the request runs
 * with a signal that aborts when the caller's connection closes before the answer is sent.
 */
export function callerScope(
  _request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  const gone = new AbortController()
  const onClose = () => {
    if (!reply.raw.writableFinished) gone.abort(new Error('the caller closed its connection'))
  }
  reply.raw.once('close', onClose)
  callers.run(gone.signal, done)
}

/** The signal of the caller being answered, when inside a request. */
export function callerSignal(): AbortSignal | undefined {
  return callers.getStore()
}
