// What the `hooks.*` methods share: the strict schemas of their params, finding a hook the
// token may see (stored or from a file), turning a definition into a store input checked by
// the engine's own rules, and hook-model errors as API errors naming the field.

import { z } from 'zod'
import { errorMessage, type HookDefinition, type HookSpec, WardenError } from '../../core/index.js'
import { API_SOURCE_PREFIX, PROFILE_ACTION_TYPE, relativePathProblem } from '../../sources/index.js'
import { type HookInput, type StoredHook, StoreError } from '../../store/index.js'
import type { PlaneContext } from './context.js'
import { ApiError } from './protocol.js'
import type { Principal } from './tokens.js'
import { fileView, type HookView, isStoredSpec, storedView, tripsByHook, visibleTo } from './views.js'

export const id = z.string({ error: 'must be a hook id string' }).min(1, 'must not be empty').max(300)
export const limit = z.number().int().min(1).max(1000).optional()
export const object = z.record(z.string(), z.unknown(), { error: 'must be an object' })

/** The definition fields the API takes (the hook model checks each of them again). */
export const definition = z
  .object({
    name: z.string({ error: 'must be a string' }),
    event: z.string({ error: 'must be a string' }),
    handler: object,
    matcher: z.string().optional(),
    if: z.string().optional(),
    priority: z.number().optional(),
    timeoutMs: z.number().optional(),
    onTimeout: z.string().optional(),
    onError: z.string().optional(),
    scope: object.optional(),
    enabled: z.boolean({ error: 'must be true or false' }).optional(),
    policy: object.optional(),
    mode: z.string().optional(),
    description: z.string({ error: 'must be text' }).max(1000, 'must be at most 1000 characters').optional(),
    blocks: z.boolean({ error: 'must be true or false' }).optional(),
    maxInvocationsPerTurn: z.number({ error: 'must be a number' }).optional(),
    breakerCountsBlocks: z.boolean({ error: 'must be true or false' }).optional(),
    background: z.boolean({ error: 'must be true or false' }).optional(),
    home: z.enum(['goclaw', 'loom', 'harness']).optional(),
  })
  .strict()

export type DefinitionParams = z.infer<typeof definition>

export const editable = definition.partial().omit({ name: true }).strict()

/** The top-level fields of a hook definition. */
const HOOK_FIELDS = new Set(Object.keys(definition.shape))

/** Words that open a sentence of a handler's message, never an option's name. */
const NOT_FIELDS = new Set(['a', 'an', 'the', 'no', 'this', 'it', 'its', 'one', 'only', 'cannot'])

/** The field a hook-model error message names (`hook "x": handler.url must …`). */
export function fieldOf(message: string): string | undefined {
  let rest = message.replace(/^hook(?: "[^"]*")?: /, '')
  // A handler's own check: `hook "x": handler: reason must …`.
  const inHandler = rest.startsWith('handler: ')
  if (inHandler) rest = rest.slice('handler: '.length)
  const at = (field: string) => (inHandler ? `handler.${field}` : field)
  const unknown = /^unknown fields? "([^"]+)"(?:.* in (\S+?):)?/.exec(rest)
  if (unknown?.[1]) return at(unknown[2] ? `${unknown[2]}.${unknown[1]}` : unknown[1])
  const event = /^event "/.exec(rest)
  if (event && !inHandler) return 'event'
  // A message may start with a sentence rather than a field ("no LLM judge is configured",
  // "a prompt handler needs …"): only a hook field, or a handler option, counts.
  const field = /^([A-Za-z][\w.[\]]*)\s/.exec(rest)?.[1]
  const root = field?.split(/[.[]/)[0] ?? ''
  if (field && (inHandler ? !NOT_FIELDS.has(root) : HOOK_FIELDS.has(root))) return at(field)
  return inHandler ? 'handler' : undefined
}

/** A hook-model or store error as an `invalid-params` API error. */
export function invalid(error: unknown): ApiError {
  if (error instanceof ApiError) return error
  if (error instanceof WardenError || error instanceof StoreError) {
    const field = fieldOf(error.message)
    return new ApiError('invalid-params', error.message, field)
  }
  return new ApiError('internal', errorMessage(error))
}

/** Where a hook stands: stored, from a file, or nowhere visible. */
export type Found = { kind: 'stored'; hook: StoredHook } | { kind: 'file'; spec: HookSpec }

export async function find(plane: PlaneContext, principal: Principal, hookId: string): Promise<Found> {
  const stored = await plane.store.getHook(hookId)
  if (stored && visibleTo(principal, stored.tenant)) return { kind: 'stored', hook: stored }
  if (!stored) {
    const spec = plane.engine.hooks().find((h) => h.id === hookId && !isStoredSpec(h))
    if (spec && visibleTo(principal, spec.scope.tenant)) return { kind: 'file', spec }
  }
  throw new ApiError('not-found', `no hook "${hookId}"`, 'id')
}

export function viewOf(plane: PlaneContext, found: Found): HookView {
  const trips = tripsByHook(plane.engine.openBreakers())
  return found.kind === 'stored'
    ? storedView(found.hook, trips.get(found.hook.id))
    : fileView(found.spec, trips.get(found.spec.id))
}

/** Every hook the principal may see: stored ones and those from files. */
export async function allViews(plane: PlaneContext, principal: Principal): Promise<HookView[]> {
  const trips = tripsByHook(plane.engine.openBreakers())
  const stored = await plane.store.listHooks()
  const views = stored
    .filter((h) => visibleTo(principal, h.tenant))
    .map((h) => storedView(h, trips.get(h.id)))
  const taken = new Set(views.map((v) => v.id))
  for (const spec of plane.engine.hooks()) {
    if (isStoredSpec(spec) || taken.has(spec.id) || !visibleTo(principal, spec.scope.tenant)) continue
    views.push(fileView(spec, trips.get(spec.id)))
  }
  return views.sort(
    (a, b) => a.event.localeCompare(b.event) || a.priority - b.priority || a.id.localeCompare(b.id),
  )
}

/** The tenant a definition is for, checked against the principal. */
export function tenantFor(
  principal: Principal,
  params: { scope?: Record<string, unknown> | undefined },
): string | undefined {
  const asked = params.scope?.tenant
  if (asked !== undefined && typeof asked !== 'string') {
    throw new ApiError('invalid-params', 'scope.tenant must be a tenant id string', 'scope.tenant')
  }
  if (principal.tenant === undefined) return asked === '' ? undefined : asked
  if (asked !== undefined && asked !== principal.tenant) {
    throw new ApiError(
      'forbidden',
      `this token belongs to tenant "${principal.tenant}" and cannot make hooks for "${asked}"`,
      'scope.tenant',
    )
  }
  return principal.tenant
}

/**
 * Refuses what a handler config from the API must not do to the host: run a program
 * (`command` hooks, or a profile's `command` action) unless `management.allowCommandHooks`
 * is on, name a folder of its own (`baseDir`), name a file outside the data folder
 * (an absolute `save_json` path or one with `..`), or read a file (a shell detector's
 * `claudeSettings`).
 */
export function refuseHostAccess(plane: PlaneContext, handler: Record<string, unknown>): void {
  const runsProgram =
    handler.type === 'command' || (handler.type === PROFILE_ACTION_TYPE && handler.action === 'command')
  if (runsProgram && !plane.settings.allowCommandHooks) {
    throw new ApiError(
      'forbidden',
      'command hooks run programs on the server, and this Warden does not allow them through the API; set management.allowCommandHooks: true in warden.yaml to allow it',
      handler.type === 'command' ? 'handler.type' : 'handler.action',
    )
  }
  const options = handler.options as Record<string, unknown> | undefined
  if (
    handler.type === 'detector' &&
    options !== null &&
    typeof options === 'object' &&
    'claudeSettings' in options
  ) {
    throw new ApiError(
      'forbidden',
      'handler.options.claudeSettings reads a file on the server, which hooks made through the management API may not do; list the commands in options.allow and options.deny instead',
      'handler.options.claudeSettings',
    )
  }
  if (handler.baseDir !== undefined) {
    throw new ApiError(
      'invalid-params',
      'handler.baseDir cannot be set through the management API: hooks made here do not choose folders on the server (save_json writes inside management.dataDir)',
      'handler.baseDir',
    )
  }
  if (handler.type === PROFILE_ACTION_TYPE && typeof handler.path === 'string') {
    const problem = relativePathProblem('handler.path', handler.path)
    if (problem) throw new ApiError('invalid-params', problem, 'handler.path')
  }
}

/** The store input of a definition (validated by the engine's own rules first). */
export function toInput(plane: PlaneContext, principal: Principal, params: DefinitionParams): HookInput {
  refuseHostAccess(plane, params.handler)
  const tenant = tenantFor(principal, params)
  const scope = { ...(params.scope ?? {}) }
  delete scope.tenant
  // Checked as the stored hook will run: with the rules of hooks made through the API.
  const hook = {
    ...params,
    ...(tenant ? { scope: { ...scope, tenant } } : { scope }),
    source: `${API_SOURCE_PREFIX}user`,
  } as unknown as HookDefinition
  let spec: HookSpec
  try {
    spec = plane.engine.validate(hook)
  } catch (error) {
    throw invalid(error)
  }
  const input: HookInput = {
    name: spec.name,
    event: spec.event,
    handler: params.handler as HookInput['handler'],
    priority: spec.priority,
    timeoutMs: spec.timeoutMs,
    onTimeout: spec.onTimeout,
    onError: spec.onError,
    enabled: spec.enabled,
    source: 'user',
    mode: spec.mode ?? 'enforce',
  }
  if (spec.scope.tenant) input.tenant = spec.scope.tenant
  if (spec.scope.agents) input.agents = spec.scope.agents
  if (spec.matcher !== undefined) input.matcher = spec.matcher
  if (spec.if !== undefined) input.if = spec.if
  if (spec.policy) input.policy = spec.policy
  if (spec.description) input.description = spec.description
  if (spec.blocks !== undefined) input.blocks = spec.blocks
  if (spec.maxInvocationsPerTurn !== undefined) input.maxInvocationsPerTurn = spec.maxInvocationsPerTurn
  if (spec.breakerCountsBlocks) input.breakerCountsBlocks = true
  if (spec.background) input.background = true
  if (spec.home) input.home = spec.home
  return input
}

/** A stored hook as definition params again (for an update to merge into). */
export function paramsOf(hook: StoredHook): DefinitionParams {
  const params: DefinitionParams = {
    name: hook.name,
    event: hook.event,
    handler: hook.handler,
    priority: hook.priority,
    timeoutMs: hook.timeoutMs,
    onTimeout: hook.onTimeout,
    onError: hook.onError,
    enabled: hook.enabled,
    mode: hook.mode ?? 'enforce',
  }
  const scope: Record<string, unknown> = {}
  if (hook.tenant) scope.tenant = hook.tenant
  if (hook.agents.length > 0) scope.agents = hook.agents
  params.scope = scope
  if (hook.matcher !== undefined) params.matcher = hook.matcher
  if (hook.if !== undefined) params.if = hook.if
  if (hook.policy) params.policy = hook.policy as unknown as Record<string, unknown>
  if (hook.description) params.description = hook.description
  if (hook.blocks !== undefined) params.blocks = hook.blocks
  if (hook.maxInvocationsPerTurn !== undefined) params.maxInvocationsPerTurn = hook.maxInvocationsPerTurn
  if (hook.breakerCountsBlocks) params.breakerCountsBlocks = true
  if (hook.background) params.background = true
  if (hook.home) params.home = hook.home
  return params
}

export async function save(plane: PlaneContext, input: HookInput): Promise<StoredHook> {
  try {
    return await plane.store.putHook(input)
  } catch (error) {
    throw invalid(error)
  }
}

/** The sample event of a dry run. */
export const sampleEvent = z
  .object({ payload: object, context: object.optional() }, { error: 'must be { payload, context? }' })
  .strict()
