// Built-ins: the universe (len, sorted, ...), string/list/dict methods, attribute lookup
// and argument binding helpers. Depends on ops, values, lexer and base.

export { callMethod, getAttribute } from './attrs.js'
export { extendList } from './collection-methods.js'
export { UNIVERSE } from './universe.js'
