// The model-API gateway: Warden between an agent and its model's API (Anthropic Messages,
// OpenAI Chat Completions and Responses), every request and answer mapped onto Warden's
// events and checked, streamed answers included.

export { anthropicApi } from './anthropic.js'
export {
  ANTHROPIC_CONTENT,
  ANTHROPIC_DELTAS,
  ANTHROPIC_DOCUMENT_SOURCES,
  ANTHROPIC_EVENTS,
  ANTHROPIC_MCP_SERVERS,
  ANTHROPIC_OUTPUT,
  ANTHROPIC_ROLES,
  ANTHROPIC_TABLES,
  ANTHROPIC_TOOLS,
} from './anthropic-tables.js'
export type {
  AnswerVerdicts,
  AnswerView,
  ApiErrorInfo,
  CallVerdict,
  LlmApi,
  LlmApiName,
  RequestChanges,
  RequestView,
  StreamChecks,
  StreamRelay,
  TextCheck,
  TextWindow,
  ToolCallView,
  WindowDecision,
} from './api.js'
export { chatApi } from './chat.js'
export {
  CHAT_ANSWER_FIELDS,
  CHAT_PARTS,
  CHAT_ROLES,
  CHAT_TABLES,
  CHAT_TOOL_CALLS,
  CHAT_TOOLS,
  CHAT_USER_PARTS,
} from './chat-tables.js'
export { type CallScope, type Checked, LlmChecks } from './checks.js'
export {
  LLM_TYPES_SETTING,
  type LlmItemTable,
  renderTypeTables,
  type TypeRow,
  tableRows,
} from './item-types.js'
export {
  LLM_DEFAULTS,
  type LlmLimits,
  type LlmSettings,
  llmLimits,
  llmSettings,
  llmSettingsSchema,
} from './limits.js'
export { responsesApi } from './responses.js'
export {
  RESPONSES_INPUT_CONTENT,
  RESPONSES_INPUT_ITEMS,
  RESPONSES_OUTPUT_CONTENT,
  RESPONSES_OUTPUT_ITEMS,
  RESPONSES_STREAM_EVENTS,
  RESPONSES_TABLES,
  RESPONSES_TOOLS,
  RESPONSES_UNCHECKED,
} from './responses-tables.js'
export { apiForPath, type Route } from './routes.js'
export { type LlmGateway, type LlmGatewayOptions, startLlmGateway, wardenToken } from './server.js'
export { tablesMarkdown } from './table-doc.js'
export { TextGuard } from './text-guard.js'
export { LLM_TABLES, llmLetThroughRecorder, llmUnknownTypes } from './unknown-types.js'
