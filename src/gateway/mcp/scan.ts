// Reads every typed item of one MCP message against the closed-world tables before any hook
// runs: the method (by direction and kind), task-augmented requests, the roles and content
// blocks of prompts and sampling, resource contents, tool result blocks and elicitation
// fields. The first item refused ends the scan with its reason; items let through by
// `mcp.allowUnknownTypes` are collected so the call's checks and audit carry their keys.

import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Json } from '../../core/index.js'
import { classifyItem, type ItemTable, REFUSE_UNKNOWN, type UnknownTypePolicy } from '../kit/index.js'
import { isObject, paramsOf, resultOf } from './jsonrpc.js'
import type { Direction } from './outcome.js'
import {
  MCP_CLIENT_NOTIFICATIONS,
  MCP_CLIENT_REQUESTS,
  MCP_ELICITATION_FIELDS,
  MCP_MESSAGE_ROLES,
  MCP_PROMPT_CONTENT,
  MCP_RESOURCE_CONTENTS,
  MCP_SAMPLING_CONTENT,
  MCP_SERVER_NOTIFICATIONS,
  MCP_SERVER_REQUESTS,
  MCP_TOOL_CONTENT,
} from './tables.js'

/** What the tables made of one message. */
export interface Scan {
  /** The first item refused: why, and its `protocol/place/type` key. */
  refusal?: { reason: string; key: string }
  /** Keys of unknown items the operator let through, in the order met. */
  letThrough: string[]
}

class Scanner {
  readonly scan: Scan = { letThrough: [] }
  constructor(private readonly policy: UnknownTypePolicy) {}

  /** Classifies one type; false once something is refused (the scan stops). */
  item(table: ItemTable, type: unknown): boolean {
    if (this.scan.refusal) return false
    const verdict = classifyItem(table, type, this.policy)
    if (verdict.kind === 'refused') {
      this.scan.refusal = { reason: verdict.reason, key: verdict.key }
      return false
    }
    if (verdict.kind === 'let-through' && !this.scan.letThrough.includes(verdict.key))
      this.scan.letThrough.push(verdict.key)
    return true
  }

  refuse(reason: string, key: string): void {
    this.scan.refusal ??= { reason, key }
  }

  /** A content block of `table`; an embedded resource's contents and a tool result's blocks too. */
  block(table: ItemTable, block: Json | undefined): void {
    if (!isObject(block)) return void this.item(table, undefined)
    if (!this.item(table, block.type)) return
    if (block.type === 'resource') this.contents(block.resource)
    if (block.type === 'tool_result') this.blocks(MCP_TOOL_CONTENT, block.content, true)
  }

  /** An array of blocks (or, where the protocol allows, one block alone). */
  blocks(table: ItemTable, blocks: Json | undefined, single = false): void {
    if (Array.isArray(blocks)) for (const block of blocks) this.block(table, block)
    else if (single) this.block(table, blocks)
    else if (blocks !== undefined) this.refuse(`${table.place}s must be a list`, `mcp/${table.key}/?`)
  }

  /** Resource contents: `text` or `blob`, told apart by which field is a string. */
  contents(contents: Json | undefined): void {
    if (!isObject(contents)) return void this.item(MCP_RESOURCE_CONTENTS, undefined)
    const form =
      typeof contents.text === 'string' ? 'text' : typeof contents.blob === 'string' ? 'blob' : undefined
    this.item(MCP_RESOURCE_CONTENTS, form)
  }

  /** Prompt or sampling messages: each role and content. */
  messages(messages: Json | undefined, content: ItemTable, many: boolean): void {
    if (!Array.isArray(messages)) {
      this.refuse(`messages must be a list (got ${typeof messages})`, `mcp/${MCP_MESSAGE_ROLES.key}/?`)
      return
    }
    for (const message of messages) {
      if (!isObject(message)) return void this.item(MCP_MESSAGE_ROLES, undefined)
      if (!this.item(MCP_MESSAGE_ROLES, message.role)) return
      this.blocks(content, message.content, true)
      if (!many && Array.isArray(message.content))
        this.refuse('a prompt message has one content block', 'mcp/prompt-content/?')
    }
  }

  /** The fields of an elicitation form. */
  elicitation(params: Record<string, Json>): void {
    const mode = params.mode
    if (mode === 'url') return
    if (mode !== undefined && mode !== 'form') {
      this.refuse(`elicitation mode "${String(mode).slice(0, 64)}" is not known`, 'mcp/elicitation-field/?')
      return
    }
    const schema = params.requestedSchema
    const properties = isObject(schema) ? schema.properties : undefined
    if (!isObject(properties)) {
      this.refuse('an elicitation form needs requestedSchema.properties', 'mcp/elicitation-field/?')
      return
    }
    for (const field of Object.values(properties))
      this.item(MCP_ELICITATION_FIELDS, isObject(field) ? field.type : undefined)
  }
}

function requestTable(direction: Direction): ItemTable {
  return direction === 'outbound' ? MCP_CLIENT_REQUESTS : MCP_SERVER_REQUESTS
}

/** Scans a request (its method, task augmentation, and what it carries). */
export function scanRequest(
  message: JSONRPCMessage,
  method: string,
  direction: Direction,
  policy: UnknownTypePolicy = REFUSE_UNKNOWN,
): Scan {
  const scanner = new Scanner(policy)
  if (!scanner.item(requestTable(direction), method)) return scanner.scan
  const params = paramsOf(message)
  if (params.task !== undefined) {
    scanner.refuse(
      `a task-augmented ${method} is refused: its result would come later through tasks/result, past the checks of this call`,
      `mcp/${requestTable(direction).key}/${method}`,
    )
  } else if (method === 'sampling/createMessage') {
    scanner.messages(params.messages, MCP_SAMPLING_CONTENT, true)
  } else if (method === 'elicitation/create') {
    scanner.elicitation(params)
  }
  return scanner.scan
}

/** Scans a notification's method. */
export function scanNotification(
  method: string,
  direction: Direction,
  policy: UnknownTypePolicy = REFUSE_UNKNOWN,
): Scan {
  const scanner = new Scanner(policy)
  scanner.item(direction === 'outbound' ? MCP_CLIENT_NOTIFICATIONS : MCP_SERVER_NOTIFICATIONS, method)
  return scanner.scan
}

/**
 * Scans the answer to a request of `method` travelling in `direction` (inbound: a server's
 * answer to the client). Error answers carry no items.
 */
export function scanAnswer(
  message: JSONRPCMessage,
  method: string,
  direction: Direction,
  policy: UnknownTypePolicy = REFUSE_UNKNOWN,
): Scan {
  const scanner = new Scanner(policy)
  const result = resultOf(message)
  if (!result) return scanner.scan
  if (direction === 'inbound') {
    if (method === 'tools/call') scanner.blocks(MCP_TOOL_CONTENT, result.content)
    else if (method === 'prompts/get') scanner.messages(result.messages, MCP_PROMPT_CONTENT, false)
    else if (method === 'resources/read') {
      if (!Array.isArray(result.contents))
        scanner.refuse('resources/read contents must be a list', 'mcp/resource-contents/?')
      else for (const contents of result.contents) scanner.contents(contents)
    }
  } else if (method === 'sampling/createMessage') {
    if (scanner.item(MCP_MESSAGE_ROLES, result.role))
      scanner.blocks(MCP_SAMPLING_CONTENT, result.content, true)
  }
  return scanner.scan
}
