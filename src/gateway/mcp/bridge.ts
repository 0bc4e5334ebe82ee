// The bridge: joins the transport facing the MCP client to the transport facing the MCP
// server and passes every message through the session's checks. Messages are checked
// concurrently, so a held `ask` or a slow hook never stalls the others; a failure while
// checking one message fails that message closed and never ends the session.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { errorMessage } from '../../core/index.js'
import { type BatchReceiver, planBatch } from './batch.js'
import { McpChecks, type McpChecksOptions } from './checks.js'
import {
  errorResponse,
  GATEWAY_ERROR_CODE,
  idKey,
  messageId,
  messageKind,
  messageMethod,
  resultOf,
  toolErrorResult,
} from './jsonrpc.js'
import type { Direction, Outcome } from './outcome.js'

/** What a bridge joins. */
export interface McpBridgeOptions extends McpChecksOptions {
  /** The transport facing the MCP client (the gateway is its server). */
  client: Transport
  /** The transport facing the MCP server (the gateway is its client). */
  server: Transport
  sessionId?: string
}

/** One gateway session between a client and a server. */
export class McpBridge {
  readonly checks: McpChecks
  private readonly client: Transport
  private readonly server: Transport
  private readonly log: (line: string) => void
  private closing = false
  /** The MCP version the server answered `initialize` with. */
  private protocolVersion: string | undefined
  /** Notifications still being checked, per direction: a later answer waits for them. */
  private readonly notificationsInFlight = {
    outbound: new Set<Promise<void>>(),
    inbound: new Set<Promise<void>>(),
  }
  private resolveClosed!: () => void
  /** Resolves when either side has closed and the other was closed in turn. */
  readonly closed: Promise<void>

  constructor(options: McpBridgeOptions) {
    this.checks = new McpChecks(options, options.sessionId)
    this.client = options.client
    this.server = options.server
    this.log = options.log ?? (() => undefined)
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve
    })
  }

  /** Wires both transports and starts them: the server side first, so nothing is lost. */
  async start(): Promise<void> {
    this.server.onmessage = (message) => this.receive('inbound', message)
    this.client.onmessage = (message) => this.receive('outbound', message)
    ;(this.server as BatchReceiver).onbatch = (elements) => this.receiveBatch('inbound', elements)
    ;(this.client as BatchReceiver).onbatch = (elements) => this.receiveBatch('outbound', elements)
    this.server.onclose = () => void this.close('the server side closed')
    this.client.onclose = () => void this.close('the client side closed')
    this.server.onerror = (error) => this.log(`server transport: ${error.message}`)
    this.client.onerror = (error) => this.log(`client transport: ${error.message}`)
    await this.server.start()
    await this.client.start()
  }

  /** Closes both sides (once). */
  async close(why = 'closed'): Promise<void> {
    if (this.closing) return this.closed
    this.closing = true
    this.log(`session ending: ${why}`)
    this.checks.clear()
    await Promise.allSettled([this.server.close(), this.client.close()])
    this.resolveClosed()
  }

  /**
   * Starts checking a message. Messages are checked concurrently; an answer is delivered
   * only after the notifications that arrived before it (such as its progress) are.
   */
  private receive(direction: Direction, message: JSONRPCMessage): void {
    const kind = messageKind(message)
    const inFlight = this.notificationsInFlight[direction]
    const earlier = kind === 'response' && inFlight.size > 0 ? [...inFlight] : undefined
    const handled = this.handle(direction, message, earlier).catch((error: unknown) => {
      this.log(`${direction} message: ${errorMessage(error)}`)
    })
    if (kind !== 'notification') return
    inFlight.add(handled)
    void handled.finally(() => inFlight.delete(handled))
  }

  /**
   * A JSON-RPC batch: its elements checked one by one where the negotiated version allows
   * batches, else (and for elements that are not JSON-RPC) answered with errors, so no
   * request in it goes unanswered.
   */
  private receiveBatch(direction: Direction, elements: unknown[]): void {
    if (this.closing) return
    const plan = planBatch(elements, this.protocolVersion)
    const sender = direction === 'outbound' ? this.client : this.server
    const receiver = direction === 'outbound' ? this.server : this.client
    for (const reply of plan.replies) void this.send(sender, reply)
    for (const forward of plan.forwards) void this.send(receiver, forward)
    for (const why of plan.dropped) this.log(`dropped ${direction} ${why}`)
    for (const message of plan.messages) this.receive(direction, message)
  }

  private async handle(
    direction: Direction,
    message: JSONRPCMessage,
    earlier?: Promise<void>[],
  ): Promise<void> {
    if (this.closing) return
    let outcome: Outcome
    try {
      outcome =
        direction === 'outbound' ? await this.checks.outbound(message) : await this.checks.inbound(message)
    } catch (error) {
      outcome = failClosed(message, `the gateway could not check this message: ${errorMessage(error)}`)
      this.log(`${direction} ${messageMethod(message) ?? 'response'}: ${errorMessage(error)}`)
    }
    if (earlier) await Promise.all(earlier)
    const sender = direction === 'outbound' ? this.client : this.server
    const receiver = direction === 'outbound' ? this.server : this.client
    if (outcome.type === 'drop') {
      this.log(`dropped ${direction} ${messageMethod(message) ?? 'message'}: ${outcome.reason}`)
      return
    }
    if (outcome.type === 'answer') {
      await this.send(sender, outcome.message)
      return
    }
    if (direction === 'inbound' && outcome.method === 'initialize') this.noteProtocolVersion(outcome.message)
    const sent = await this.send(receiver, outcome.message, outcome.relatedRequestId)
    if (!sent && direction === 'outbound' && messageKind(message) === 'request') {
      const id = messageId(message)
      if (id !== undefined) {
        this.checks.forget(idKey(id))
        const reply = failClosed(message, 'the MCP server could not be reached')
        if (reply.type === 'answer') await this.send(sender, reply.message, id)
      }
    }
  }

  private async send(
    transport: Transport,
    message: JSONRPCMessage,
    relatedRequestId?: string | number,
  ): Promise<boolean> {
    try {
      await transport.send(message, relatedRequestId === undefined ? undefined : { relatedRequestId })
      return true
    } catch (error) {
      this.log(`cannot send ${messageMethod(message) ?? 'response'}: ${errorMessage(error)}`)
      return false
    }
  }

  /** Tells an HTTP client transport the negotiated protocol version (for its headers). */
  private noteProtocolVersion(message: JSONRPCMessage): void {
    const version = resultOf(message)?.protocolVersion
    if (typeof version !== 'string') return
    this.protocolVersion = version
    this.server.setProtocolVersion?.(version)
  }
}

/**
 * What a message gets when checking it failed: a request is answered with an error, a
 * response is replaced by an error (so its requester does not wait), a notification dropped.
 */
function failClosed(message: JSONRPCMessage, reason: string): Outcome {
  const id = messageId(message)
  const kind = messageKind(message)
  const text = `Denied by Warden: ${reason}`
  if (id === undefined || kind === 'notification') return { type: 'drop', reason }
  if (kind === 'response') return { type: 'forward', message: errorResponse(id, GATEWAY_ERROR_CODE, text) }
  if (messageMethod(message) === 'tools/call') return { type: 'answer', message: toolErrorResult(id, text) }
  return { type: 'answer', message: errorResponse(id, GATEWAY_ERROR_CODE, text) }
}
