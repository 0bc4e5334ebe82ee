// The checks of one MCP session: every client → server message is an `mcp.outbound` event,
// every server → client message an `mcp.inbound` event; a tools/call is also `tool.pre`
// and its result `tool.post`. Each check turns the engine's decision into what the bridge
// does with the message: forward it (as modified), answer its sender instead, or drop it.

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Decision, Engine, EventContext, JsonObject } from '../../core/index.js'
import {
  DENIED_ERROR_CODE,
  errorResponse,
  idKey,
  isObject,
  messageId,
  messageKind,
  messageMethod,
  paramsOf,
  type RequestId,
  resultOf,
  toolErrorResult,
} from './jsonrpc.js'
import {
  answer,
  type Direction,
  denialData,
  forwardTo,
  mcpPayload,
  modifiedMcpMessage,
  type Outcome,
} from './outcome.js'
import type { ToolPins } from './pins.js'
import { applyToolInput, applyToolResult, inputOf, toolResultView, toolWithResult } from './tool-call.js'
import type { ToolVisibility } from './tools.js'

/** What a session's checks need. */
export interface McpChecksOptions {
  engine: Engine
  /** Added to every event's context (agent, tenant, user). */
  context?: EventContext
  visibility?: ToolVisibility
  pins?: ToolPins
  /** Where the gateway's own log lines go (stderr in the CLI). */
  log?: (line: string) => void
  /** Requests in flight per direction before new ones are refused. Default 10 000. */
  maxPending?: number
}

interface PendingRequest {
  method: string
  /** The events' context, shared by the request's checks and its answer's. */
  context: EventContext
  tool?: { name: string; input: JsonObject }
  progressToken?: RequestId
}

const DEFAULT_MAX_PENDING = 10_000

/** The checks of one session, with the requests in flight in each direction. */
export class McpChecks {
  /** Client requests awaiting the server's answer. */
  private readonly clientRequests = new Map<string, PendingRequest>()
  /** Server requests awaiting the client's answer. */
  private readonly serverRequests = new Map<string, PendingRequest>()
  private readonly progress = new Map<string, RequestId>()
  private readonly context: EventContext
  private readonly maxPending: number
  private readonly log: (line: string) => void

  constructor(
    private readonly options: McpChecksOptions,
    sessionId: string = globalThis.crypto.randomUUID(),
  ) {
    this.context = { ...options.context, session: { ...options.context?.session, id: sessionId } }
    this.maxPending = options.maxPending ?? DEFAULT_MAX_PENDING
    this.log = options.log ?? (() => undefined)
  }

  /** Checks a message from the client. (Not `async`: it hands on the promise of the check.) */
  outbound(message: JSONRPCMessage): Promise<Outcome> {
    const kind = messageKind(message)
    if (kind === 'response') return this.response(message, 'outbound')
    const method = messageMethod(message) as string
    if (kind === 'notification') return this.notification(message, method, 'outbound')
    if (method === 'tools/call') return this.toolCall(message)
    return this.request(message, method, 'outbound')
  }

  /** Checks a message from the server. */
  inbound(message: JSONRPCMessage): Promise<Outcome> {
    const kind = messageKind(message)
    if (kind === 'response') return this.response(message, 'inbound')
    const method = messageMethod(message) as string
    if (kind === 'notification') return this.notification(message, method, 'inbound')
    return this.request(message, method, 'inbound')
  }

  /** Forgets one client request in flight (it could not be delivered). */
  forget(key: string): void {
    this.clientRequests.delete(key)
  }

  /** Forgets the requests in flight (the session ended). */
  clear(): void {
    this.clientRequests.clear()
    this.serverRequests.clear()
    this.progress.clear()
  }

  /**
   * Dispatches one event; `applies` checks a modify the way it will be applied, so one that
   * cannot be is recorded as the deny the peer is told.
   */
  private dispatch(
    event: string,
    payload: JsonObject,
    context: EventContext,
    applies?: (payload: JsonObject) => { ok: true } | { ok: false; error: string },
  ): Promise<Decision> {
    if (!applies) return this.options.engine.dispatch({ event, payload, context })
    const acceptModify = (modified: JsonObject) => {
      const applied = applies(modified)
      return applied.ok ? undefined : applied.error
    }
    return this.options.engine.dispatch({ event, payload, context, acceptModify })
  }

  /**
   * The context of the events about one request and its answer. Built with Object.assign:
   * a spread followed by more members takes a slow path in V8 (about a microsecond).
   */
  private requestContext(id: RequestId): EventContext {
    const context: EventContext = Object.assign({}, this.context)
    context.requestId = String(id)
    return context
  }

  private denied(what: string, decision: Decision): string {
    this.log(`denied ${what}: ${decision.reason}`)
    return decision.reason
  }

  private async request(message: JSONRPCMessage, method: string, direction: Direction): Promise<Outcome> {
    const id = messageId(message) as RequestId
    const pending = direction === 'outbound' ? this.clientRequests : this.serverRequests
    if (pending.size >= this.maxPending) {
      return answer(errorResponse(id, DENIED_ERROR_CODE, `too many requests in flight (${this.maxPending})`))
    }
    const context = this.requestContext(id)
    const decision = await this.dispatch(
      `mcp.${direction}`,
      mcpPayload(message, method, direction),
      context,
      (payload) => modifiedMcpMessage({ payload }, message),
    )
    if (decision.decision === 'deny') {
      const reason = this.denied(`${direction} ${method}`, decision)
      return answer(errorResponse(id, DENIED_ERROR_CODE, `Denied by Warden: ${reason}`, denialData(decision)))
    }
    const checked =
      decision.decision === 'modify' ? modifiedMcpMessage(decision, message) : { ok: true as const, message }
    if (!checked.ok) {
      this.log(`denied ${direction} ${method}: ${checked.error}`)
      return answer(errorResponse(id, DENIED_ERROR_CODE, `Denied by Warden: ${checked.error}`))
    }
    this.track(pending, id, { method, context }, checked.message)
    return { type: 'forward', message: checked.message, method }
  }

  private async toolCall(message: JSONRPCMessage): Promise<Outcome> {
    const id = messageId(message) as RequestId
    const params = paramsOf(message)
    const name = params.name
    if (typeof name !== 'string' || name.length === 0) {
      return answer(errorResponse(id, -32602, 'tools/call needs params.name, the tool to call'))
    }
    if (this.clientRequests.size >= this.maxPending) {
      return answer(toolErrorResult(id, `Denied by Warden: too many requests in flight (${this.maxPending})`))
    }
    const refusal = this.options.visibility?.hiddenReason(name) ?? this.options.pins?.denialFor(name)
    if (refusal !== undefined) {
      this.log(`denied tools/call ${name}: ${refusal}`)
      return answer(toolErrorResult(id, `Denied by Warden: ${refusal}`))
    }
    const input = isObject(params.arguments) ? params.arguments : {}
    const context = this.requestContext(id)
    const outbound = await this.dispatch(
      'mcp.outbound',
      mcpPayload(message, 'tools/call', 'outbound', { name, input, id: String(id) }),
      context,
      (payload) => applyToolInput({ payload }, message, input),
    )
    if (outbound.decision === 'deny') {
      return answer(toolErrorResult(id, `Denied by Warden: ${this.denied(`tools/call ${name}`, outbound)}`))
    }
    let current = message
    let currentInput = input
    if (outbound.decision === 'modify') {
      const applied = applyToolInput(outbound, message, input)
      if (!applied.ok) return answer(toolErrorResult(id, `Denied by Warden: ${applied.error}`))
      current = applied.message
      currentInput = inputOf(current)
    }
    const before = current
    const beforeInput = currentInput
    const pre = await this.dispatch(
      'tool.pre',
      { tool: { name, input: currentInput, id: String(id) } },
      context,
      (payload) => applyToolInput({ payload }, before, beforeInput),
    )
    if (pre.decision === 'deny') {
      return answer(toolErrorResult(id, `Denied by Warden: ${this.denied(`tools/call ${name}`, pre)}`))
    }
    if (pre.decision === 'modify') {
      const applied = applyToolInput(pre, current, currentInput)
      if (!applied.ok) return answer(toolErrorResult(id, `Denied by Warden: ${applied.error}`))
      current = applied.message
      currentInput = inputOf(current)
    }
    this.track(
      this.clientRequests,
      id,
      { method: 'tools/call', context, tool: { name, input: currentInput } },
      current,
    )
    return { type: 'forward', message: current, method: 'tools/call' }
  }

  private response(message: JSONRPCMessage, direction: Direction): Promise<Outcome> {
    const id = messageId(message)
    const pending = direction === 'inbound' ? this.clientRequests : this.serverRequests
    const request = id === undefined ? undefined : pending.get(idKey(id))
    if (id === undefined || !request) {
      return Promise.resolve({ type: 'drop', reason: 'a response to no request in flight' })
    }
    pending.delete(idKey(id))
    if (request.progressToken !== undefined) this.progress.delete(idKey(request.progressToken))
    if (request.tool) return this.toolResult(message, id, request.tool, request.context)
    return this.checkAnswer(message, id, request, direction)
  }

  /** Checks the answer to a request other than tools/call. */
  private async checkAnswer(
    message: JSONRPCMessage,
    id: RequestId,
    request: PendingRequest,
    direction: Direction,
  ): Promise<Outcome> {
    const decision = await this.dispatch(
      `mcp.${direction}`,
      mcpPayload(message, request.method, direction),
      request.context,
      (payload) => modifiedMcpMessage({ payload }, message),
    )
    if (decision.decision === 'deny') {
      const reason = this.denied(`${direction} answer to ${request.method}`, decision)
      const error = errorResponse(id, DENIED_ERROR_CODE, `Denied by Warden: ${reason}`, denialData(decision))
      return { type: 'forward', message: error, method: request.method }
    }
    let current = message
    if (decision.decision === 'modify') {
      const checked = modifiedMcpMessage(decision, message)
      current = checked.ok
        ? checked.message
        : errorResponse(id, DENIED_ERROR_CODE, `Denied by Warden: ${checked.error}`)
    }
    if (direction === 'inbound' && request.method === 'tools/list') current = this.listedTools(current)
    return { type: 'forward', message: current, method: request.method }
  }

  private async toolResult(
    message: JSONRPCMessage,
    id: RequestId,
    call: { name: string; input: JsonObject },
    context: EventContext,
  ): Promise<Outcome> {
    const view = toolResultView(message)
    const inbound = await this.dispatch(
      'mcp.inbound',
      mcpPayload(message, 'tools/call', 'inbound', toolWithResult(call, view)),
      context,
      (payload) => applyToolResult({ payload }, message, view),
    )
    if (inbound.decision === 'deny') {
      return forwardTo(
        toolErrorResult(id, `Denied by Warden: ${this.denied(`result of ${call.name}`, inbound)}`),
      )
    }
    let current = message
    let currentView = view
    if (inbound.decision === 'modify') {
      const applied = applyToolResult(inbound, message, view)
      if (!applied.ok) return forwardTo(toolErrorResult(id, `Denied by Warden: ${applied.error}`))
      current = applied.message
      currentView = toolResultView(current)
    }
    const before = current
    const beforeView = currentView
    const post = await this.dispatch(
      'tool.post',
      { tool: toolWithResult(call, currentView) },
      context,
      (payload) => applyToolResult({ payload }, before, beforeView),
    )
    if (post.decision === 'deny') {
      return forwardTo(
        toolErrorResult(id, `Denied by Warden: ${this.denied(`result of ${call.name}`, post)}`),
      )
    }
    if (post.decision === 'modify') {
      const applied = applyToolResult(post, current, currentView)
      if (!applied.ok) return forwardTo(toolErrorResult(id, `Denied by Warden: ${applied.error}`))
      current = applied.message
    }
    return forwardTo(current)
  }

  private async notification(
    message: JSONRPCMessage,
    method: string,
    direction: Direction,
  ): Promise<Outcome> {
    const decision = await this.dispatch(
      `mcp.${direction}`,
      mcpPayload(message, method, direction),
      this.context,
      (payload) => modifiedMcpMessage({ payload }, message),
    )
    if (decision.decision === 'deny')
      return { type: 'drop', reason: this.denied(`${direction} ${method}`, decision) }
    let current = message
    if (decision.decision === 'modify') {
      const checked = modifiedMcpMessage(decision, message)
      if (!checked.ok) return { type: 'drop', reason: checked.error }
      current = checked.message
    }
    const params = paramsOf(current)
    if (method === 'notifications/cancelled') {
      const requestId = params.requestId
      const pending = direction === 'outbound' ? this.clientRequests : this.serverRequests
      if (typeof requestId === 'string' || typeof requestId === 'number') pending.delete(idKey(requestId))
    }
    const outcome: Outcome = { type: 'forward', message: current, method }
    if (direction === 'inbound' && method === 'notifications/progress') {
      const token = params.progressToken
      const related =
        typeof token === 'string' || typeof token === 'number' ? this.progress.get(idKey(token)) : undefined
      if (related !== undefined) outcome.relatedRequestId = related
    }
    return outcome
  }

  /** Filters a tools/list answer and compares it with the pins. */
  private listedTools(message: JSONRPCMessage): JSONRPCMessage {
    const result = resultOf(message)
    if (!result || !Array.isArray(result.tools)) return message
    const tools = result.tools.filter(isObject)
    const pins = this.options.pins
    if (pins) {
      const seen = pins.observe(tools)
      for (const change of seen.changed) this.log(pins.denialFor(change.name) as string)
      if (seen.added.length > 0) {
        pins.save().catch((error: Error) => this.log(`cannot save pin file ${pins.path}: ${error.message}`))
      }
    }
    const visible = this.options.visibility ? this.options.visibility.filter(tools) : tools
    if (visible.length === result.tools.length) return message
    return { ...message, result: { ...result, tools: visible } } as JSONRPCMessage
  }

  private track(
    pending: Map<string, PendingRequest>,
    id: RequestId,
    entry: PendingRequest,
    message: JSONRPCMessage,
  ): void {
    const meta = paramsOf(message)._meta
    const token = isObject(meta) ? meta.progressToken : undefined
    if ((typeof token === 'string' || typeof token === 'number') && pending === this.clientRequests) {
      entry.progressToken = token
      this.progress.set(idKey(token), id)
    }
    pending.set(idKey(id), entry)
  }
}
