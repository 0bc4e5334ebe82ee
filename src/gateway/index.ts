// Gateways: Warden placed between agents and what they talk to: MCP servers, A2A agents and
// the model APIs.

export * from './a2a/index.js'
export * from './kit/index.js'
export * from './llm/index.js'
export * from './mcp/index.js'
