// Compiling: syntax tree to JS closures, statements and expressions apart, with scope
// resolution and the run-time helpers compiled code calls.

export type { CompiledModule } from './context.js'
export { Compiler } from './statements.js'
