// An Anthropic Messages request as the gateway sees it. Every message's role and content
// block, every document source, offered tool and MCP server must be of a known type
// (anthropic-tables.ts). Every user text is checked wherever it stands: text blocks (each,
// and joined), `document` and `search_result` blocks; every `tool_result` block too, keyed
// by position so a rewrite lands on the block it came from.

import type { Json, JsonObject } from '../../core/index.js'
import type { UnknownTypePolicy } from '../kit/index.js'
import {
  ANTHROPIC_CONTENT,
  ANTHROPIC_DOCUMENT_SOURCES,
  ANTHROPIC_MCP_SERVERS,
  ANTHROPIC_ROLES,
  ANTHROPIC_TOOLS,
} from './anthropic-tables.js'
import { isObject, type RequestChanges, type RequestView } from './api.js'
import { withJoinedText } from './chat-request.js'
import { TypeCheck } from './item-types.js'

/** A message's content as blocks (a string is one text block). */
export function blocks(content: Json | undefined): JsonObject[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  return Array.isArray(content) ? content.filter(isObject) : []
}

/** The text a `document` or `search_result` block carries, or undefined when it has none. */
function blockText(block: JsonObject, types: TypeCheck): string | undefined {
  if (block.type === 'search_result') {
    const texts = blocks(block.content).map((b) => (typeof b.text === 'string' ? b.text : ''))
    return [typeof block.title === 'string' ? block.title : '', ...texts].join('\n')
  }
  const source = isObject(block.source) ? block.source : {}
  if (!types.allows(ANTHROPIC_DOCUMENT_SOURCES, source.type)) return undefined
  if (source.type === 'text') return typeof source.data === 'string' ? source.data : ''
  if (source.type === 'content')
    return blocks(source.content)
      .map((b) => String(b.text ?? ''))
      .join('\n')
  return undefined
}

/** Checks a tool result's content blocks are of known types. */
function checkInner(content: Json | undefined, types: TypeCheck): void {
  if (!Array.isArray(content)) return
  for (const block of content) {
    const type = isObject(block) ? block.type : undefined
    if (!types.allows(ANTHROPIC_CONTENT, type) || !isObject(block)) continue
    if (type === 'document') blockText(block, types)
  }
}

/** Reads an Anthropic Messages request. */
export function readAnthropicRequest(body: JsonObject, policy?: UnknownTypePolicy): RequestView {
  const types = new TypeCheck(policy, 400)
  const messages = Array.isArray(body.messages) ? body.messages : []
  const tools = Array.isArray(body.tools) ? body.tools : []
  const view: RequestView = { stream: body.stream === true, messages, tools, toolResults: [], userTexts: [] }
  if (typeof body.model === 'string') view.model = body.model
  if (body.system !== undefined) view.system = body.system
  if (body.messages !== undefined && !Array.isArray(body.messages)) types.refuse('messages must be a list')
  if (body.tools !== undefined && !Array.isArray(body.tools)) types.refuse('tools must be a list')
  for (const tool of tools)
    types.allows(ANTHROPIC_TOOLS, isObject(tool) ? (tool.type ?? 'custom') : undefined)
  if (Array.isArray(body.mcp_servers)) {
    for (const server of body.mcp_servers)
      types.allows(ANTHROPIC_MCP_SERVERS, isObject(server) ? server.type : undefined)
  } else if (body.mcp_servers != null) types.refuse('mcp_servers must be a list')
  if (Array.isArray(body.system))
    for (const block of body.system) types.allows(ANTHROPIC_CONTENT, isObject(block) ? block.type : undefined)
  const names = new Map<string, string>()
  const texts = view.userTexts as NonNullable<RequestView['userTexts']>
  messages.forEach((message, at) => {
    if (!isObject(message)) {
      types.refuse(`messages[${at}] is not an object`)
      return
    }
    if (!types.allows(ANTHROPIC_ROLES, message.role)) return
    if (message.content != null && typeof message.content !== 'string' && !Array.isArray(message.content)) {
      types.refuse(`the content of messages[${at}] is neither text nor blocks`)
      return
    }
    const user = message.role === 'user'
    if (user && typeof message.content === 'string') texts.push({ key: `${at}`, text: message.content })
    const own: string[] = []
    const list: Json[] = Array.isArray(message.content) ? message.content : []
    list.forEach((block, b) => {
      if (!types.allows(ANTHROPIC_CONTENT, isObject(block) ? block.type : undefined) || !isObject(block))
        return
      const key = `${at}.${b}`
      if (block.type === 'tool_use' && typeof block.id === 'string')
        names.set(block.id, String(block.name ?? 'unknown'))
      if (!user) return
      if (block.type === 'text') {
        if (typeof block.text !== 'string') types.refuse(`messages[${at}] has a text block with no text`)
        else {
          texts.push({ key, text: block.text })
          own.push(block.text)
        }
      }
      if (block.type === 'document' || block.type === 'search_result') {
        const text = blockText(block, types)
        if (text !== undefined) texts.push({ key, text })
      }
      if (block.type === 'tool_result') {
        checkInner(block.content, types)
        const id = typeof block.tool_use_id === 'string' ? block.tool_use_id : ''
        const result = { id, name: names.get(id) ?? 'unknown', output: block.content ?? '', key }
        view.toolResults.push(block.is_error === true ? { ...result, isError: true } : result)
      }
    })
    if (own.length > 1) texts.push({ key: `${at}.joined`, text: own.join('') })
  })
  const refusal = types.refusal()
  if (refusal) view.refusal = refusal
  if (types.letThrough().length > 0) view.letThrough = types.letThrough()
  return view
}

/** A `document` or `search_result` block carrying `text` in place of its own. */
function withBlockText(block: JsonObject, text: string): JsonObject {
  if (block.type === 'search_result') return { ...block, content: [{ type: 'text', text }] }
  return { ...block, source: { type: 'text', media_type: 'text/plain', data: text } }
}

/** Puts checked changes back into an Anthropic Messages request. */
export function applyAnthropicRequest(body: JsonObject, changes: RequestChanges): JsonObject {
  const messages = Array.isArray(body.messages) ? body.messages : []
  messages.forEach((message, at) => {
    if (!isObject(message) || message.role !== 'user') return
    const whole = changes.userTexts?.get(`${at}`)
    if (whole !== undefined && typeof message.content === 'string') message.content = whole
    if (!Array.isArray(message.content)) return
    message.content = message.content.map((block, b): Json => {
      if (!isObject(block)) return block
      const key = `${at}.${b}`
      const text = changes.userTexts?.get(key)
      if (text !== undefined && block.type === 'text') return { ...block, text }
      if (text !== undefined) return withBlockText(block, text)
      const output = changes.toolOutputs.get(key)
      if (output === undefined || block.type !== 'tool_result') return block
      return {
        ...block,
        content: typeof output === 'string' || Array.isArray(output) ? output : JSON.stringify(output),
      }
    })
    const joined = changes.userTexts?.get(`${at}.joined`)
    if (joined !== undefined) message.content = withJoinedText(message.content, joined)
  })
  if (changes.messages) body.messages = changes.messages
  if (changes.tools) body.tools = changes.tools
  if (changes.system !== undefined) body.system = changes.system
  return body
}
