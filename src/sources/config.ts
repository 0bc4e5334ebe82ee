// warden.yaml: the hooks and settings of one deployment. Loaded and validated at the
// boundary; relative command paths resolve against the file's folder.

import { readFile } from 'node:fs/promises'
import { dirname, isAbsolute, resolve } from 'node:path'
import { RE2JS } from 're2js'
import { LineCounter, parseDocument } from 'yaml'
import { z } from 'zod'
import { formatZodError, type HookDefinition, type Limits, WardenError } from '../core/index.js'
import { judgeSettingsSchema } from '../handlers/index.js'
import { networkSettingsSchema } from '../net/index.js'
import { expandPacks, packEntrySchema } from './packs.js'

const limitsSchema = z
  .object({
    chainBudgetMs: z.number().int().positive().optional(),
    maxDepth: z.number().int().min(0).optional(),
    maxPayloadBytes: z.number().int().positive().optional(),
    approvalTimeoutMs: z.number().int().positive().optional(),
    breaker: z
      .object({
        failures: z.number().int().positive().optional(),
        windowMs: z.number().int().positive().optional(),
        disableOnTrip: z.boolean({ error: 'must be true or false' }).optional(),
      })
      .strict()
      .optional(),
  })
  .strict()

/** One remote Guardian under `guardians:`, consulted for every event AOS has a method for. */
const guardianSchema = z
  .object({
    name: z.string().min(1).max(128).optional(),
    url: z
      .string({ error: 'is required: the remote Guardian, e.g. http://127.0.0.1:7071/aos' })
      .regex(/^https?:\/\/\S+$/i, 'must be an http(s) URL'),
    headers: z.record(z.string(), z.string(), { error: 'must map header names to strings' }).optional(),
    timeoutMs: z.number().int().positive().max(600_000).optional(),
    onError: z.enum(['deny', 'allow'], { error: 'must be "deny" or "allow"' }).optional(),
  })
  .strict()

/** One of `server.allowedHosts`: a host name or IP address, as a Host header names it (no port). */
export const allowedHostSchema = z
  .string()
  .regex(
    /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])$/,
    'must be a host name or IP address without scheme, port or path (e.g. warden.example.com, 10.0.0.5, [fd00::1])',
  )

/** `server:`: settings of `warden serve` (command-line flags win). */
const serverSchema = z
  .object({
    port: z.number().int().min(0).max(65_535).optional(),
    host: z.string().min(1).optional(),
    bodyLimitBytes: z.number().int().positive().optional(),
    maxBatch: z.number().int().positive().max(10_000).optional(),
    maxDepth: z.number().int().positive().max(1_000).optional(),
    shutdownTimeoutMs: z.number().int().positive().optional(),
    auth: z.enum(['token', 'none'], { error: 'must be "token" or "none"' }).optional(),
    maxInFlight: z.number().int().positive().max(1_000_000).optional(),
    maxInFlightBytes: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024 * 1024)
      .optional(),
    idleTimeoutMs: z.number().int().min(1000).max(86_400_000).optional(),
    allowedHosts: z.array(allowedHostSchema, { error: 'must be a list of host names' }).max(100).optional(),
  })
  .strict()

/** `management:`: the `/ws` API of `warden serve`. */
const managementSchema = z
  .object({
    enabled: z.boolean({ error: 'must be true or false' }).optional(),
    allowCommandHooks: z.boolean({ error: 'must be true or false' }).optional(),
    maxFrameBytes: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .optional(),
    requestsPerSecond: z.number().int().positive().max(100_000).optional(),
    dataDir: z
      .string({ error: 'must be a folder path: where hooks made through the API may write files' })
      .min(1, 'must not be empty')
      .optional(),
  })
  .strict()

/** `approvals:`: who is told about a held ask. */
const approvalsSchema = z
  .object({
    notify: z
      .object({
        url: z
          .string({ error: 'is required: the webhook to post new approvals to' })
          .regex(/^https?:\/\/\S+$/i, 'must be an http(s) URL'),
        headers: z.record(z.string(), z.string(), { error: 'must map header names to strings' }).optional(),
        timeoutMs: z.number().int().positive().max(60_000).optional(),
      })
      .strict()
      .optional(),
  })
  .strict()

/** `a2a:`: limits of `warden a2a` (body, event and buffer sizes, stream duration, upstream wait). */
const a2aSchema = z
  .object({
    maxBodyBytes: z.number().int().positive().optional(),
    maxEventBytes: z.number().int().positive().optional(),
    maxStreamMs: z.number().int().positive().optional(),
    upstreamTimeoutMs: z.number().int().positive().optional(),
    cardTtlMs: z.number().int().min(0).optional(),
    maxInFlight: z.number().int().positive().max(1_000_000).optional(),
    maxInFlightBytes: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024 * 1024)
      .optional(),
    stream: z
      .object({
        buffer: z.enum(['event', 'artifact'], { error: 'must be "event" or "artifact"' }).optional(),
        maxBufferBytes: z.number().int().positive().optional(),
      })
      .strict()
      .optional(),
  })
  .strict()

/** One `audit.redact` pattern: an RE2 expression (linear time), checked here. */
const redactPattern = z.string({ error: 'must be a regular expression' }).superRefine((pattern, ctx) => {
  if (pattern === '') {
    ctx.addIssue({ code: 'custom', message: 'must not be empty' })
    return
  }
  try {
    RE2JS.compile(pattern)
  } catch (error) {
    ctx.addIssue({
      code: 'custom',
      message: `is not a valid RE2 regular expression: ${(error as Error).message} (backreferences and lookaround are not supported)`,
    })
  }
})

/** `audit.redact`: false, a list of patterns, or { patterns, defaults, matched }. */
const redactSchema = z.union(
  [
    z.literal(false),
    z.array(redactPattern).max(64),
    z
      .object({
        patterns: z.array(redactPattern).max(64).optional(),
        defaults: z.boolean({ error: 'must be true or false' }).optional(),
        matched: z.boolean({ error: 'must be true or false' }).optional(),
      })
      .strict(),
  ],
  { error: 'must be false, a list of patterns, or { patterns, defaults, matched }' },
)

const configSchema = z
  .object({
    hooks: z
      .array(z.record(z.string(), z.unknown()), { error: 'must be a list of hook definitions' })
      .optional(),
    packs: z
      .array(packEntrySchema, { error: 'must be a list of pack names, e.g. [shell-safety, secrets]' })
      .max(50)
      .optional(),
    limits: limitsSchema.optional(),
    network: networkSettingsSchema.optional(),
    guardians: z
      .array(guardianSchema, { error: 'must be a list of remote Guardians like { url: ... }' })
      .optional(),
    audit: z
      .union(
        [
          z.enum(['sync', 'async']),
          z
            .object({
              mode: z.enum(['sync', 'async']).optional(),
              batchSize: z.number().int().positive().max(10_000).optional(),
              intervalMs: z.number().int().positive().max(60_000).optional(),
              maxQueue: z.number().int().positive().optional(),
              syncTimeoutMs: z.number().int().positive().max(600_000).optional(),
              redact: redactSchema.optional(),
            })
            .strict(),
        ],
        { error: 'must be "sync", "async" or {mode, batchSize, intervalMs, maxQueue, redact}' },
      )
      .optional(),
    server: serverSchema.optional(),
    management: managementSchema.optional(),
    approvals: approvalsSchema.optional(),
    tools: z.record(z.string(), z.unknown()).optional(),
    a2a: a2aSchema.optional(),
    mcp: z
      .object({
        allowUnknownTypes: z
          .array(z.string().min(1).max(300), {
            error: 'must be a list of protocol/place/type keys such as mcp/client-request/x/y',
          })
          .max(200)
          .optional(),
      })
      .strict()
      .optional(),
    // Checked in full by `warden llm` (`llmSettingsSchema` of the model-API gateway).
    llm: z
      .record(z.string(), z.unknown(), { error: 'must be a mapping of model-API gateway settings' })
      .optional(),
    // Checked in full by the ACS endpoint's own schema (`acsSettingsSchema`).
    acs: z.record(z.string(), z.unknown(), { error: 'must be a mapping of ACS settings' }).optional(),
    judge: judgeSettingsSchema.optional(),
    db: z.string({ error: 'must be a postgres:// URL or a SQLite file path' }).optional(),
    scripts: z
      .object({
        httpAllow: z
          .array(z.string(), { error: 'must be a list of host names http.get/post may reach' })
          .optional(),
        maxSteps: z.number().int().positive().optional(),
        maxWallTimeMs: z.number().int().positive().optional(),
        isolate: z.enum(['tenant', 'all', 'none'], { error: 'must be tenant, all or none' }).optional(),
        workers: z.number().int().min(1).max(64).optional(),
        queue: z.number().int().min(0).max(100_000).optional(),
        sliceMs: z.number().int().min(1).max(1000).optional(),
        workerNice: z.number().int().min(0).max(19).optional(),
      })
      .strict()
      .optional(),
    detectors: z
      .object({
        isolate: z.enum(['tenant', 'all', 'none'], { error: 'must be tenant, all or none' }).optional(),
        workers: z.number().int().min(1).max(64).optional(),
        queue: z.number().int().min(0).max(100_000).optional(),
        inlineChars: z.number().int().min(0).max(50_000_000).optional(),
        workerNice: z.number().int().min(0).max(19).optional(),
      })
      .strict()
      .optional(),
    webhooks: z
      .object({ allow: z.array(z.string(), { error: 'must be a list of URL prefixes' }).optional() })
      .strict()
      .optional(),
    // Checked in full by `warden serve` (`notificationsSchema` of src/notify).
    notifications: z
      .record(z.string(), z.unknown(), { error: 'must be a mapping of notification settings' })
      .optional(),
    // Checked in full by `warden serve` (`ocsfSettingsSchema` of src/audit/ocsf).
    ocsf: z
      .record(z.string(), z.unknown(), { error: 'must be a mapping of OCSF emission settings' })
      .optional(),
  })
  .strict()

/** A loaded warden.yaml. */
export interface WardenConfig {
  /** The file it came from, when it came from a file. */
  path?: string
  /** The folder relative paths resolve against. */
  baseDir: string
  hooks: HookDefinition[]
  limits: Partial<Limits>
  /** Sections other parts of Warden read (network, guardians, audit, server, tools, judge, db). */
  raw: Record<string, unknown>
  /** `file:line:col` of a path in the file (the closest part of it that is there), when known. */
  where?: (path: readonly PropertyKey[]) => string | undefined
}

/** Where a path of a parsed YAML document is, as `label:line:col` (the closest existing node). */
function locator(doc: ReturnType<typeof parseDocument>, counter: LineCounter, label: string) {
  return (path: readonly PropertyKey[]): string | undefined => {
    for (let length = path.length; length >= 0; length--) {
      const node = doc.getIn(path.slice(0, length) as (string | number)[], true) as
        | { range?: [number, number, number] }
        | undefined
      if (node?.range) {
        const { line, col } = counter.linePos(node.range[0])
        return `${label}:${line}:${col}`
      }
    }
    return undefined
  }
}

/**
 * Parses warden.yaml text.
 * @throws WardenError `invalid-config` naming the file, the field and the fix.
 */
export function parseConfig(text: string, baseDir: string, label = 'warden.yaml'): WardenConfig {
  let data: unknown
  const counter = new LineCounter()
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false })
  const [syntax] = doc.errors
  if (syntax) {
    const { line, col } = counter.linePos(syntax.pos[0])
    throw new WardenError(
      'invalid-config',
      `${label}:${line}:${col}: not valid YAML: ${syntax.message.split('\n')[0]}`,
    )
  }
  try {
    data = doc.toJS({ maxAliasCount: 100 }) ?? {}
  } catch (error) {
    throw new WardenError('invalid-config', `${label}: not valid YAML: ${(error as Error).message}`)
  }
  const where = locator(doc, counter, label)
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new WardenError(
      'invalid-config',
      `${label}: the top level must be a mapping with keys such as hooks: and limits:`,
    )
  }
  const parsed = configSchema.safeParse(data)
  if (!parsed.success) {
    const first = parsed.error.issues[0]
    throw new WardenError('invalid-config', formatZodError(parsed.error, where(first?.path ?? []) ?? label))
  }
  const userHooks = (parsed.data.hooks ?? []).map((hook) => withBaseDir({ source: label, ...hook }, baseDir))
  // Pack hooks first (each overridden by a user hook of the same name), then the rest.
  const hooks = expandPacks(parsed.data.packs ?? [], userHooks, label).map((hook) =>
    withSettingsFile(hook as Record<string, unknown>, baseDir),
  ) as unknown as HookDefinition[]
  const limits = (parsed.data.limits ?? {}) as Partial<Limits>
  return { baseDir, hooks, limits, raw: data as Record<string, unknown>, where }
}

/** Whether `limits.breaker.disableOnTrip` is on: a trip switches the hook off (GoClaw). */
export function breakerDisablesOnTrip(config: WardenConfig | undefined): boolean {
  const limits = config?.raw.limits as { breaker?: { disableOnTrip?: unknown } } | undefined
  return limits?.breaker?.disableOnTrip === true
}

/** Reads and parses a warden.yaml file. */
export async function loadConfig(path: string): Promise<WardenConfig> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new WardenError(
      'invalid-config',
      `cannot read config ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    )
  }
  const config = parseConfig(text, dirname(resolve(path)), path)
  config.path = resolve(path)
  return config
}

function withBaseDir(hook: Record<string, unknown>, baseDir: string): Record<string, unknown> {
  const handler = hook.handler
  if (typeof handler === 'object' && handler !== null && (handler as { type?: unknown }).type === 'command') {
    return { ...hook, handler: { baseDir, ...(handler as Record<string, unknown>) } }
  }
  return hook
}

/** A detector's `claudeSettings` file, relative to the config's folder as command paths are. */
function withSettingsFile(hook: Record<string, unknown>, baseDir: string): Record<string, unknown> {
  const handler = hook.handler as Record<string, unknown> | undefined
  const options = handler?.options as Record<string, unknown> | undefined
  const file = options?.claudeSettings
  if (handler?.type !== 'detector' || typeof file !== 'string' || isAbsolute(file)) return hook
  return { ...hook, handler: { ...handler, options: { ...options, claudeSettings: resolve(baseDir, file) } } }
}

/**
 * The Host names a listener accepts besides the loopback names: the config's
 * `server.allowedHosts` and `--allowed-host` flags together.
 * @throws Error naming a flag value that is not a host name
 */
export function allowedHostsOf(
  config: { raw: Record<string, unknown> } | undefined,
  flags: readonly string[] | undefined,
): string[] | undefined {
  const fromConfig = ((config?.raw.server ?? {}) as { allowedHosts?: string[] }).allowedHosts ?? []
  for (const flag of flags ?? []) {
    const checked = allowedHostSchema.safeParse(flag)
    if (!checked.success) {
      throw new Error(`--allowed-host ${checked.error.issues[0]?.message ?? 'is not valid'} (got "${flag}")`)
    }
  }
  const all = [...fromConfig, ...(flags ?? [])]
  return all.length > 0 ? all : undefined
}
