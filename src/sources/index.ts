// Where hook definitions and settings come from.

export type { WardenConfig } from './config.js'
export { loadConfig, parseConfig } from './config.js'
export type { RuntimeOptions } from './runtime.js'
export { buildEngine, buildHandlers } from './runtime.js'
