// Anthropic Messages as a closed world: every message role, request content block, document
// source, tool type, MCP server, answer content block, stream event and delta type the
// gateway knows (the beta ones included), and what it does with each. Server tools run on
// Anthropic's side before Warden could see their calls, so they are refused unless the
// operator lets them through; their calls and results in an answer are still checked.

import type { LlmItemTable } from './item-types.js'

const PROTOCOL = 'anthropic.messages'

const SERVER_TOOL = 'a server tool: Anthropic runs its calls before Warden sees them'
const BETA = 'a beta block Warden does not model'

/** Message roles (`messages[].role`). */
export const ANTHROPIC_ROLES: LlmItemTable = {
  protocol: PROTOCOL,
  place: 'message role',
  key: 'role',
  rules: {
    user: {
      kind: 'checked',
      event: 'user.message',
      note: 'every user message, wherever it stands; its tool_result blocks as tool.post',
    },
    assistant: {
      kind: 'checked',
      event: 'model.pre',
      note: 'earlier answers and prefills, in model.messages',
    },
    system: { kind: 'checked', event: 'model.pre', note: 'in model.messages' },
  },
}

/** Content block types of a request's messages (and of `system` and `tool_result` content). */
export const ANTHROPIC_CONTENT: LlmItemTable = {
  protocol: PROTOCOL,
  place: 'content block',
  key: 'content',
  rules: {
    text: {
      kind: 'checked',
      event: 'user.message',
      note: 'each text block of a user message, and its text blocks joined (assistant: model.pre)',
    },
    image: { kind: 'inert', note: 'an image; hooks see it in model.messages' },
    document: {
      kind: 'checked',
      event: 'user.message',
      note: 'its text (text and content sources); inside a tool_result: tool.post',
    },
    search_result: {
      kind: 'checked',
      event: 'user.message',
      note: 'its title and text; inside a tool_result: tool.post',
    },
    tool_use: {
      kind: 'checked',
      event: 'model.pre',
      note: 'an earlier tool call (checked as tool.pre when it was answered)',
    },
    tool_result: {
      kind: 'checked',
      event: 'tool.post',
      note: 'every tool result, named after the call it answers',
    },
    thinking: { kind: 'inert', note: 'earlier reasoning, sent back as it was' },
    redacted_thinking: { kind: 'inert', note: 'encrypted reasoning' },
    server_tool_use: {
      kind: 'checked',
      event: 'model.pre',
      note: 'an earlier server tool call, in model.messages',
    },
    web_search_tool_result: {
      kind: 'checked',
      event: 'model.pre',
      note: 'an earlier server tool result, in model.messages',
    },
    web_fetch_tool_result: {
      kind: 'checked',
      event: 'model.pre',
      note: 'an earlier server tool result, in model.messages',
    },
    code_execution_tool_result: {
      kind: 'checked',
      event: 'model.pre',
      note: 'an earlier server tool result, in model.messages',
    },
    bash_code_execution_tool_result: {
      kind: 'checked',
      event: 'model.pre',
      note: 'an earlier server tool result, in model.messages',
    },
    text_editor_code_execution_tool_result: {
      kind: 'checked',
      event: 'model.pre',
      note: 'an earlier server tool result, in model.messages',
    },
    tool_search_tool_result: {
      kind: 'checked',
      event: 'model.pre',
      note: 'an earlier server tool result, in model.messages',
    },
    mcp_tool_use: { kind: 'checked', event: 'model.pre', note: 'an earlier MCP call, in model.messages' },
    mcp_tool_result: {
      kind: 'checked',
      event: 'model.pre',
      note: 'an earlier MCP result, in model.messages',
    },
  },
  unlessLetThrough: {
    container_upload: 'uploads a file into the code-execution container, where Warden cannot see it used',
    compaction: BETA,
    fallback: BETA,
    advisor_tool_result: BETA,
    mcp_tool_listing: BETA,
    tool_addition: BETA,
    tool_removal: BETA,
  },
}

/** Sources of a `document` block. */
export const ANTHROPIC_DOCUMENT_SOURCES: LlmItemTable = {
  protocol: PROTOCOL,
  place: 'document source',
  key: 'document-source',
  rules: {
    text: { kind: 'checked', event: 'user.message', note: 'its data (tool.post inside a tool_result)' },
    content: {
      kind: 'checked',
      event: 'user.message',
      note: 'its text blocks (tool.post inside a tool_result)',
    },
  },
  unlessLetThrough: {
    base64: 'a PDF the model reads upstream; its text cannot be checked',
    url: 'a document the model fetches upstream; its text cannot be checked',
    file: 'an uploaded file the model reads upstream; its text cannot be checked',
  },
}

/** Tool types a request offers (`tools[].type`; none means `custom`). */
export const ANTHROPIC_TOOLS: LlmItemTable = {
  protocol: PROTOCOL,
  place: 'tool type',
  key: 'tool',
  rules: Object.fromEntries(
    [
      'custom',
      'bash_20241022',
      'bash_20250124',
      'text_editor_20241022',
      'text_editor_20250124',
      'text_editor_20250429',
      'text_editor_20250728',
      'memory_20250818',
      'computer_20241022',
      'computer_20250124',
      'computer_20251124',
    ].map((type) => [
      type,
      {
        kind: 'checked',
        event: 'tool.pre',
        note: 'run by the agent: its calls are checked before it runs them',
      },
    ]),
  ),
  unlessLetThrough: Object.fromEntries(
    [
      'web_search_20250305',
      'web_search_20260209',
      'web_search_20260318',
      'web_fetch_20250910',
      'web_fetch_20260209',
      'web_fetch_20260309',
      'web_fetch_20260318',
      'code_execution_20250522',
      'code_execution_20250825',
      'code_execution_20260120',
      'code_execution_20260521',
      'tool_search_tool_bm25',
      'tool_search_tool_bm25_20251119',
      'tool_search_tool_regex',
      'tool_search_tool_regex_20251119',
      'advisor_20260301',
      'mcp_toolset',
      'browser_toolset_20260801',
      'computer_toolset_20260801',
    ].map((type) => [type, SERVER_TOOL]),
  ),
}

/** MCP servers a request names (`mcp_servers[].type`): Anthropic calls them itself. */
export const ANTHROPIC_MCP_SERVERS: LlmItemTable = {
  protocol: PROTOCOL,
  place: 'MCP server',
  key: 'mcp-server',
  rules: {},
  unlessLetThrough: { url: 'an MCP server Anthropic calls itself, before Warden sees the call' },
}

const RESULT =
  'a server tool result: checked as tool.post before the agent sees it (a rewrite replaces its content)'
const SERVER_CALL = 'a server tool call: already ran, so a deny or a rewrite refuses the answer'

/** Content block types of an answer. */
export const ANTHROPIC_OUTPUT: LlmItemTable = {
  protocol: PROTOCOL,
  place: 'answer block',
  key: 'output',
  rules: {
    text: { kind: 'checked', event: 'agent.response', note: 'each text block, and the text blocks joined' },
    tool_use: {
      kind: 'checked',
      event: 'tool.pre',
      note: 'each call, by its position; a denied call becomes a text',
    },
    thinking: { kind: 'inert', note: 'reasoning, passed as it comes' },
    redacted_thinking: { kind: 'inert', note: 'encrypted reasoning' },
    container_upload: { kind: 'inert', note: 'a file id' },
    server_tool_use: { kind: 'checked', event: 'tool.pre', note: SERVER_CALL },
    mcp_tool_use: { kind: 'checked', event: 'tool.pre', note: SERVER_CALL },
    web_search_tool_result: { kind: 'checked', event: 'tool.post', note: RESULT },
    web_fetch_tool_result: { kind: 'checked', event: 'tool.post', note: RESULT },
    code_execution_tool_result: { kind: 'checked', event: 'tool.post', note: RESULT },
    bash_code_execution_tool_result: { kind: 'checked', event: 'tool.post', note: RESULT },
    text_editor_code_execution_tool_result: { kind: 'checked', event: 'tool.post', note: RESULT },
    tool_search_tool_result: { kind: 'checked', event: 'tool.post', note: RESULT },
    mcp_tool_result: { kind: 'checked', event: 'tool.post', note: RESULT },
  },
  unlessLetThrough: {
    compaction: BETA,
    fallback: BETA,
    advisor_tool_result: BETA,
    mcp_tool_listing: BETA,
  },
}

/** Stream event types of a streamed answer. */
export const ANTHROPIC_EVENTS: LlmItemTable = {
  protocol: PROTOCOL,
  place: 'stream event',
  key: 'event',
  rules: {
    message_start: { kind: 'inert', note: 'the message, before its content (content given here is refused)' },
    content_block_start: {
      kind: 'checked',
      event: 'agent.response',
      note: 'a block, by the answer block table',
    },
    content_block_delta: { kind: 'checked', event: 'agent.response', note: 'by the delta table' },
    content_block_stop: {
      kind: 'checked',
      event: 'tool.pre',
      note: 'a held tool call is checked and released',
    },
    message_delta: {
      kind: 'checked',
      event: 'agent.response',
      note: 'the text blocks joined are checked before the stop reason goes out',
    },
    message_stop: { kind: 'inert', note: 'the end' },
    ping: { kind: 'inert', note: 'keep-alive' },
    error: { kind: 'inert', note: "the API's own error, passed on" },
  },
}

/** Delta types of `content_block_delta`. */
export const ANTHROPIC_DELTAS: LlmItemTable = {
  protocol: PROTOCOL,
  place: 'stream delta',
  key: 'delta',
  rules: {
    text_delta: { kind: 'checked', event: 'agent.response', note: 'held and checked as it streams' },
    input_json_delta: { kind: 'checked', event: 'tool.pre', note: 'held until the call is whole' },
    thinking_delta: { kind: 'inert', note: 'reasoning, passed as it comes' },
    signature_delta: { kind: 'inert', note: 'the reasoning signature' },
    citations_delta: { kind: 'inert', note: 'a citation of the text' },
  },
  unlessLetThrough: { compaction_delta: BETA },
}

/** Every Anthropic Messages table, for the setting's check and the documentation. */
export const ANTHROPIC_TABLES: readonly LlmItemTable[] = [
  ANTHROPIC_ROLES,
  ANTHROPIC_CONTENT,
  ANTHROPIC_DOCUMENT_SOURCES,
  ANTHROPIC_TOOLS,
  ANTHROPIC_MCP_SERVERS,
  ANTHROPIC_OUTPUT,
  ANTHROPIC_EVENTS,
  ANTHROPIC_DELTAS,
]
