// The Starlark value type and the shapes shared by every layer above it: keyword arguments,
// the signature of JS builtins and the symbol host objects use to name their type.
// Scalars map onto JS primitives for speed: None = null, bool = boolean, int = number
// (always integral and safe) or bigint (only beyond 2^53), string = string.

import type { Thread } from '../base/index.js'

/** Any Starlark value. Objects other than the value classes (values.ts) are opaque host values. */
export type Value = null | boolean | number | bigint | string | object

/** Keyword arguments of a call, in call order. */
export type Kwargs = Map<string, Value>

/** Signature of a builtin implemented in JS. */
export type BuiltinImpl = (args: Value[], kwargs: Kwargs | null, thread: Thread) => Value

/** Converts a host (JS) value to a Starlark value. */
export type HostConverter = (value: unknown) => Value

/** Host objects may set this symbol to a string to name their Starlark type. */
export const STARLARK_TYPE: unique symbol = Symbol.for('starlark.type')
