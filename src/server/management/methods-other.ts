// The methods beside `hooks.*`: decisions (list, get with its per-hook trace, replay),
// approvals (list, resolve), the record of changes made through the API, push
// subscriptions, and `server.info` (who am I, what may I do, what does this server offer).

import { z } from 'zod'
import { formatReplay, replayDecision } from '../../audit/index.js'
import { CANONICAL_EVENTS, type JsonObject } from '../../core/index.js'
import { alreadySettled } from '../../store/index.js'
import { approvalView } from './approvals.js'
import type { PlaneContext } from './context.js'
import { decisionListView } from './decision-views.js'
import { PUSH_TOPICS } from './hub.js'
import { ADMINS, APPROVERS, ApiError, EDITORS, type MethodDef, method, READERS } from './protocol.js'
import type { Principal } from './tokens.js'

const limit = z.number().int().min(1).max(1000).optional()
const kinds = z.enum(['allow', 'deny', 'modify', 'ask'])
const id = z.string({ error: 'must be an id string' }).min(1, 'must not be empty').max(200)

/** The tenant a query is limited to: the token's, or what a master token asked for. */
function scopeOf(principal: Principal, asked: string | undefined): string | undefined {
  if (principal.tenant === undefined) return asked
  if (asked !== undefined && asked !== principal.tenant) {
    throw new ApiError('forbidden', `this token belongs to tenant "${principal.tenant}"`, 'tenant')
  }
  return principal.tenant
}

/** The roles allowed to call each method, for `server.info`. */
function permissions(methods: Record<string, MethodDef>, principal: Principal): string[] {
  return Object.entries(methods)
    .filter(([, def]) => def.roles.includes(principal.role))
    .map(([name]) => name)
}

/** Decisions, approvals, changes, subscriptions and server info. */
export function otherMethods(
  plane: PlaneContext,
  all: () => Record<string, MethodDef>,
): Record<string, MethodDef> {
  return {
    'server.info': method({
      params: z.object({}).strict(),
      roles: [...READERS],
      run(_p, { principal }) {
        return {
          version: plane.settings.version,
          token: {
            id: principal.tokenId,
            name: principal.name,
            role: principal.role,
            tenant: principal.tenant ?? null,
          },
          methods: permissions(all(), principal),
          events: CANONICAL_EVENTS,
          handlerTypes: plane.handlerTypes,
          allowCommandHooks: plane.settings.allowCommandHooks,
          approvalTimeoutMs: plane.settings.approvalTimeoutMs,
          pushes: PUSH_TOPICS,
        }
      },
    }),
    'decisions.list': method({
      params: z
        .object({
          tenant: z.string().optional(),
          event: z.string().optional(),
          decision: kinds.optional(),
          agent: z.string().min(1, 'must not be empty').max(200).optional(),
          session: z.string().min(1, 'must not be empty').max(200).optional(),
          tool: z.string().min(1, 'must not be empty').max(200).optional(),
          hook: z.string().min(1, 'must not be empty').max(300).optional(),
          text: z.string().max(200, 'must be at most 200 characters').optional(),
          since: z.number().int().min(0).optional(),
          until: z.number().int().min(0).optional(),
          limit,
          offset: z.number().int().min(0).max(1_000_000).optional(),
        })
        .strict(),
      roles: READERS,
      async run(p, { principal }) {
        const tenant = scopeOf(principal, p.tenant)
        const size = p.limit ?? 50
        const rows = await plane.store.listDecisions({
          ...(tenant !== undefined ? { tenant } : {}),
          ...(p.event ? { event: p.event } : {}),
          ...(p.decision ? { decision: p.decision } : {}),
          ...(p.agent ? { agentId: p.agent } : {}),
          ...(p.session ? { sessionId: p.session } : {}),
          ...(p.tool ? { tool: p.tool } : {}),
          ...(p.hook ? { hook: p.hook } : {}),
          ...(p.text?.trim() ? { text: p.text.trim() } : {}),
          ...(p.since !== undefined ? { since: p.since } : {}),
          ...(p.until !== undefined ? { until: p.until } : {}),
          limit: size,
          offset: p.offset ?? 0,
        })
        return {
          decisions: rows.map(decisionListView),
          ...(rows.length === size ? { next: (p.offset ?? 0) + size } : {}),
        }
      },
    }),
    'decisions.get': method({
      params: z.object({ id }).strict(),
      roles: READERS,
      async run(p, { principal }) {
        const row = await plane.store.getDecision(p.id, principal.tenant)
        if (!row) throw new ApiError('not-found', `no decision "${p.id}"`, 'id')
        const { executions, ...decision } = row
        return {
          ...decision,
          trace: executions.map((e) => ({
            hook: e.hookRef,
            name: e.hookName,
            version: e.hookVersion,
            handler: e.handler,
            outcome: e.decision,
            durationMs: e.durationMs,
            position: e.position,
            ...(e.reason ? { reason: e.reason } : {}),
            ...(e.error ? { error: { kind: e.errorKind, message: e.error } } : {}),
            ...(e.skipped ? { skipped: e.skipped } : {}),
            ...(e.policyId ? { policy: { id: e.policyId, version: e.policyVersion } } : {}),
            ...(e.metadata ? { metadata: e.metadata } : {}),
            ...(e.mode === 'shadow' ? { shadow: true } : {}),
          })),
        }
      },
    }),
    'decisions.replay': method({
      params: z.object({ id }).strict(),
      roles: EDITORS,
      async run(p, { principal }) {
        const engine = plane.replayEngine()
        try {
          const result = await replayDecision(plane.store, engine, p.id, principal.tenant)
          if (!result) throw new ApiError('not-found', `no decision "${p.id}"`, 'id')
          return { ...result, text: formatReplay(result) }
        } finally {
          await engine.close()
        }
      },
    }),
    'approvals.list': method({
      params: z
        .object({
          status: z.enum(['pending', 'approved', 'rejected', 'expired', 'abandoned']).optional(),
          tenant: z.string().optional(),
          id: id.optional(),
          limit,
          cursor: id.optional(),
        })
        .strict(),
      roles: READERS,
      async run(p, { principal }) {
        const tenant = scopeOf(principal, p.tenant)
        const size = p.limit ?? 100
        const rows = await plane.store.listApprovals({
          ...(tenant !== undefined ? { tenant } : {}),
          ...(p.status ? { status: p.status } : {}),
          ...(p.id ? { id: p.id } : {}),
          limit: size,
          ...(p.cursor ? { cursor: p.cursor } : {}),
        })
        const last = rows[rows.length - 1]
        return {
          approvals: rows.map(approvalView),
          ...(rows.length === size && last ? { next: last.id } : {}),
        }
      },
    }),
    'approvals.resolve': method({
      params: z
        .object({
          id,
          action: z.enum(['approve', 'reject', 'edit'], { error: 'must be "approve", "reject" or "edit"' }),
          payload: z.record(z.string(), z.unknown(), { error: 'must be an object' }).optional(),
          input: z.record(z.string(), z.unknown(), { error: 'must be an object' }).optional(),
          comment: z.string().max(2000).optional(),
        })
        .strict(),
      roles: APPROVERS,
      async run(p, { principal }) {
        const existing = await plane.store.getApproval(p.id, principal.tenant)
        if (!existing) throw new ApiError('not-found', `no approval "${p.id}"`, 'id')
        let payload: JsonObject | undefined
        if (p.action === 'edit')
          payload = editedPayload(
            existing.input,
            p.payload as JsonObject | undefined,
            p.input as JsonObject | undefined,
          )
        else if (p.payload || p.input) {
          throw new ApiError(
            'invalid-params',
            'payload and input are only for action "edit"',
            p.payload ? 'payload' : 'input',
          )
        }
        const result = await plane.broker.resolve(
          p.id,
          {
            action: p.action,
            by: principal.name,
            ...(p.comment ? { comment: p.comment } : {}),
            ...(payload ? { payload } : {}),
          },
          principal.tenant,
        )
        if (!result) throw new ApiError('not-found', `no approval "${p.id}"`, 'id')
        if (!result.resolved) {
          throw new ApiError('conflict', alreadySettled(result.row), 'id')
        }
        return approvalView(result.row)
      },
    }),
    'audit.changes': method({
      params: z
        .object({
          target: z.string().optional(),
          tenant: z.string().optional(),
          limit,
          cursor: id.optional(),
        })
        .strict(),
      roles: ADMINS.concat(['editor', 'viewer']),
      async run(p, { principal }) {
        const tenant = scopeOf(principal, p.tenant)
        const size = p.limit ?? 100
        const rows = await plane.store.listChanges({
          ...(tenant !== undefined ? { tenant } : {}),
          ...(p.target ? { target: p.target } : {}),
          limit: size,
          ...(p.cursor ? { cursor: p.cursor } : {}),
        })
        const last = rows[rows.length - 1]
        return { changes: rows, ...(rows.length === size && last ? { next: last.id } : {}) }
      },
    }),
    subscribe: method({
      params: z
        .object({
          events: z
            .array(z.enum(PUSH_TOPICS), { error: `must be a list of ${PUSH_TOPICS.join(', ')}` })
            .min(1, `must name at least one of ${PUSH_TOPICS.join(', ')}`),
          filter: z
            .object({ event: z.array(z.string()).optional(), decision: z.array(kinds).optional() })
            .strict()
            .optional(),
        })
        .strict(),
      roles: READERS,
      run(p, { connection }) {
        const filter = {
          ...(p.filter?.event ? { events: p.filter.event } : {}),
          ...(p.filter?.decision ? { decisions: p.filter.decision } : {}),
        }
        return { subscribed: connection.subscribe(p.events, filter) }
      },
    }),
    unsubscribe: method({
      params: z.object({ events: z.array(z.enum(PUSH_TOPICS)).optional() }).strict(),
      roles: READERS,
      run(p, { connection }) {
        return { subscribed: connection.unsubscribe(p.events) }
      },
    }),
  }
}

/** The payload of an `edit`: a whole new payload, or a new tool input merged into the held one. */
function editedPayload(
  input: unknown,
  payload: JsonObject | undefined,
  toolInput: JsonObject | undefined,
): JsonObject {
  if (payload && toolInput)
    throw new ApiError('invalid-params', 'give either payload or input, not both', 'input')
  if (payload) return payload
  if (!toolInput)
    throw new ApiError(
      'invalid-params',
      'action "edit" needs payload (the new payload) or input (the new tool input)',
      'input',
    )
  const held = (input as { payload?: JsonObject } | undefined)?.payload
  const tool = held?.tool
  if (!held || typeof tool !== 'object' || tool === null || Array.isArray(tool)) {
    throw new ApiError('invalid-params', 'the held event has no tool input; send payload instead', 'input')
  }
  return { ...held, tool: { ...tool, input: toolInput } }
}
