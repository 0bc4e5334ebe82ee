// The management API's wire format (GoClaw's frames): requests
// `{type:"req", id, method, params}`, answers `{type:"res", id, ok, payload | error}`,
// pushes `{type:"event", event, payload}`; the error type every method throws; which role
// may call which method; and the strict parsing of params with errors naming the field.

import type { z } from 'zod'
import type { TokenRole } from '../../store/index.js'
import type { Principal } from './tokens.js'

/** Error codes a `res` frame can carry. */
export type ApiErrorCode =
  | 'bad-frame'
  | 'frame-too-large'
  | 'unknown-method'
  | 'invalid-params'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'rate-limited'
  | 'unavailable'
  | 'internal'

/** An error answered in a `res` frame: a code, a message saying what to change, the field. */
export class ApiError extends Error {
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

/** What a method handler gets besides its params. */
export interface MethodContext {
  principal: Principal
  /** The connection's own push subscriptions (for subscribe / unsubscribe). */
  connection: ConnectionHandle
}

/** What a connection exposes to the methods. */
export interface ConnectionHandle {
  subscribe(events: readonly string[], filter: PushFilter): string[]
  unsubscribe(events: readonly string[] | undefined): string[]
}

/** Limits which `decision` pushes a connection receives. */
export interface PushFilter {
  events?: string[]
  decisions?: string[]
}

/** A method: the schema of its params, who may call it, and what it does. */
export interface MethodDef<S extends z.ZodType = z.ZodType> {
  params: S
  roles: readonly TokenRole[]
  run(params: z.infer<S>, context: MethodContext): Promise<unknown> | unknown
}

/** Declares a method (keeps `run`'s params typed by the schema). */
export function method<S extends z.ZodType>(def: MethodDef<S>): MethodDef<S> {
  return def
}

/** Every role that may read. */
export const READERS: readonly TokenRole[] = ['admin', 'editor', 'approver', 'viewer']
/** Roles that may change hooks and run them. */
export const EDITORS: readonly TokenRole[] = ['admin', 'editor']
/** Roles that may resolve approvals. */
export const APPROVERS: readonly TokenRole[] = ['admin', 'approver']
/** Only the administrator. */
export const ADMINS: readonly TokenRole[] = ['admin']

/**
 * Parses params with a method's schema.
 * @throws ApiError `invalid-params` naming the first field that is wrong.
 */
export function parseParams<S extends z.ZodType>(schema: S, params: unknown, method: string): z.infer<S> {
  const parsed = schema.safeParse(params ?? {})
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  if (!issue) throw new ApiError('invalid-params', `${method}: the params are not valid`)
  const path = issue.path.map(String).join('.')
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys
    const at = path ? `${path}.` : ''
    throw new ApiError(
      'invalid-params',
      `${method}: unknown field${keys.length > 1 ? 's' : ''} ${keys.map((k) => `"${at}${k}"`).join(', ')}; remove ${keys.length > 1 ? 'them' : 'it'} or check the spelling`,
      `${at}${keys[0]}`,
    )
  }
  throw new ApiError(
    'invalid-params',
    `${method}: ${path ? `params.${path}` : 'params'} ${issue.message}`,
    path || 'params',
  )
}

/** A `res` frame for a success. */
export function okFrame(id: string | number, payload: unknown): string {
  return JSON.stringify({ type: 'res', id, ok: true, payload: payload ?? null })
}

/** A `res` frame for an error. */
export function errorFrame(id: string | number | null, error: ApiError): string {
  const body: { code: string; message: string; field?: string } = { code: error.code, message: error.message }
  if (error.field !== undefined) body.field = error.field
  return JSON.stringify({ type: 'res', id, ok: false, error: body })
}

/** An `event` frame. */
export function eventFrame(event: string, payload: unknown): string {
  return JSON.stringify({ type: 'event', event, payload })
}
