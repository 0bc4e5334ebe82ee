// The MCP gateway: Warden between any MCP client and server, over stdio or Streamable HTTP.

export { McpBridge, type McpBridgeOptions } from './bridge.js'
export { McpChecks, type McpChecksOptions } from './checks.js'
export { HTTP_GATEWAY_DEFAULTS, type HttpGateway, type HttpGatewayOptions, startHttpGateway } from './http.js'
export { DENIED_ERROR_CODE, envelopeProblem, GATEWAY_ERROR_CODE } from './jsonrpc.js'
export { ChildTransport, type ChildTransportOptions, LineSplitter, LineTransport } from './lines.js'
export type { Direction, Outcome } from './outcome.js'
export {
  canonicalJson,
  type PinMismatch,
  type PinObservation,
  type ToolPin,
  ToolPins,
  toolDigest,
} from './pins.js'
export {
  type GatewaySetup,
  type GatewaySetupOptions,
  mcpLetThroughRecorder,
  prepareGateway,
} from './setup.js'
export {
  DEFAULT_MAX_MESSAGE_BYTES,
  type StdioGateway,
  type StdioGatewayOptions,
  startStdioGateway,
} from './stdio.js'
export {
  MCP_CLIENT_NOTIFICATIONS,
  MCP_CLIENT_REQUESTS,
  MCP_ELICITATION_FIELDS,
  MCP_MESSAGE_ROLES,
  MCP_PROMPT_CONTENT,
  MCP_RESOURCE_CONTENTS,
  MCP_SAMPLING_CONTENT,
  MCP_SERVER_NOTIFICATIONS,
  MCP_SERVER_REQUESTS,
  MCP_TABLES,
  MCP_TOOL_CONTENT,
  MCP_UNKNOWN_TYPES_SETTING,
} from './tables.js'
export { type ToolResultView, toolResultView } from './tool-call.js'
export { denyHandler, hiddenToolPatterns, ToolVisibility } from './tools.js'
