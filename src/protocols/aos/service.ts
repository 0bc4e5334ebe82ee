// The AOS Guardian as a function from a request body to the response body: decodes and
// checks it, answers single requests, batches and notifications as JSON-RPC 2.0 says,
// maps each method onto its event, asks the engine and maps the decision back.

import { dispatchSoon, type Soon } from '../../core/engine.js'
import type { Decision, DispatchInput, Engine, JsonObject, OnCallerGone } from '../../core/index.js'
import { checkTenant, type RequestMeta } from './context.js'
import {
  checkEnvelope,
  decodeBody,
  errorResponse,
  RPC_ERRORS,
  RpcError,
  type RpcId,
  type RpcRequest,
  readableId,
  rpcError,
} from './jsonrpc.js'
import { createMappingState } from './mapping.js'
import { mapRequest } from './methods.js'
import { aosModifyProblem, decisionResult, pingResult } from './result.js'

/** Settings of the AOS service; every one but the engine has a default. */
export interface AosServiceOptions {
  engine: Engine
  /** Reported by `ping`. */
  version?: string
  /** Most requests in one batch. Default 100. */
  maxBatch?: number
  /** Deepest JSON nesting accepted. Default 64. */
  maxDepth?: number
  /** Told about unexpected failures (answered -32603 without details). */
  onInternalError?: (error: unknown) => void
}

/** A response body: one response, a batch of them, or nothing (notifications only). */
export type AosReply = JsonObject | JsonObject[] | undefined

/** The AOS Guardian service. */
export interface AosService {
  /** Answers a raw request body with the headers that matter (the tenant header). */
  handleBody(body: Uint8Array, headers: AosHeaders): Promise<AosReply>
  /**
   * {@link AosService.handleBody}, answering synchronously when every hook that ran did
   * (no promise is made), else with a promise. Never throws.
   */
  answerBody(body: Uint8Array, headers: AosHeaders): Soon<AosReply>
  /** Answers an already decoded body. */
  handle(body: unknown, meta: RequestMeta): Promise<AosReply>
}

/** What a request's transport adds: the tenant header, and how to learn the caller left. */
export interface AosHeaders {
  tenant?: string | string[]
  onCallerGone?: OnCallerGone
}

export const AOS_DEFAULTS = { maxBatch: 100, maxDepth: 64 } as const

/** The meta of a request without a tenant header (shared: never written to). */
const NO_META: RequestMeta = Object.freeze({})

function isNotification(message: unknown): boolean {
  return typeof message === 'object' && message !== null && !Array.isArray(message) && !('id' in message)
}

/** Creates the AOS service over an engine. */
export function createAosService(options: AosServiceOptions): AosService {
  const engine = options.engine
  const version = options.version ?? '0.1.0'
  const maxBatch = options.maxBatch ?? AOS_DEFAULTS.maxBatch
  const maxDepth = options.maxDepth ?? AOS_DEFAULTS.maxDepth
  const state = createMappingState()

  /** Answers a checked request; throws an RpcError for what it cannot answer. */
  function answer(request: RpcRequest, meta: RequestMeta): Soon<JsonObject | undefined> {
    const id = request.id
    if (request.method === 'ping') {
      return id === undefined ? undefined : { jsonrpc: '2.0', id, result: pingResult(version) }
    }
    const mapped = mapRequest(request, meta, state)
    const input: DispatchInput = mapped
    if (id !== undefined) {
      const sent = request as RpcRequest & { id: RpcId }
      input.acceptModify = (modified) => aosModifyProblem(sent, mapped.payload, modified)
    }
    if (meta.onCallerGone) input.onCallerGone = meta.onCallerGone
    const decision = dispatchSoon(engine, input)
    if (decision instanceof Promise) return decision.then((made) => answered(request, made, mapped.payload))
    return answered(request, decision, mapped.payload)
  }

  function answered(request: RpcRequest, decision: Decision, payload: JsonObject): JsonObject | undefined {
    const id = request.id
    if (id === undefined) return undefined
    if (decision.trace.length === 0 && decision.reasonCode[0] === 'invalid-event') {
      throw rpcError(RPC_ERRORS.invalidParams, 'params', decision.reason)
    }
    return {
      jsonrpc: '2.0',
      id,
      result: decisionResult(decision, request as RpcRequest & { id: RpcId }, payload),
    }
  }

  /** Answers one message of a body; never throws nor rejects. */
  function one(message: unknown, meta: RequestMeta): Soon<JsonObject | undefined> {
    let request: RpcRequest
    try {
      request = checkEnvelope(message)
    } catch (error) {
      // A notification (a request object without an id) whose params are of the wrong type
      // gets no answer, like every other notification whose params do not fit.
      const rpc = error as RpcError
      if (rpc.code === RPC_ERRORS.invalidParams && isNotification(message)) return undefined
      return errorResponse(readableId(message) ?? null, rpc)
    }
    try {
      const reply = answer(request, meta)
      if (!(reply instanceof Promise)) return reply
      return reply.then(undefined, (error: unknown) => failure(request, error))
    } catch (error) {
      return failure(request, error)
    }
  }

  /** The error response for a request that failed (none for a notification). */
  function failure(request: RpcRequest, error: unknown): JsonObject | undefined {
    if (request.id === undefined) return undefined
    if (error instanceof RpcError) return errorResponse(request.id, error)
    options.onInternalError?.(error)
    return errorResponse(
      request.id,
      rpcError(RPC_ERRORS.internal, 'server', 'an internal error occurred; the request was not evaluated'),
    )
  }

  /** A single request's answer is handed on as it is: synchronous when it could be. */
  function handleSoon(body: unknown, meta: RequestMeta): Soon<AosReply> {
    return Array.isArray(body) ? batch(body, meta) : one(body, meta)
  }

  /** Async, so that even an `onInternalError` that throws ends as a rejection. */
  async function handle(body: unknown, meta: RequestMeta): Promise<AosReply> {
    return handleSoon(body, meta)
  }

  function answerBody(raw: Uint8Array, headers: AosHeaders): Soon<AosReply> {
    let body: unknown
    try {
      body = decodeBody(raw, maxDepth)
    } catch (error) {
      return errorResponse(null, error as RpcError)
    }
    let tenant: string | undefined
    try {
      tenant = checkTenant(headers.tenant)
    } catch (error) {
      const id = Array.isArray(body) ? null : (readableId(body) ?? null)
      return errorResponse(id, error as RpcError)
    }
    if (headers.onCallerGone) {
      const meta: RequestMeta = { onCallerGone: headers.onCallerGone }
      if (tenant !== undefined) meta.tenant = tenant
      return handleSoon(body, meta)
    }
    return handleSoon(body, tenant === undefined ? NO_META : { tenant })
  }

  async function batch(body: unknown[], meta: RequestMeta): Promise<AosReply> {
    if (body.length === 0) {
      return errorResponse(
        null,
        rpcError(RPC_ERRORS.invalidRequest, 'body', 'an empty batch; send at least one request'),
      )
    }
    if (body.length > maxBatch) {
      return errorResponse(
        null,
        rpcError(
          RPC_ERRORS.invalidRequest,
          'body',
          `a batch of ${body.length} requests is over the limit of ${maxBatch}`,
        ),
      )
    }
    const replies = await Promise.all(body.map((message) => one(message, meta)))
    const sent = replies.filter((r): r is JsonObject => r !== undefined)
    return sent.length > 0 ? sent : undefined
  }

  return {
    handle,
    answerBody,
    async handleBody(raw, headers) {
      return answerBody(raw, headers)
    },
  }
}
