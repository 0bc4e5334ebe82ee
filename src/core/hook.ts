// The hook model: a hook definition as users write it, its validation at the boundary
// (every message names the field and the fix), and the contract handlers implement.

import { z } from 'zod'
import { type EventName, lookupEventName, suggestEventNames } from './catalog.js'
import type { HookMeta, PolicyRef, Verdict } from './decision.js'
import { WardenError } from './errors.js'
import type { CheckedEvent } from './events.js'
import { loomDialectBlocking } from './home-rules.js'

/** The policy applied when a hook times out or fails. */
export type FailurePolicy = 'deny' | 'allow'

/**
 * How a hook's verdict counts: `enforce` (default) applies it; `shadow` runs the hook in the
 * same chain and records what it would have decided (trace, audit row, metrics) without ever
 * applying it — nor its timeout or error.
 */
export type HookMode = 'enforce' | 'shadow'

/** The hook modes, for validation and forms. */
export const HOOK_MODES: readonly HookMode[] = ['enforce', 'shadow']

/** Where a hook applies: omitted = everywhere. */
export interface HookScope {
  tenant?: string
  agents?: string[]
}

/** A handler's configuration: its `type` plus whatever that handler takes. */
export interface HandlerConfig {
  type: string
  [key: string]: unknown
}

/** A hook as users write it (warden.yaml, hook files, the management API, embedders). */
export interface HookDefinition {
  name: string
  /** What the hook is for, in a sentence (shown in listings). */
  description?: string
  event: string
  matcher?: string
  if?: string
  priority?: number
  timeoutMs?: number
  onTimeout?: FailurePolicy
  onError?: FailurePolicy
  scope?: HookScope
  enabled?: boolean
  /** Bumped on every change; recorded with each execution. */
  version?: number
  policy?: PolicyRef
  /** Where the definition came from (for audit and listings). */
  source?: string
  /**
   * Runs allowed per turn (`context.turnId`, else the session); further runs in that turn
   * get the hook's `onError` decision (deny by default), naming the hook and the cap.
   */
  maxInvocationsPerTurn?: number
  /** Count this hook's own denials toward its circuit breaker, as GoClaw does. Default false. */
  breakerCountsBlocks?: boolean
  /**
   * Whether this hook's deny and ask count on its event, overriding the event's rule:
   * `false` only observes (recorded; the action goes ahead), `true` blocks even on an event
   * that does not (the caller waits for it). Loaders of other systems' formats set it where
   * the home system's rule differs. Omitted: the event's rule.
   */
  blocks?: boolean
  /**
   * For a hook that only observes on its event (`blocks: false`, or loom's rule on
   * `tool.post` and `model.pre`): its deny, recorded and reported, also ends the chain, so
   * the hooks after it do not run, as loom's runner does. Default false: every observer
   * sees the event.
   */
  observedBlockEndsChain?: boolean
  /**
   * Run apart from the caller's chain on a blocking event: the caller does not wait for this
   * hook, which observes only (as `blocks: false`); its run is recorded as its own decision.
   * GoClaw's `post_tool_use` and `stop` hooks run so. Default false.
   */
  background?: boolean
  /** The system whose format the hook was written in: traces name its spans its way. */
  home?: 'goclaw' | 'loom' | 'harness'
  /**
   * A hook file's front matter as written (without its script): what AI Harness's
   * `hooks.list()` shows, so a meta-policy sees which keys a file declares.
   */
  frontMatter?: Record<string, unknown>
  /** `shadow`: record the hook's would-be verdict, never apply it. Default `enforce`. */
  mode?: HookMode
  handler: HandlerConfig
}

/** A hook after validation: names resolved, defaults applied. */
export interface HookSpec {
  /** Unique key: `name` for global hooks, `tenant/name` for tenant-scoped ones. */
  id: string
  name: string
  description?: string
  event: EventName
  matcher?: string
  if?: string
  priority: number
  timeoutMs: number
  onTimeout: FailurePolicy
  onError: FailurePolicy
  scope: HookScope
  enabled: boolean
  version: number
  policy?: PolicyRef
  source?: string
  maxInvocationsPerTurn?: number
  breakerCountsBlocks?: boolean
  blocks?: boolean
  observedBlockEndsChain?: boolean
  background?: boolean
  home?: 'goclaw' | 'loom' | 'harness'
  frontMatter?: Record<string, unknown>
  /** Present (`shadow`) only for a hook in shadow mode. */
  mode?: 'shadow'
  handler: HandlerConfig
}

/** What a handler gets for one execution. */
export interface HookCall {
  /** The event, with the payload as modified by earlier hooks. */
  event: CheckedEvent
  hook: HookSpec
  /** Aborted when the hook times out or the engine closes: stop work and clean up. */
  signal: AbortSignal
  /**
   * Calls `listener` once when the hook times out or the engine closes (at once, in a
   * microtask, when that already happened); returns a function that removes it. Listeners
   * are dropped when the hook finishes. Cheaper than `signal` for handlers that only need
   * to be told, since no AbortSignal is made. Call it as a method (`call.onAbort(fn)`).
   * The engine always provides it; calls built by hand may not.
   */
  onAbort?(listener: (reason: Error) => void): () => void
  /** Adds a line to this hook's trace. */
  log(line: string): void
  /**
   * Reports handler-specific detail (an exit code, an HTTP status, what a judge said);
   * several calls merge their keys. Only provided during a dry run: call it as
   * `call.detail?.({...})`, and compute nothing for it when it is absent.
   */
  detail?(info: Record<string, unknown>): void
  /**
   * Reports small facts about this run for the audit trail (exit code, stdout size, HTTP
   * status, judge model and tokens); several calls merge. Cheap: call it on every run.
   * The engine always provides it; calls built by hand may not.
   */
  meta?(info: HookMeta): void
}

/** A prepared handler: runs one hook for one event. May throw; the engine catches it. */
export type HookExecutor = (call: HookCall) => Promise<Verdict | unknown> | Verdict | unknown

/** A handler type: validates its config once and prepares an executor. */
export interface HandlerFactory {
  type: string
  /**
   * Validates the handler config and returns the executor.
   * @throws WardenError `invalid-hook` with a message naming the field.
   */
  prepare(config: HandlerConfig, hook: HookSpec): HookExecutor
  /** Checks a hook as a whole (e.g. the LLM judge requires a matcher or `if`). */
  validateHook?(hook: HookSpec): string | undefined
  /** Releases what the handler holds (pools, timers). */
  close?(): Promise<void> | void
}

/** Defaults applied to hook definitions. */
export const HOOK_DEFAULTS = { priority: 0, timeoutMs: 5000, maxTimeoutMs: 600_000 } as const

const nameRule = z
  .string({ error: 'is required: a short unique name such as "no-prod-writes"' })
  .min(1, 'must not be empty')
  .max(128, 'must be at most 128 characters')
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:@/-]*$/,
    'may hold letters, digits and . _ : @ / - (start with a letter or digit)',
  )

const failure = z.enum(['deny', 'allow'], { error: 'must be "deny" or "allow"' })

const definitionSchema = z
  .object({
    name: nameRule,
    event: z.string({ error: 'is required: an event name such as "tool.pre" or "PreToolUse"' }),
    matcher: z
      .string({ error: 'must be a regular expression string' })
      .max(1024, 'must be at most 1024 characters')
      .optional(),
    if: z
      .string({ error: 'must be a CEL expression string' })
      .max(4096, 'must be at most 4096 characters')
      .optional(),
    priority: z.number({ error: 'must be a number (lower runs first)' }).int('must be an integer').optional(),
    timeoutMs: z
      .number({ error: 'must be a number of milliseconds' })
      .int('must be an integer number of milliseconds')
      .positive('must be greater than 0')
      .max(HOOK_DEFAULTS.maxTimeoutMs, `must be at most ${HOOK_DEFAULTS.maxTimeoutMs} ms`)
      .optional(),
    onTimeout: failure.optional(),
    onError: failure.optional(),
    scope: z
      .object(
        {
          tenant: z
            .string({ error: 'must be a tenant id string' })
            .min(1, 'must not be empty; omit it for a global hook')
            .optional(),
          agents: z
            .array(
              z.string({ error: 'must be an agent id string' }).min(1, 'must not be an empty agent id'),
              { error: 'must be a list of agent ids' },
            )
            .optional(),
        },
        { error: 'must be an object like { tenant: acme, agents: [triage] }' },
      )
      .strict()
      .optional(),
    enabled: z.boolean({ error: 'must be true or false' }).optional(),
    version: z
      .number({ error: 'must be a positive integer' })
      .int('must be a positive integer')
      .positive('must be a positive integer')
      .optional(),
    policy: z
      .object(
        {
          id: z.string({ error: 'is required: the policy id, e.g. "no-prod"' }).min(1, 'must not be empty'),
          version: z
            .union([z.string(), z.number()], { error: 'must be a string or a number' })
            .transform(String)
            .optional(),
        },
        { error: 'must be an object like { id: no-prod, version: "2" }' },
      )
      .strict()
      .optional(),
    source: z.string({ error: 'must be a string' }).optional(),
    description: z
      .string({ error: 'must be text: what the hook is for' })
      .max(1000, 'must be at most 1000 characters')
      .optional(),
    maxInvocationsPerTurn: z
      .number({ error: 'must be a whole number of runs per turn' })
      .int('must be a whole number of runs per turn')
      .positive('must be at least 1')
      .max(10_000, 'must be at most 10000')
      .optional(),
    breakerCountsBlocks: z.boolean({ error: 'must be true or false' }).optional(),
    blocks: z.boolean({ error: 'must be true or false' }).optional(),
    observedBlockEndsChain: z.boolean({ error: 'must be true or false' }).optional(),
    background: z.boolean({ error: 'must be true or false' }).optional(),
    home: z.enum(['goclaw', 'loom', 'harness'], { error: 'must be goclaw, loom or harness' }).optional(),
    frontMatter: z.record(z.string(), z.unknown(), { error: 'must be an object' }).optional(),
    mode: z
      .enum(['enforce', 'shadow'], {
        error: 'must be "enforce" (apply its verdict) or "shadow" (record what it would decide)',
      })
      .optional(),
    handler: z
      .object(
        { type: z.string({ error: 'is required: one of the handler types, e.g. "command"' }) },
        { error: 'is required: an object such as { type: command, command: ./check.sh }' },
      )
      .passthrough(),
  })
  .strict()

/** Formats the first problems of a zod error as "field: message" lines. */
export function formatZodError(error: z.ZodError, subject: string): string {
  const lines = error.issues.slice(0, 5).map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : '(root)'
    if (issue.code === 'unrecognized_keys') {
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}${issue.path.length ? ` in ${field}` : ''}: remove ${issue.keys.length > 1 ? 'them' : 'it'} or check the spelling`
    }
    return `${field} ${issue.message}`
  })
  return `${subject}: ${lines.join('; ')}`
}

/**
 * Validates a hook definition and applies defaults (handler config is checked later by
 * its handler).
 * @throws WardenError `invalid-hook` naming the field and the fix.
 */
export function parseHookDefinition(input: unknown): HookSpec {
  const label =
    typeof input === 'object' && input !== null && typeof (input as { name?: unknown }).name === 'string'
      ? `hook "${(input as { name: string }).name}"`
      : 'hook'
  const parsed = definitionSchema.safeParse(input)
  if (!parsed.success) throw new WardenError('invalid-hook', formatZodError(parsed.error, label))
  const def = parsed.data
  const event = lookupEventName(def.event)
  if (!event) {
    const close = suggestEventNames(def.event)
    throw new WardenError(
      'invalid-hook',
      `${label}: event "${def.event}" is not known${close.length ? `; did you mean ${close.map((c) => `"${c}"`).join(' or ')}?` : ''} (use a canonical name such as "tool.pre", an alias such as "PreToolUse", or "custom.<name>")`,
    )
  }
  const scope: HookScope = {}
  if (def.scope?.tenant) scope.tenant = def.scope.tenant
  if (def.scope?.agents && def.scope.agents.length > 0) scope.agents = def.scope.agents
  const spec: HookSpec = {
    id: scope.tenant ? `${scope.tenant}/${def.name}` : def.name,
    name: def.name,
    event,
    priority: def.priority ?? HOOK_DEFAULTS.priority,
    timeoutMs: def.timeoutMs ?? HOOK_DEFAULTS.timeoutMs,
    onTimeout: def.onTimeout ?? 'deny',
    onError: def.onError ?? 'deny',
    scope,
    enabled: def.enabled ?? true,
    version: def.version ?? 1,
    handler: def.handler as HandlerConfig,
  }
  if (def.matcher !== undefined && def.matcher !== '' && def.matcher !== '*') spec.matcher = def.matcher
  if (def.if !== undefined && def.if.trim() !== '') spec.if = def.if
  if (def.policy)
    spec.policy =
      def.policy.version === undefined
        ? { id: def.policy.id }
        : { id: def.policy.id, version: def.policy.version }
  if (def.source) spec.source = def.source
  if (def.description?.trim()) spec.description = def.description.trim()
  if (def.maxInvocationsPerTurn !== undefined) spec.maxInvocationsPerTurn = def.maxInvocationsPerTurn
  if (def.breakerCountsBlocks) spec.breakerCountsBlocks = true
  const blocks = def.blocks ?? loomDialectRule(spec)
  if (blocks !== undefined) spec.blocks = blocks
  if (def.observedBlockEndsChain) spec.observedBlockEndsChain = true
  if (def.home) spec.home = def.home
  if (def.frontMatter) spec.frontMatter = def.frontMatter
  if (def.background) {
    spec.background = true
    spec.blocks = false
  }
  if (def.mode === 'shadow') spec.mode = 'shadow'
  return spec
}

/** A hook whose handler speaks loom (`dialect: 'loom'`, fn or command) keeps loom's blocking rule on its event. */
function loomDialectRule(spec: HookSpec): boolean | undefined {
  const handler = spec.handler as { type: string; dialect?: unknown }
  return handler.dialect === 'loom' ? loomDialectBlocking(spec.event) : undefined
}
