// GoClaw hook definitions as a hook source, in GoClaw's own format: `event` by GoClaw's
// names, `handler_type` command | http | prompt with its `config`, `matcher` (regex on the
// tool name), `if_expr` (CEL over tool_name, tool_input, depth), `timeout_ms` (at most
// 10 000), `on_timeout` block | allow, `priority` (GoClaw runs higher first: it is negated
// into Warden's lower-first order), `enabled`, `scope` global | tenant | agent with
// `tenant_id` and `agent_ids`, `max_invocations_per_turn` (on the hook or in its config).
// Every GoClaw hook counts its blocks toward its circuit breaker, as GoClaw's does;
// `post_tool_use` and `stop` hooks run in the background (GoClaw runs them async). A file
// holds a list of definitions or `{"hooks": [...], "budgets": [...]}`, as JSON or YAML;
// `budgets` rows `{tenant_id, budget_total}` are tenants' monthly LLM judge token budgets.
// Fields Warden does not know are warnings naming the hook.

import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { parse as parseYaml } from 'yaml'
import { type HookDefinition, homeBlocking, lookupEventName } from '../core/index.js'
import { emptyReport, isRecord, type JsonRecord, type SourceReport } from './hook-files-report.js'

/** GoClaw's default and largest hook timeouts, in ms. */
export const GOCLAW_DEFAULT_TIMEOUT_MS = 5000
export const GOCLAW_MAX_TIMEOUT_MS = 10_000

const KNOWN_FIELDS = new Set([
  'id',
  'name',
  'event',
  'handler_type',
  'config',
  'matcher',
  'if_expr',
  'timeout_ms',
  'on_timeout',
  'priority',
  'enabled',
  'scope',
  'tenant_id',
  'agent_ids',
  'version',
  'max_invocations_per_turn',
  'description',
  'created_at',
  'updated_at',
  'created_by',
])

/** Reads a GoClaw hook file (JSON or YAML). Never throws: problems are in the report. */
export async function loadGoclawHooks(path: string): Promise<SourceReport> {
  const file = resolve(path)
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    const report = emptyReport()
    report.problems.push({
      file,
      message: `cannot read the GoClaw hook file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    })
    return report
  }
  return parseGoclawHooks(text, file)
}

/** Parses GoClaw hook definitions (`file` names them in messages). */
export function parseGoclawHooks(text: string, file: string): SourceReport {
  const report = emptyReport()
  let data: unknown
  try {
    data = parseYaml(text)
  } catch (error) {
    report.problems.push({ file, message: `not valid JSON or YAML: ${(error as Error).message}` })
    return report
  }
  const list = Array.isArray(data)
    ? data
    : isRecord(data) && Array.isArray(data.hooks)
      ? data.hooks
      : undefined
  if (!list) {
    report.problems.push({ file, message: 'a GoClaw hook file must be a list of hooks or {"hooks": [...]}' })
    return report
  }
  if (isRecord(data) && data.budgets !== undefined) {
    const budgets = goclawBudgets(data.budgets, (message) => report.problems.push({ file, message }))
    if (budgets) report.tokenBudgets = budgets
  }
  list.forEach((entry, i) => {
    const definition = goclawDefinition(entry, `hooks[${i}]`, {
      problem: (message) => report.problems.push({ file, message }),
      warn: (message) => report.warnings.push({ file, message }),
    })
    if (definition) report.hooks.push({ ...definition, source: `goclaw:${file}` })
  })
  return report
}

/**
 * Tenants' monthly LLM judge token budgets from GoClaw's `budgets` rows
 * (`[{tenant_id, budget_total}]`; 0 = no budget for that tenant).
 * @returns the budgets by tenant, or undefined after reporting what is wrong.
 */
export function goclawBudgets(
  rows: unknown,
  problem: (message: string) => void,
): Record<string, number> | undefined {
  if (!Array.isArray(rows)) {
    problem('budgets must be a list of {"tenant_id": ..., "budget_total": tokens}')
    return undefined
  }
  const budgets: Record<string, number> = {}
  for (const [i, row] of rows.entries()) {
    const tenant = isRecord(row) ? row.tenant_id : undefined
    const total = isRecord(row) ? row.budget_total : undefined
    if (typeof tenant !== 'string' || tenant === '') {
      problem(`budgets[${i}] needs a tenant_id`)
      return undefined
    }
    if (typeof total !== 'number' || !Number.isInteger(total) || total < 0) {
      problem(`budgets[${i}] (tenant "${tenant}"): budget_total must be a whole number of tokens, 0 or more`)
      return undefined
    }
    budgets[tenant] = total
  }
  return budgets
}

/** Where a conversion reports. */
export interface GoclawSink {
  problem(message: string): void
  warn(message: string): void
}

/**
 * Converts one GoClaw hook definition into a Warden hook definition.
 * @returns the definition, or undefined after reporting why it cannot load.
 */
export function goclawDefinition(entry: unknown, at: string, sink: GoclawSink): HookDefinition | undefined {
  if (!isRecord(entry)) {
    sink.problem(`${at} must be an object with event, handler_type and config`)
    return undefined
  }
  const name = typeof entry.name === 'string' && entry.name !== '' ? entry.name : entry.id
  if (typeof name !== 'string' || name === '') {
    sink.problem(`${at} needs a name (or id)`)
    return undefined
  }
  const where = `${at} (hook "${name}")`
  const fail = (message: string) => {
    sink.problem(`${where}: ${message}`)
    return undefined
  }
  for (const key of Object.keys(entry)) {
    if (!KNOWN_FIELDS.has(key)) sink.warn(`${where}: field "${key}" is not one Warden knows; it was ignored`)
  }
  if (typeof entry.event !== 'string' || !lookupEventName(entry.event))
    return fail(
      `event ${JSON.stringify(entry.event)} is not a GoClaw event (pre_tool_use, session_start, ...)`,
    )
  const config = entry.config === undefined ? {} : entry.config
  if (!isRecord(config)) return fail('config must be an object')
  const handler = handlerOf(entry.handler_type, config, fail)
  if (!handler) return undefined
  const definition: HookDefinition = {
    name,
    event: entry.event,
    handler,
    breakerCountsBlocks: true,
    home: 'goclaw',
  }
  const blocks = homeBlocking('goclaw', entry.event)
  if (blocks !== undefined) definition.blocks = blocks
  // GoClaw runs its observe-only hooks asynchronously: the caller is not held for them.
  if (blocks === false) definition.background = true
  if (entry.matcher !== undefined && entry.matcher !== null && entry.matcher !== '') {
    if (typeof entry.matcher !== 'string') return fail('matcher must be a regex string')
    definition.matcher = entry.matcher
  }
  if (entry.if_expr !== undefined && entry.if_expr !== null && entry.if_expr !== '') {
    if (typeof entry.if_expr !== 'string') return fail('if_expr must be a CEL expression string')
    definition.if = entry.if_expr
  }
  const timeout = entry.timeout_ms ?? GOCLAW_DEFAULT_TIMEOUT_MS
  if (
    typeof timeout !== 'number' ||
    !Number.isInteger(timeout) ||
    timeout <= 0 ||
    timeout > GOCLAW_MAX_TIMEOUT_MS
  )
    return fail(`timeout_ms must be a whole number of ms from 1 to ${GOCLAW_MAX_TIMEOUT_MS}`)
  definition.timeoutMs = timeout
  if (entry.on_timeout !== undefined) {
    if (entry.on_timeout !== 'block' && entry.on_timeout !== 'allow')
      return fail('on_timeout must be "block" or "allow"')
    definition.onTimeout = entry.on_timeout === 'block' ? 'deny' : 'allow'
  }
  if (entry.priority !== undefined) {
    if (typeof entry.priority !== 'number' || !Number.isInteger(entry.priority))
      return fail('priority must be a whole number (GoClaw runs higher first)')
    // GoClaw runs higher priorities first; Warden runs lower first.
    definition.priority = entry.priority === 0 ? 0 : -entry.priority
  }
  if (entry.enabled !== undefined) {
    if (typeof entry.enabled !== 'boolean') return fail('enabled must be true or false')
    definition.enabled = entry.enabled
  }
  if (entry.version !== undefined) {
    if (typeof entry.version !== 'number' || !Number.isInteger(entry.version) || entry.version < 1)
      return fail('version must be a whole number from 1')
    definition.version = entry.version
  }
  const cap = entry.max_invocations_per_turn ?? config.max_invocations_per_turn
  if (cap !== undefined && cap !== null && cap !== 0) {
    if (typeof cap !== 'number' || !Number.isInteger(cap) || cap < 1 || cap > 10_000)
      return fail('max_invocations_per_turn must be a whole number from 1 to 10000')
    definition.maxInvocationsPerTurn = cap
  }
  const scope = scopeOf(entry, fail)
  if (scope === null) return undefined
  if (scope) definition.scope = scope
  return definition
}

function handlerOf(
  type: unknown,
  config: JsonRecord,
  fail: (message: string) => undefined,
): HookDefinition['handler'] | undefined {
  switch (type) {
    case 'command': {
      if (typeof config.command !== 'string' || config.command.trim() === '')
        return fail('config.command must be the command line to run')
      const handler: HookDefinition['handler'] = { type: 'command', command: config.command, shell: true }
      const env = config.allowed_env_vars
      if (env !== undefined) {
        if (!Array.isArray(env) || !env.every((v) => typeof v === 'string'))
          return fail('config.allowed_env_vars must be a list of variable names')
        handler.env = env
      }
      if (typeof config.cwd === 'string') handler.cwd = config.cwd
      return handler
    }
    case 'http': {
      if (typeof config.url !== 'string') return fail('config.url must be the URL to POST to')
      const handler: HookDefinition['handler'] = { type: 'http', url: config.url }
      // GoClaw stores its headers encrypted: sealed when the hook is prepared, never listed in clear.
      if (config.headers !== undefined) handler.secretHeaders = config.headers
      return handler
    }
    case 'prompt': {
      const prompt = config.prompt ?? config.prompt_template ?? config.system_prompt
      if (typeof prompt !== 'string' || prompt === '')
        return fail('config.prompt must be the policy the judge applies')
      const handler: HookDefinition['handler'] = { type: 'prompt', prompt }
      if (typeof config.model === 'string') handler.model = config.model
      if (typeof config.max_tokens === 'number') handler.maxTokens = config.max_tokens
      return handler
    }
    default:
      return fail(`handler_type ${JSON.stringify(type)} must be command, http or prompt`)
  }
}

/** GoClaw's scope as Warden's; null after a failure, undefined for global. */
function scopeOf(entry: JsonRecord, fail: (message: string) => undefined): HookDefinition['scope'] | null {
  const scope = entry.scope ?? 'global'
  const tenant = entry.tenant_id
  const agents = entry.agent_ids
  if (tenant !== undefined && tenant !== null && typeof tenant !== 'string')
    return fail('tenant_id must be a string') ?? null
  if (
    agents !== undefined &&
    agents !== null &&
    (!Array.isArray(agents) || !agents.every((a) => typeof a === 'string'))
  )
    return fail('agent_ids must be a list of agent ids') ?? null
  switch (scope) {
    case 'global':
      return undefined
    case 'tenant':
      if (typeof tenant !== 'string' || tenant === '') return fail('scope "tenant" needs tenant_id') ?? null
      return { tenant }
    case 'agent': {
      if (!Array.isArray(agents) || agents.length === 0) return fail('scope "agent" needs agent_ids') ?? null
      return typeof tenant === 'string' && tenant !== ''
        ? { tenant, agents: agents as string[] }
        : { agents: agents as string[] }
    }
    default:
      return fail('scope must be global, tenant or agent') ?? null
  }
}
