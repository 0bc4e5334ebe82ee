// Attribute access (`x.name`) and method calls: looks names up in the fixed method tables
// of strings, lists and dicts and in host modules only — never in JS properties, so no
// prototype or constructor is reachable from Starlark.

import { runtimeError, type Thread } from '../base/index.js'
import {
  Builtin,
  callValue,
  HostModule,
  type Kwargs,
  StarDict,
  StarList,
  typeName,
  type Value,
  workOf,
  workOfArgs,
} from '../values/index.js'
import { DICT_METHODS, LIST_METHODS, type Method } from './collection-methods.js'
import { STRING_METHODS } from './string-methods.js'

type AnyMethod = Method<never>

function methodTable(value: Value): ReadonlyMap<string, AnyMethod> | null {
  if (typeof value === 'string') return STRING_METHODS as ReadonlyMap<string, AnyMethod>
  if (value instanceof StarList) return LIST_METHODS as ReadonlyMap<string, AnyMethod>
  if (value instanceof StarDict) return DICT_METHODS as ReadonlyMap<string, AnyMethod>
  return null
}

function noAttribute(value: Value, name: string): never {
  throw runtimeError(`${typeName(value)} has no .${name} field or method`)
}

/** Calls `receiver.name(*args, **kwargs)` without allocating a bound method. */
export function callMethod(
  receiver: Value,
  name: string,
  args: Value[],
  kwargs: Kwargs | null,
  thread: Thread,
): Value {
  if (receiver instanceof HostModule) {
    const member = receiver.members.get(name)
    if (member === undefined) return noAttribute(receiver, name)
    return callValue(member, args, kwargs, thread)
  }
  const method = methodTable(receiver)?.get(name)
  if (method === undefined) return noAttribute(receiver, name)
  if (++thread.steps >= thread.nextCheck) thread.checkpoint()
  const work = receiverWork(receiver, name) + workOfArgs(args)
  thread.charge(work)
  const started = thread.beginWork(name, work)
  const result = (method as Method<Value>)(receiver, args, kwargs, thread)
  thread.endWork(name, work, started)
  thread.charge(workOf(result))
  return result
}

/** List methods that take constant time, whatever the list's length. */
const CONSTANT_TIME_LIST_METHODS = new Set(['append', 'pop', 'clear'])

/** The work a method does on its receiver: every string method reads it; most list methods too. */
function receiverWork(receiver: Value, name: string): number {
  if (typeof receiver === 'string') return receiver.length
  if (receiver instanceof StarList && !CONSTANT_TIME_LIST_METHODS.has(name)) return workOf(receiver)
  return 0
}

/** `x.name` as a value (a bound method or a module member); undefined when absent. */
export function findAttribute(receiver: Value, name: string): Value | undefined {
  if (receiver instanceof HostModule) return receiver.members.get(name)
  const method = methodTable(receiver)?.get(name) as Method<Value> | undefined
  if (method === undefined) return undefined
  return new Builtin(`${typeName(receiver)}.${name}`, (args, kwargs, thread) => {
    const work = receiverWork(receiver, name)
    thread.charge(work)
    const started = thread.beginWork(name, work)
    const result = method(receiver, args, kwargs, thread)
    thread.endWork(name, work, started)
    return result
  })
}

/** `x.name`; throws when there is no such attribute. */
export function getAttribute(receiver: Value, name: string): Value {
  const value = findAttribute(receiver, name)
  if (value === undefined) return noAttribute(receiver, name)
  return value
}

/** The attribute names of a value, sorted (as `dir(x)` returns them). */
export function attributeNames(value: Value): string[] {
  if (value instanceof HostModule) return Array.from(value.members.keys()).sort()
  const table = methodTable(value)
  return table === null ? [] : Array.from(table.keys()).sort()
}
