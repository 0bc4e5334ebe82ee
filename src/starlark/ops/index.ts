// Operations on values: comparison, repr/str, arithmetic, % and {} formatting, and
// indexing, slicing and iteration of sequences. Depends on values and base.

export { add, bitwise, div, floorDiv, mod, mul, shift, sub, unary } from './arith.js'
export { compare, equals } from './compare.js'
export { formatBraces } from './format.js'
export { repr, reprForMessage, str } from './repr.js'
export { contains, getIndex, getSlice, iterate, length, setIndex } from './sequence.js'
