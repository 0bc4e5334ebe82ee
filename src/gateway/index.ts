// Gateways: Warden placed between agents and the servers they talk to (MCP today).

export * from './a2a/index.js'
export * from './mcp/index.js'
