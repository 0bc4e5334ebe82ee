// OpenAI Chat Completions as a closed world: every message role, content part, tool type,
// tool-call type and answer field the gateway knows, and what it does with each. What is
// not here is refused (see item-types.ts), unless `llm.allowUnknownTypes` names it.

import type { LlmItemTable } from './item-types.js'

const PROTOCOL = 'openai.chat'

/** Message roles of a request (`messages[].role`). */
export const CHAT_ROLES: LlmItemTable = {
  protocol: PROTOCOL,
  place: 'message role',
  key: 'role',
  rules: {
    user: { kind: 'checked', event: 'user.message', note: 'every user message, wherever it stands' },
    system: { kind: 'checked', event: 'model.pre', note: 'the operator prompt, in model.messages' },
    developer: { kind: 'checked', event: 'model.pre', note: 'the operator prompt, in model.messages' },
    assistant: {
      kind: 'checked',
      event: 'model.pre',
      note: 'earlier answers and prefills, in model.messages; their content parts and tool calls must be of known types',
    },
    tool: { kind: 'checked', event: 'tool.post', note: 'every tool result, named after the call it answers' },
    function: {
      kind: 'checked',
      event: 'tool.post',
      note: 'every legacy function result, named by its `name`',
    },
  },
}

/** Content part types of a user message. */
export const CHAT_USER_PARTS: LlmItemTable = {
  protocol: PROTOCOL,
  place: 'user content part',
  key: 'user-content',
  rules: {
    text: { kind: 'checked', event: 'user.message', note: 'each text part, and the parts joined' },
    image_url: { kind: 'inert', note: 'an image; hooks see it in model.messages' },
    input_audio: { kind: 'inert', note: 'audio; hooks see it in model.messages' },
  },
  unlessLetThrough: {
    file: 'a file (PDF…) the model reads upstream; its text cannot be checked',
  },
}

/** Content part types of system, developer, assistant and tool messages. */
export const CHAT_PARTS: LlmItemTable = {
  protocol: PROTOCOL,
  place: 'content part',
  key: 'content',
  rules: {
    text: { kind: 'checked', event: 'model.pre', note: 'in model.messages; tool messages: tool.post' },
    refusal: { kind: 'checked', event: 'model.pre', note: "an earlier answer's refusal, in model.messages" },
  },
}

/** Tool types a request offers (`tools[].type`; `functions` are the legacy form of `function`). */
export const CHAT_TOOLS: LlmItemTable = {
  protocol: PROTOCOL,
  place: 'tool type',
  key: 'tool',
  rules: {
    function: {
      kind: 'checked',
      event: 'tool.pre',
      note: 'its calls are checked before the agent runs them',
    },
    custom: {
      kind: 'checked',
      event: 'tool.pre',
      note: 'its calls (free text) are checked with the text as tool.input.input',
    },
  },
  unlessLetThrough: {
    web_search:
      'the `web_search_options` parameter: the model searches the web upstream, before Warden sees the query',
  },
}

/** Tool-call types of an answer (`message.tool_calls[].type`) and of earlier answers. */
export const CHAT_TOOL_CALLS: LlmItemTable = {
  protocol: PROTOCOL,
  place: 'tool call type',
  key: 'tool-call',
  rules: {
    function: { kind: 'checked', event: 'tool.pre', note: 'arguments as tool.input' },
    custom: { kind: 'checked', event: 'tool.pre', note: 'the free-text input as tool.input.input' },
  },
}

/** Fields of an answer's message (and of a streamed chunk's delta). */
export const CHAT_ANSWER_FIELDS: LlmItemTable = {
  protocol: PROTOCOL,
  place: 'answer field',
  key: 'answer-field',
  rules: {
    role: { kind: 'inert', note: 'the role' },
    content: {
      kind: 'checked',
      event: 'agent.response',
      note: 'a string, or text parts each checked and checked joined',
    },
    refusal: { kind: 'checked', event: 'agent.response', note: "the model's refusal text" },
    tool_calls: { kind: 'checked', event: 'tool.pre', note: 'each call, by its position' },
    function_call: { kind: 'checked', event: 'tool.pre', note: 'the legacy function call' },
    audio: {
      kind: 'checked',
      event: 'agent.response',
      note: 'its transcript; when a hook rewrites it, the audio data is removed (it says what the transcript said)',
    },
    annotations: { kind: 'inert', note: 'URL citations of the text' },
    logprobs: {
      kind: 'checked',
      event: 'agent.response',
      note: 'copies of the text (tokens, bytes, alternatives): removed whenever a hook checks text',
    },
  },
}

/** Every Chat Completions table, for the setting's check and the documentation. */
export const CHAT_TABLES: readonly LlmItemTable[] = [
  CHAT_ROLES,
  CHAT_USER_PARTS,
  CHAT_PARTS,
  CHAT_TOOLS,
  CHAT_TOOL_CALLS,
  CHAT_ANSWER_FIELDS,
]
