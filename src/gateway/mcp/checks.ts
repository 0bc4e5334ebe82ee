// The checks of one MCP session: every client → server message is an `mcp.outbound` event,
// every server → client message an `mcp.inbound` event; a tools/call is also `tool.pre`
// and its result `tool.post`; resources, prompts, sampling and elicitation have their own
// events (feature-checks.ts). Every message is first read against the closed-world tables
// (scan.ts): an unknown method, notification or content block is refused naming it unless
// `mcp.allowUnknownTypes` lets it through. Each check turns the engine's decision into what
// the bridge does with the message: forward it (as modified), answer its sender instead, or
// drop it.

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Decision, Engine, EventContext, JsonObject } from '../../core/index.js'
import { REFUSE_UNKNOWN, type UnknownTypePolicy } from '../kit/index.js'
import {
  checkAnnouncedResource,
  checkAnswerFeatures,
  checkEmbeddedResources,
  checkFeatureRequest,
  type Dispatch,
} from './feature-checks.js'
import { type Feature, featureOf } from './features.js'
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
import { type Scan, scanAnswer, scanNotification, scanRequest } from './scan.js'
import { checkToolCall, checkToolResult, type ToolCheckHost } from './tool-checks.js'
import { listedTools, type ToolVisibility } from './tools.js'

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
  /** Unknown types the operator lets through (`mcp.allowUnknownTypes`); default none. */
  unknownTypes?: UnknownTypePolicy
}

interface PendingRequest {
  method: string
  /** The events' context, shared by the request's checks and its answer's. */
  context: EventContext
  tool?: { name: string; input: JsonObject }
  /** A resource, prompt, sampling or elicitation request: its feature and what hooks saw. */
  feature?: { feature: Feature; subject: JsonObject }
  progressToken?: RequestId
}

const DEFAULT_MAX_PENDING = 10_000

/** The checks of one session, with the requests in flight in each direction. */
export class McpChecks implements ToolCheckHost {
  /** Client requests awaiting the server's answer. */
  private readonly clientRequests = new Map<string, PendingRequest>()
  /** Server requests awaiting the client's answer. */
  private readonly serverRequests = new Map<string, PendingRequest>()
  private readonly progress = new Map<string, RequestId>()
  private readonly context: EventContext
  private readonly maxPending: number
  private readonly log: (line: string) => void
  private readonly unknownTypes: UnknownTypePolicy

  constructor(
    private readonly options: McpChecksOptions,
    sessionId: string = globalThis.crypto.randomUUID(),
  ) {
    this.context = { ...options.context, session: { ...options.context?.session, id: sessionId } }
    this.maxPending = options.maxPending ?? DEFAULT_MAX_PENDING
    this.log = options.log ?? (() => undefined)
    this.unknownTypes = options.unknownTypes ?? REFUSE_UNKNOWN
  }

  /** Checks a message from the client. (Not `async`: it hands on the promise of the check.) */
  outbound(message: JSONRPCMessage): Promise<Outcome> {
    const kind = messageKind(message)
    if (kind === 'response') return this.response(message, 'outbound')
    const method = messageMethod(message) as string
    if (kind === 'notification') return this.notification(message, method, 'outbound')
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
  readonly dispatch: Dispatch = (event, payload, context, applies) => {
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

  /** Logs a deny and returns its reason. */
  denied(what: string, decision: Decision): string {
    return this.deniedText(what, decision.reason)
  }

  private deniedText(what: string, reason: string): string {
    this.log(`denied ${what}: ${reason}`)
    return reason
  }

  /** Logs each unknown type let through (a security-log line); false when the scan refused. */
  private admitted(scan: Scan, direction: Direction, what: string): boolean {
    if (scan.refusal) {
      this.log(`refused ${direction} ${what}: ${scan.refusal.reason}`)
      return false
    }
    for (const key of scan.letThrough) {
      this.log(
        `security.mcp.unknown_type_let_through: ${key} in ${direction} ${what}, unchecked (${this.unknownTypes.setting})`,
      )
    }
    return true
  }

  private async request(message: JSONRPCMessage, method: string, direction: Direction): Promise<Outcome> {
    const id = messageId(message) as RequestId
    const scan = scanRequest(message, method, direction, this.unknownTypes)
    if (!this.admitted(scan, direction, method)) {
      const text = `Denied by Warden: ${scan.refusal?.reason}`
      if (method === 'tools/call') return answer(toolErrorResult(id, text))
      return answer(errorResponse(id, DENIED_ERROR_CODE, text, refusalData(scan)))
    }
    if (direction === 'outbound' && method === 'tools/call') return this.toolCall(message, scan.letThrough)
    const pending = direction === 'outbound' ? this.clientRequests : this.serverRequests
    if (pending.size >= this.maxPending) {
      return answer(errorResponse(id, DENIED_ERROR_CODE, `too many requests in flight (${this.maxPending})`))
    }
    const context = this.requestContext(id)
    const decision = await this.dispatch(
      `mcp.${direction}`,
      mcpPayload(message, method, direction, undefined, scan.letThrough),
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
    const entry: PendingRequest = { method, context }
    let current = checked.message
    const feature = featureOf(method, direction)
    if (feature) {
      const step = await checkFeatureRequest(this.dispatch, feature, current, method, context)
      if (!step.ok) {
        this.log(`denied ${direction} ${method}: ${step.reason}`)
        const data = step.decision ? denialData(step.decision) : undefined
        return answer(errorResponse(id, DENIED_ERROR_CODE, `Denied by Warden: ${step.reason}`, data))
      }
      current = step.message
      entry.feature = { feature, subject: step.subject }
    }
    this.track(pending, id, entry, current)
    return { type: 'forward', message: current, method }
  }

  private async toolCall(message: JSONRPCMessage, letThrough: readonly string[]): Promise<Outcome> {
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
    const checked = await checkToolCall(this, message, { id, name, input }, context, letThrough)
    if (!checked.ok) return answer(checked.reply)
    const entry = { method: 'tools/call', context, tool: { name, input: checked.input } }
    this.track(this.clientRequests, id, entry, checked.message)
    return { type: 'forward', message: checked.message, method: 'tools/call' }
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
    const scan = scanAnswer(message, request.method, direction, this.unknownTypes)
    if (!this.admitted(scan, direction, `answer to ${request.method}`)) {
      const text = `Denied by Warden: ${scan.refusal?.reason}`
      if (request.tool) return Promise.resolve(forwardTo(toolErrorResult(id, text)))
      const error = errorResponse(id, DENIED_ERROR_CODE, text, refusalData(scan))
      return Promise.resolve({ type: 'forward', message: error, method: request.method })
    }
    if (request.tool) {
      const { tool, context } = request
      return checkEmbeddedResources(this.dispatch, message, 'tools/call', context).then((reason) =>
        reason === undefined
          ? checkToolResult(this, message, id, tool, context, scan.letThrough).then(forwardTo)
          : forwardTo(
              toolErrorResult(id, `Denied by Warden: ${this.deniedText(`result of ${tool.name}`, reason)}`),
            ),
      )
    }
    return this.checkAnswer(message, id, request, direction, scan.letThrough)
  }

  /** Checks the answer to a request other than tools/call. */
  private async checkAnswer(
    message: JSONRPCMessage,
    id: RequestId,
    request: PendingRequest,
    direction: Direction,
    letThrough: readonly string[],
  ): Promise<Outcome> {
    const decision = await this.dispatch(
      `mcp.${direction}`,
      mcpPayload(message, request.method, direction, undefined, letThrough),
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
    if (direction === 'inbound' && request.method === 'tools/list')
      current = listedTools(current, this.options, this.log)
    const checked = await checkAnswerFeatures(this.dispatch, current, request, direction, this.log)
    if (checked.ok) return { type: 'forward', message: checked.message, method: request.method }
    const reason = this.deniedText(`${direction} answer to ${request.method}`, checked.reason)
    const data = checked.decision ? denialData(checked.decision) : undefined
    const error = errorResponse(id, DENIED_ERROR_CODE, `Denied by Warden: ${reason}`, data)
    return { type: 'forward', message: error, method: request.method }
  }

  private async notification(
    message: JSONRPCMessage,
    method: string,
    direction: Direction,
  ): Promise<Outcome> {
    const scan = scanNotification(method, direction, this.unknownTypes)
    if (!this.admitted(scan, direction, method)) return { type: 'drop', reason: scan.refusal?.reason ?? '' }
    const decision = await this.dispatch(
      `mcp.${direction}`,
      mcpPayload(message, method, direction, undefined, scan.letThrough),
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
    if (direction === 'inbound' && method === 'notifications/resources/updated') {
      const reason = await checkAnnouncedResource(this.dispatch, current, direction, this.context)
      if (reason !== undefined)
        return { type: 'drop', reason: this.deniedText(`${direction} ${method}`, reason) }
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

/** The error data of a message the tables refused: the key an operator could name. */
function refusalData(scan: Scan): JsonObject {
  return { decision: 'deny', reasonCode: ['unknown-type'], key: scan.refusal?.key ?? '' }
}
