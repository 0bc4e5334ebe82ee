// The caller's tenant governs every tenant-bearing part of an A2A call. The A2A `tenant`
// field (params, a REST path's `/{tenant}/` prefix or `?tenant=`) must be the caller's tenant
// (from its token or X-Warden-Tenant) or empty; anything else is refused, never rewritten,
// so a caller learns at once that it asked for another tenant. Task ids are bound to the
// tenant whose call first saw them answered (a send that created the task): a call naming a
// task bound to another tenant, or one the gateway never saw answered (or has forgotten past
// `a2a.maxTrackedTasks`), is refused; an answer carrying another tenant's task is refused;
// and ListTasks answers only the caller's tenant's tasks, so an upstream without tenancy
// cannot leak one tenant's tasks or push configs to another.

import type { EventContext, HookCall, HookDefinition, Json, JsonObject } from '../../core/index.js'
import { type A2aOperation, OPERATION_EVENTS } from './methods.js'
import { isObject, responseKind } from './payload.js'

/** The bucket of callers without a tenant. */
const NO_TENANT = ''

/** The tenant that governs a call: its event context's (the caller's, or the gateway's default). */
export function contextTenant(context: EventContext): string {
  return typeof context.tenantId === 'string' ? context.tenantId : NO_TENANT
}

/** Task ids and the tenant each is bound to, bounded (the least recently used is forgotten first). */
export class TaskTenants {
  private readonly tenants = new Map<string, string>()

  constructor(private readonly max: number) {}

  /** Tasks remembered now. */
  get size(): number {
    return this.tenants.size
  }

  /** The tenant a task is bound to, or undefined when the gateway does not know it. */
  owner(taskId: string): string | undefined {
    const tenant = this.tenants.get(taskId)
    if (tenant === undefined) return undefined
    this.tenants.delete(taskId)
    this.tenants.set(taskId, tenant)
    return tenant
  }

  /** Binds a task to a tenant unless it is bound already (a binding never moves). */
  bind(taskId: string, tenant: string): void {
    if (this.tenants.has(taskId)) return
    this.tenants.set(taskId, tenant)
    if (this.tenants.size > this.max) {
      const oldest = this.tenants.keys().next().value
      if (oldest !== undefined) this.tenants.delete(oldest)
    }
  }

  /**
   * Why `caller` may not make this call, or undefined: the `tenant` field, then every task id
   * the params name.
   */
  requestProblem(operation: A2aOperation, params: JsonObject, tenant: string): string | undefined {
    const asked = params.tenant
    if (typeof asked === 'string' && asked !== '' && asked !== tenant) {
      return `the call names tenant "${shown(asked)}" but the caller is ${describeTenant(tenant)}; a caller reaches only its own tenant's tasks`
    }
    for (const taskId of referencedTasks(operation, params)) {
      const owner = this.owner(taskId)
      if (owner === tenant) continue
      if (owner === undefined) {
        return `task "${shown(taskId)}" was not created through this gateway for ${describeTenant(tenant)} (or was forgotten past a2a.maxTrackedTasks)`
      }
      return `task "${shown(taskId)}" belongs to another tenant`
    }
    return undefined
  }

  /**
   * Binds the tasks an answer reveals to the caller's tenant; answers why it may not be
   * passed on when it carries another tenant's task. ListTasks answers are filtered instead
   * (see {@link filterList}).
   */
  answerProblem(value: Json, tenant: string): string | undefined {
    const taskId = answerTaskId(value)
    if (taskId === undefined) return undefined
    const owner = this.owner(taskId)
    if (owner === undefined) this.bind(taskId, tenant)
    else if (owner !== tenant) return `the upstream answered with task "${shown(taskId)}" of another tenant`
    return undefined
  }

  /** A ListTasks answer with only the caller's tenant's tasks (and the count of those). */
  filterList(value: Json, tenant: string): Json {
    if (!isObject(value) || !Array.isArray(value.tasks)) return value
    const tasks = value.tasks.filter(
      (task) => isObject(task) && typeof task.id === 'string' && this.owner(task.id) === tenant,
    )
    if (tasks.length === value.tasks.length) return value
    const filtered: JsonObject = { ...value, tasks }
    if (typeof value.totalSize === 'number') filtered.totalSize = tasks.length
    return filtered
  }
}

/** The reason code of a call refused for naming another tenant or its tasks. */
export const TENANT_REASON_CODE = 'tenant-refused'

/** The name the built-in tenancy hooks start with (`a2a-tenancy:a2a.get`, ...). */
export const TENANCY_HOOK = 'a2a-tenancy'

/**
 * The tenant rule as hooks that run first on every request event, so a refusal is an audited
 * deny (reasonCode `tenant-refused`) like any hook's, before another hook could ask or modify.
 */
export function tenancyHooks(tasks: TaskTenants): HookDefinition[] {
  const operations = Object.entries(OPERATION_EVENTS).filter(([operation]) => operation !== 'extendedCard')
  return operations.map(([operation, event]) => ({
    name: `${TENANCY_HOOK}:${event}`,
    event,
    priority: Number.MIN_SAFE_INTEGER,
    onError: 'deny',
    source: 'a2a gateway (tenants)',
    handler: {
      type: 'fn',
      fn: (call: HookCall) => {
        const a2a = call.event.payload.a2a
        const envelope = isObject(a2a) ? a2a.payload : undefined
        const params = isObject(envelope) && isObject(envelope.params) ? envelope.params : {}
        const tenant = contextTenant(call.event.context)
        const problem = tasks.requestProblem(operation as A2aOperation, params, tenant)
        return problem ? { type: 'deny', reason: problem, reasonCode: [TENANT_REASON_CODE] } : undefined
      },
    },
  }))
}

/** The task ids a request names: the task it acts on, and a message's task and references. */
export function referencedTasks(operation: A2aOperation, params: JsonObject): string[] {
  const ids: string[] = []
  const take = (value: unknown) => {
    if (typeof value === 'string' && value !== '') ids.push(value)
  }
  switch (operation) {
    case 'send':
    case 'stream': {
      const message = isObject(params.message) ? params.message : {}
      take(message.taskId)
      if (Array.isArray(message.referenceTaskIds)) message.referenceTaskIds.forEach(take)
      break
    }
    case 'get':
    case 'cancel':
    case 'resubscribe':
      take(params.id)
      break
    case 'pushConfig.set':
    case 'pushConfig.get':
    case 'pushConfig.list':
    case 'pushConfig.delete':
      // v1: taskId (id is the config's); v0.3: taskId on set, id on the others.
      if (typeof params.taskId === 'string' && params.taskId !== '') take(params.taskId)
      else take(params.id)
      break
    default:
      break
  }
  return ids
}

/** The task an answer or streamed event is about, if any. */
export function answerTaskId(value: Json): string | undefined {
  const { kind, inner } = responseKind(value)
  if (!inner) return undefined
  const id = kind === 'task' ? inner.id : inner.taskId
  return typeof id === 'string' && id !== '' ? id : undefined
}

function describeTenant(tenant: string): string {
  return tenant === NO_TENANT ? 'without a tenant' : `tenant "${tenant}"`
}

function shown(text: string): string {
  return (text.length > 64 ? `${text.slice(0, 64)}…` : text).replace(/[^\x20-\x7e]/g, '?')
}
