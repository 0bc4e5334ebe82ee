// Starlark value representation. Scalars map onto JS primitives for speed: None = null,
// bool = boolean, int = number (always integral and safe) or bigint (only beyond 2^53),
// string = string. Floats, lists, tuples, dicts, ranges, functions and builtins are classes.
// Any other object is an opaque host value that Starlark passes through untouched. The
// Value type itself is in value.ts; dict views of host objects convert their entries with
// the converter the host boundary supplies, so this layer does not depend on it.

import { runtimeError, type Thread } from '../base/index.js'
import type { Frame, FunctionCode } from './frame.js'
import { type BuiltinImpl, type HostConverter, STARLARK_TYPE, type Value } from './value.js'

/** A Starlark float (ints are plain numbers, so floats are boxed to stay distinct). */
export class Float {
  constructor(readonly value: number) {}
}

/** A mutable Starlark list. */
export class StarList {
  frozen = false
  /** Number of loops currently iterating over this list. */
  iterating = 0
  constructor(public items: Value[]) {}

  /** Throws if the list is frozen or being iterated over; `verb` names the operation. */
  checkMutable(verb: string): void {
    if (this.frozen) throw runtimeError(`cannot ${verb} frozen list`)
    if (this.iterating > 0) throw runtimeError(`cannot ${verb} list during iteration`)
  }
}

/** An immutable Starlark tuple. */
export class StarTuple {
  constructor(readonly items: Value[]) {}
}

/** A lazy `range(start, stop, step)`. */
export class StarRange {
  readonly length: number
  constructor(
    readonly start: number,
    readonly stop: number,
    readonly step: number,
  ) {
    const span = step > 0 ? stop - start : start - stop
    this.length = span <= 0 ? 0 : Math.ceil(span / Math.abs(step))
  }

  at(index: number): number {
    return this.start + index * this.step
  }
}

/** A function implemented in JS (universe builtins, methods bound to a receiver, host builtins). */
export class Builtin {
  constructor(
    readonly name: string,
    readonly impl: BuiltinImpl,
  ) {}
}

/** A host-defined namespace such as `metrics` with attributes `metrics.incr`. */
export class HostModule {
  constructor(
    readonly name: string,
    readonly members: ReadonlyMap<string, Value>,
  ) {}
}

/** A function defined in Starlark with `def` or `lambda`. */
export class StarFunction {
  constructor(
    readonly code: FunctionCode,
    readonly defaults: (Value | undefined)[],
    readonly closure: Frame | null,
    readonly globals: (Value | undefined)[],
  ) {}

  get name(): string {
    return this.code.name
  }
}

const objectIds = new WeakMap<object, number>()
let nextObjectId = 1

function objectId(value: object): number {
  let id = objectIds.get(value)
  if (id === undefined) {
    id = nextObjectId++
    objectIds.set(value, id)
  }
  return id
}

function tupleKey(items: Value[], depth: number): string {
  if (depth > 100) throw runtimeError('tuple nested too deeply to be used as a dict key')
  let out = `(${items.length}`
  for (const item of items) {
    switch (typeof item) {
      case 'string':
        out += `s${item.length}:${item}`
        break
      case 'number':
      case 'bigint':
        out += `n${item};`
        break
      case 'boolean':
        out += item ? 'B1' : 'B0'
        break
      default: {
        const key = dictKey(item)
        if (typeof key === 'number' || typeof key === 'bigint') out += `n${key};`
        else if (typeof key === 'string') out += `x${key.length}:${key}`
        else if (key === null) out += 'N'
        else out += `o${objectId(key as object)};`
      }
    }
  }
  return `${out})`
}

/**
 * Maps a value to the JS Map key used by dicts, so that equal Starlark values (1 and 1.0,
 * equal tuples) share one key. Throws for unhashable values (lists, dicts).
 */
export function dictKey(value: Value): unknown {
  switch (typeof value) {
    case 'string':
      return value.charCodeAt(0) === 1 ? `\u0001S${value}` : value
    case 'number':
    case 'boolean':
    case 'bigint':
      return value
    default: {
      if (value === null) return null
      if (value instanceof Float) {
        const f = value.value
        if (Number.isInteger(f)) return Number.isSafeInteger(f) ? f + 0 : BigInt(f)
        return `\u0001F${f}`
      }
      if (value instanceof StarTuple) return `\u0001T${tupleKey(value.items, 0)}`
      if (value instanceof StarList || value instanceof StarDict) {
        throw runtimeError(`unhashable type: ${typeName(value)}`)
      }
      return value
    }
  }
}

const EMPTY_MAP: Map<unknown, Value> = new Map()

/** A Starlark dict: insertion-ordered; may be a lazy read-only view of a host object. */
export class StarDict {
  /** Normalised key (see dictKey) → value. */
  map: Map<unknown, Value>
  /** Normalised key → original key, for keys whose normal form differs from the key. */
  originals: Map<unknown, Value> | null = null
  frozen = false
  iterating = 0
  /** Host object this dict is a lazy view of, until first needed in full. */
  private source: Record<string, unknown> | null
  /** The host object this dict was created as a view of (kept after materialising). */
  private readonly origin: Record<string, unknown> | null
  /** Converts the host object's entries when read (set for views only). */
  private readonly convert: HostConverter | null

  constructor(source: Record<string, unknown> | null = null, convert: HostConverter | null = null) {
    this.source = source
    this.origin = source
    this.convert = convert
    this.frozen = source !== null
    this.map = source === null ? new Map() : EMPTY_MAP
  }

  /** A frozen dict over a plain host object; entries are converted with `convert` when read. */
  static view(source: Record<string, unknown>, convert: HostConverter): StarDict {
    return new StarDict(source, convert)
  }

  /** The host object this dict is a read-only view of, if any. */
  get hostSource(): Record<string, unknown> | null {
    return this.origin
  }

  private materialize(): void {
    const source = this.source
    if (source === null) return
    this.source = null
    this.map = new Map()
    for (const key of Object.keys(source)) this.store(key, (this.convert as HostConverter)(source[key]))
  }

  get size(): number {
    if (this.source !== null) this.materialize()
    return this.map.size
  }

  /** Looks a key up; undefined when absent. */
  get(key: Value): Value | undefined {
    const source = this.source
    if (source !== null && typeof key === 'string') {
      return Object.hasOwn(source, key) ? (this.convert as HostConverter)(source[key]) : undefined
    }
    if (source !== null) this.materialize()
    return this.map.get(dictKey(key))
  }

  has(key: Value): boolean {
    const source = this.source
    if (source !== null && typeof key === 'string') return Object.hasOwn(source, key)
    if (source !== null) this.materialize()
    return this.map.has(dictKey(key))
  }

  checkMutable(verb: string): void {
    if (this.frozen) throw runtimeError(`cannot ${verb} frozen dict`)
    if (this.iterating > 0) throw runtimeError(`cannot ${verb} dict during iteration`)
  }

  /** Inserts or replaces an entry (caller checks mutability and size limits). */
  store(key: Value, value: Value): void {
    const normal = dictKey(key)
    if (normal !== key) {
      if (this.originals === null) this.originals = new Map()
      if (!this.map.has(normal)) this.originals.set(normal, key)
    }
    this.map.set(normal, value)
  }

  /** Sets an entry after checking mutability and the collection limit. */
  set(key: Value, value: Value, thread: Thread): void {
    this.checkMutable('insert into')
    const normal = dictKey(key)
    if (!this.map.has(normal)) thread.checkCollection(this.map.size + 1)
    this.store(key, value)
  }

  /** Removes an entry, returning its value or undefined. */
  remove(key: Value): Value | undefined {
    this.checkMutable('delete from')
    const normal = dictKey(key)
    const value = this.map.get(normal)
    if (value === undefined) return undefined
    this.map.delete(normal)
    this.originals?.delete(normal)
    return value
  }

  clear(): void {
    this.checkMutable('clear')
    this.map.clear()
    this.originals = null
  }

  private originalKey(normal: unknown): Value {
    if (this.originals !== null) {
      const original = this.originals.get(normal)
      if (original !== undefined) return original
    }
    return normal as Value
  }

  keys(): Value[] {
    if (this.source !== null) this.materialize()
    const out: Value[] = []
    for (const normal of this.map.keys()) out.push(this.originalKey(normal))
    return out
  }

  values(): Value[] {
    if (this.source !== null) this.materialize()
    return Array.from(this.map.values())
  }

  entries(): [Value, Value][] {
    if (this.source !== null) this.materialize()
    const out: [Value, Value][] = []
    for (const [normal, value] of this.map) out.push([this.originalKey(normal), value])
    return out
  }
}

/** The Starlark type name of a value, as `type(x)` returns it. */
export function typeName(value: Value): string {
  switch (typeof value) {
    case 'string':
      return 'string'
    case 'number':
    case 'bigint':
      return 'int'
    case 'boolean':
      return 'bool'
    default:
      if (value === null) return 'NoneType'
      if (value instanceof Float) return 'float'
      if (value instanceof StarList) return 'list'
      if (value instanceof StarDict) return 'dict'
      if (value instanceof StarTuple) return 'tuple'
      if (value instanceof StarFunction) return 'function'
      if (value instanceof Builtin) return 'builtin_function_or_method'
      if (value instanceof StarRange) return 'range'
      if (value instanceof HostModule) return 'module'
      return hostTypeName(value)
  }
}

function hostTypeName(value: object): string {
  const named = (value as { [STARLARK_TYPE]?: unknown })[STARLARK_TYPE]
  return typeof named === 'string' ? named : 'host_value'
}

/** Starlark truthiness. */
export function truth(value: Value): boolean {
  switch (typeof value) {
    case 'boolean':
      return value
    case 'string':
      return value.length > 0
    case 'number':
      return value !== 0
    case 'bigint':
      return value !== 0n
    default:
      if (value === null) return false
      if (value instanceof Float) return value.value !== 0
      if (value instanceof StarList) return value.items.length > 0
      if (value instanceof StarTuple) return value.items.length > 0
      if (value instanceof StarDict) return value.size > 0
      if (value instanceof StarRange) return value.length > 0
      return true
  }
}

/** Normalises a bigint result: back to a number when it fits safely. */
export function normalizeInt(value: bigint): number | bigint {
  if (value >= -9007199254740991n && value <= 9007199254740991n) return Number(value)
  return value
}

/** Whether a value is a Starlark int. */
export function isInt(value: Value): value is number | bigint {
  return typeof value === 'number' || typeof value === 'bigint'
}

/** Converts an int or float to a JS number; errors when a big int does not fit a float. */
export function toFloat(value: number | bigint | Float): number {
  if (typeof value === 'number') return value
  if (value instanceof Float) return value.value
  const f = Number(value)
  if (!Number.isFinite(f)) throw runtimeError('int too large to convert to float')
  return f
}
