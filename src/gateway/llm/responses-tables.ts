// The closed world of OpenAI Responses: for each place where typed items stand (a request's
// input items, their content parts, the tools offered, an answer's output items and their
// content, a stream's events), what Warden does with each type. A type that is not in a
// table is refused in the Responses error shape, naming it and the setting that lets it
// through (`llm.allowUnknownTypes`); the types listed in RESPONSES_UNCHECKED are known but
// run where Warden cannot see them first, so they are refused the same way unless let through.

import type { ItemTable } from '../kit/index.js'

const PROTOCOL = 'openai.responses'
const PAST = 'a call the model made earlier; what it returned is checked as tool.post'

/** `input` items of a request. */
export const RESPONSES_INPUT_ITEMS: ItemTable = {
  protocol: PROTOCOL,
  place: 'input item',
  key: 'input',
  rules: {
    message: {
      kind: 'checked',
      event: 'user.message',
      note: 'every user text (input_text, input_file data) is checked, wherever it stands; other roles go to model.pre',
    },
    function_call_output: { kind: 'checked', event: 'tool.post', note: 'the output, named after its call' },
    custom_tool_call_output: {
      kind: 'checked',
      event: 'tool.post',
      note: 'the output, named after its call',
    },
    local_shell_call_output: { kind: 'checked', event: 'tool.post', note: 'the command output' },
    shell_call_output: { kind: 'checked', event: 'tool.post', note: 'stdout and stderr of each command' },
    apply_patch_call_output: { kind: 'checked', event: 'tool.post', note: 'the patch result' },
    computer_call_output: { kind: 'checked', event: 'tool.post', note: 'the screenshot, as the output' },
    mcp_call: { kind: 'checked', event: 'tool.post', note: 'an MCP call of an earlier turn: its output' },
    function_call: { kind: 'inert', note: PAST },
    custom_tool_call: { kind: 'inert', note: PAST },
    local_shell_call: { kind: 'inert', note: PAST },
    shell_call: { kind: 'inert', note: PAST },
    apply_patch_call: { kind: 'inert', note: PAST },
    computer_call: { kind: 'inert', note: PAST },
    mcp_approval_request: { kind: 'inert', note: 'an approval request the model made earlier' },
    mcp_approval_response: {
      kind: 'checked',
      event: 'tool.pre',
      note: 'an approval is accepted only with its mcp_approval_request in the same input, whose call is checked again',
    },
    reasoning: { kind: 'inert', note: 'the model’s own earlier reasoning, sent back as it came' },
    item_reference: {
      kind: 'refused',
      note: 'it names a stored item Warden cannot read; send the item itself',
    },
  },
}

/** Content parts of an input message. */
export const RESPONSES_INPUT_CONTENT: ItemTable = {
  protocol: PROTOCOL,
  place: 'input content part',
  key: 'content',
  rules: {
    input_text: { kind: 'checked', event: 'user.message', note: 'its text' },
    input_file: {
      kind: 'checked',
      event: 'user.message',
      note: 'inline file_data is decoded and checked as text; a file_id or file_url Warden cannot read is refused',
    },
    input_image: { kind: 'inert', note: 'an image: hooks see it in model.pre' },
    output_text: { kind: 'inert', note: 'an earlier answer of the model (assistant role)' },
    refusal: { kind: 'inert', note: 'an earlier refusal of the model (assistant role)' },
  },
}

/** Tools offered in a request. */
export const RESPONSES_TOOLS: ItemTable = {
  protocol: PROTOCOL,
  place: 'tool',
  key: 'tool',
  rules: {
    function: { kind: 'checked', event: 'tool.pre', note: 'function_call items, their arguments' },
    custom: { kind: 'checked', event: 'tool.pre', note: 'custom_tool_call items, input as {input}' },
    local_shell: { kind: 'checked', event: 'tool.pre', note: 'local_shell_call, as {command, …}' },
    shell: { kind: 'checked', event: 'tool.pre', note: 'shell_call, as {command, commands}' },
    apply_patch: { kind: 'checked', event: 'tool.pre', note: 'apply_patch_call, as {path, patch}' },
    computer: { kind: 'checked', event: 'tool.pre', note: 'computer_call, its action' },
    computer_use_preview: { kind: 'checked', event: 'tool.pre', note: 'computer_call, its action' },
    mcp: {
      kind: 'checked',
      event: 'tool.pre',
      note: 'only with require_approval "always": each call comes back as an mcp_approval_request checked as tool.pre, and its result as tool.post',
    },
  },
}

/** Output items of an answer. */
export const RESPONSES_OUTPUT_ITEMS: ItemTable = {
  protocol: PROTOCOL,
  place: 'output item',
  key: 'output',
  rules: {
    message: {
      kind: 'checked',
      event: 'agent.response',
      note: 'output_text and refusal parts, each and joined',
    },
    reasoning: { kind: 'checked', event: 'agent.response', note: 'summary and reasoning texts' },
    function_call: { kind: 'checked', event: 'tool.pre', note: 'name and arguments' },
    custom_tool_call: { kind: 'checked', event: 'tool.pre', note: 'input as {input}' },
    local_shell_call: { kind: 'checked', event: 'tool.pre', note: 'action.command joined as {command}' },
    shell_call: { kind: 'checked', event: 'tool.pre', note: 'action.commands joined as {command}' },
    apply_patch_call: { kind: 'checked', event: 'tool.pre', note: 'operation as {path, patch, operation}' },
    computer_call: { kind: 'checked', event: 'tool.pre', note: 'the action' },
    mcp_approval_request: { kind: 'checked', event: 'tool.pre', note: 'the MCP call before it runs' },
    mcp_call: { kind: 'checked', event: 'tool.post', note: 'its output (it ran upstream)' },
    code_interpreter_call: { kind: 'checked', event: 'tool.post', note: 'the code and its logs' },
    file_search_call: { kind: 'checked', event: 'tool.post', note: 'the queries and results' },
    web_search_call: { kind: 'checked', event: 'tool.post', note: 'the action (query, sources)' },
    mcp_list_tools: { kind: 'checked', event: 'tool.post', note: 'the tools the MCP server lists' },
    image_generation_call: { kind: 'inert', note: 'an image' },
  },
}

/** Content parts of an output message. */
export const RESPONSES_OUTPUT_CONTENT: ItemTable = {
  protocol: PROTOCOL,
  place: 'output content part',
  key: 'output-content',
  rules: {
    output_text: { kind: 'checked', event: 'agent.response', note: 'its text; logprobs are removed' },
    refusal: { kind: 'checked', event: 'agent.response', note: 'the refusal text' },
  },
}

const TEXT = 'agent.response'
const status = (note: string) => ({ kind: 'inert', note }) as const
const text = (note: string) => ({ kind: 'checked', event: TEXT, note }) as const
const call = (note: string) => ({ kind: 'checked', event: 'tool.pre', note }) as const
const result = (note: string) => ({ kind: 'checked', event: 'tool.post', note }) as const

/** Events of a streamed answer. */
export const RESPONSES_STREAM_EVENTS: ItemTable = {
  protocol: PROTOCOL,
  place: 'stream event',
  key: 'event',
  rules: {
    error: status('the upstream’s error, passed on'),
    'response.created': status('the response’s start (no output yet)'),
    'response.in_progress': status('the response’s status'),
    'response.queued': status('the response’s status'),
    'response.completed': text('the final response, with what streamed put in it'),
    'response.incomplete': text('the final response, with what streamed put in it'),
    'response.failed': text('the final response, with what streamed put in it'),
    'response.output_item.added': text('an item: held, released as its type is checked'),
    'response.output_item.done': text('an item, checked as its type says'),
    'response.content_part.added': text('a part, empty'),
    'response.content_part.done': text('a part, with the checked text'),
    'response.output_text.delta': text('text, through the window checks'),
    'response.output_text.done': text('the checked text'),
    'response.output_text.annotation.added': status('a citation of the text'),
    'response.refusal.delta': text('refusal text, through the window checks'),
    'response.refusal.done': text('the checked refusal'),
    'response.reasoning_summary_part.added': text('held with its reasoning item'),
    'response.reasoning_summary_part.done': text('held with its reasoning item'),
    'response.reasoning_summary_text.delta': text('held with its reasoning item'),
    'response.reasoning_summary_text.done': text('held with its reasoning item'),
    'response.reasoning_text.delta': text('held with its reasoning item'),
    'response.reasoning_text.done': text('held with its reasoning item'),
    'response.function_call_arguments.delta': call('held until the call is whole'),
    'response.function_call_arguments.done': call('held until the call is whole'),
    'response.custom_tool_call_input.delta': call('held until the call is whole'),
    'response.custom_tool_call_input.done': call('held until the call is whole'),
    'response.mcp_call_arguments.delta': result('held until the call’s item is done'),
    'response.mcp_call_arguments.done': result('held until the call’s item is done'),
    'response.mcp_call.in_progress': status('the MCP call’s status'),
    'response.mcp_call.completed': status('the MCP call’s status'),
    'response.mcp_call.failed': status('the MCP call’s status'),
    'response.mcp_list_tools.in_progress': status('the tool list’s status'),
    'response.mcp_list_tools.completed': status('the tool list’s status'),
    'response.mcp_list_tools.failed': status('the tool list’s status'),
    'response.code_interpreter_call_code.delta': result('held until the call’s item is done'),
    'response.code_interpreter_call_code.done': result('held until the call’s item is done'),
    'response.code_interpreter_call.in_progress': status('the call’s status'),
    'response.code_interpreter_call.interpreting': status('the call’s status'),
    'response.code_interpreter_call.completed': status('the call’s status'),
    'response.file_search_call.in_progress': status('the search’s status'),
    'response.file_search_call.searching': status('the search’s status'),
    'response.file_search_call.completed': status('the search’s status'),
    'response.web_search_call.in_progress': status('the search’s status'),
    'response.web_search_call.searching': status('the search’s status'),
    'response.web_search_call.completed': status('the search’s status'),
    'response.image_generation_call.in_progress': status('the image’s status'),
    'response.image_generation_call.generating': status('the image’s status'),
    'response.image_generation_call.completed': status('the image’s status'),
    'response.image_generation_call.partial_image': status('an image'),
    'response.audio.delta': { kind: 'refused', note: 'audio cannot be checked as text' },
    'response.audio.done': { kind: 'refused', note: 'audio cannot be checked as text' },
    'response.audio.transcript.delta': { kind: 'refused', note: 'audio cannot be checked as text' },
    'response.audio.transcript.done': { kind: 'refused', note: 'audio cannot be checked as text' },
  },
}

/**
 * Types the SDK declares that run where Warden cannot see them before they run, or that
 * Warden cannot read: refused unless the operator lets them through by name, per table key.
 */
export const RESPONSES_UNCHECKED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  tool: {
    'mcp.auto': 'an mcp tool whose calls run upstream without an approval Warden can check',
    web_search: 'searches run upstream with queries Warden cannot see first',
    web_search_2025_08_26: 'searches run upstream with queries Warden cannot see first',
    web_search_preview: 'searches run upstream with queries Warden cannot see first',
    web_search_preview_2025_03_11: 'searches run upstream with queries Warden cannot see first',
    file_search: 'searches run upstream with queries Warden cannot see first',
    code_interpreter: 'code runs upstream before Warden can see it',
    image_generation: 'images are made upstream from prompts Warden cannot see first',
    tool_search: 'tools are found and loaded upstream',
    namespace: 'a group of tools Warden does not read',
    programmatic_tool_calling: 'a program calls tools upstream',
  },
  input: {
    additional_tools: 'tools added mid-conversation, not read by Warden',
    compaction: 'an opaque compacted history',
    compaction_trigger: 'asks the server to compact the history',
    file_search_call: 'a server-side search of an earlier turn',
    web_search_call: 'a server-side search of an earlier turn',
    code_interpreter_call: 'server-side code of an earlier turn',
    image_generation_call: 'a server-side image of an earlier turn',
    mcp_list_tools: 'a tool list of an earlier turn',
    program: 'a program of an earlier turn',
    program_output: 'a program’s output',
    tool_search_call: 'a tool search of an earlier turn',
    tool_search_output: 'a tool search’s output',
  },
  output: {
    additional_tools: 'tools added upstream',
    compaction: 'an opaque compacted history',
    program: 'a program that calls tools upstream',
    program_output: 'a program’s output',
    tool_search_call: 'a tool search upstream',
    tool_search_output: 'a tool search’s output',
    function_call_output: 'a tool output made upstream',
    custom_tool_call_output: 'a tool output made upstream',
    local_shell_call_output: 'a tool output made upstream',
    shell_call_output: 'a tool output made upstream',
    apply_patch_call_output: 'a tool output made upstream',
    computer_call_output: 'a tool output made upstream',
    mcp_approval_response: 'an approval made upstream',
  },
}

/** Every Responses table. */
export const RESPONSES_TABLES: readonly ItemTable[] = [
  RESPONSES_INPUT_ITEMS,
  RESPONSES_INPUT_CONTENT,
  RESPONSES_TOOLS,
  RESPONSES_OUTPUT_ITEMS,
  RESPONSES_OUTPUT_CONTENT,
  RESPONSES_STREAM_EVENTS,
]
