// Source positions: the 1-based line and column every syntax node, call site and error carries.

/** Source position of a node. */
export interface Pos {
  line: number
  col: number
}
