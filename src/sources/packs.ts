// Packs: named sets of hooks built from the built-in detectors, switched on with
// `packs: [shell-safety, secrets, …]` in warden.yaml. Their hooks are listed with the source
// `builtin:<pack>` and behave like any other: a hook of the same name under `hooks:`
// overrides one (only the fields it gives; the handler's options merge), `enabled: false`
// switches it off, and the management API can toggle it.

import { z } from 'zod'
import { type HookDefinition, WardenError } from '../core/index.js'

/** The source prefix of pack hooks; listings show them as `builtin`. */
export const BUILTIN_SOURCE_PREFIX = 'builtin:'

/** A pack: what it is for and its hooks. */
export interface Pack {
  summary: string
  hooks: HookDefinition[]
}

function detectorHook(
  name: string,
  event: string,
  detector: string,
  action: 'deny' | 'redact' | 'ask',
  options?: Record<string, unknown>,
): HookDefinition {
  return {
    name,
    event,
    handler: { type: 'detector', detector, action, ...(options ? { options } : {}) },
  }
}

/** The built-in packs, by name. */
export const PACKS: Readonly<Record<string, Pack>> = {
  'shell-safety': {
    summary:
      'denies destructive shell commands (recursive deletes of / or ~, disk writes, curl | sh, fork bombs, force pushes to protected branches) and commands the shell reader cannot read to the end; with options { mode: allow, allow or claudeSettings }, every command not on the list',
    hooks: [detectorHook('shell-safety:destructive-commands', 'tool.pre', 'shell', 'deny')],
  },
  secrets: {
    summary:
      'denies tool calls and MCP prompt arguments carrying credentials; redacts credentials in tool output, agent answers, MCP resources, prompts, sampling and elicitation',
    hooks: [
      detectorHook('secrets:tool-input', 'tool.pre', 'secrets', 'deny'),
      detectorHook('secrets:tool-output', 'tool.post', 'secrets', 'redact'),
      detectorHook('secrets:agent-response', 'agent.response', 'secrets', 'redact'),
      detectorHook('secrets:mcp-prompt-arguments', 'mcp.prompt.get', 'secrets', 'deny'),
      detectorHook('secrets:mcp-prompt-messages', 'mcp.prompt.get.post', 'secrets', 'redact'),
      detectorHook('secrets:mcp-resource-contents', 'mcp.resource.read.post', 'secrets', 'redact'),
      detectorHook('secrets:mcp-sampling', 'mcp.sampling', 'secrets', 'redact'),
      detectorHook('secrets:mcp-sampling-answer', 'mcp.sampling.post', 'secrets', 'redact'),
      detectorHook('secrets:mcp-elicitation', 'mcp.elicitation', 'secrets', 'redact'),
      detectorHook('secrets:mcp-elicitation-answer', 'mcp.elicitation.post', 'secrets', 'redact'),
    ],
  },
  pii: {
    summary:
      'redacts e-mail addresses, phone numbers, card numbers, SSNs, NINOs and IBANs in tool output and agent answers',
    hooks: [
      detectorHook('pii:tool-output', 'tool.post', 'pii', 'redact'),
      detectorHook('pii:agent-response', 'agent.response', 'pii', 'redact'),
    ],
  },
  egress: {
    summary:
      'denies tool calls with URLs to IP literals, disguised hosts, other schemes than http(s), or hosts outside `allow`',
    hooks: [detectorHook('egress:tool-input', 'tool.pre', 'egress', 'deny')],
  },
  'protected-paths': {
    summary:
      'denies tool calls and MCP resource URIs (file:// included) touching .env files, ~/.ssh, cloud credentials, /etc and mounted secrets',
    hooks: [
      detectorHook('protected-paths:tool-input', 'tool.pre', 'paths', 'deny'),
      detectorHook('protected-paths:mcp-resource', 'mcp.resource.read', 'paths', 'deny'),
    ],
  },
  'prompt-injection': {
    summary:
      'denies tool output, retrieved knowledge, MCP resources, prompts and sampling requests that try to steer the model',
    hooks: [
      detectorHook('prompt-injection:tool-output', 'tool.post', 'injection', 'deny'),
      detectorHook('prompt-injection:knowledge', 'knowledge.retrieve', 'injection', 'deny'),
      detectorHook('prompt-injection:mcp-resource-contents', 'mcp.resource.read.post', 'injection', 'deny'),
      detectorHook('prompt-injection:mcp-prompt-messages', 'mcp.prompt.get.post', 'injection', 'deny'),
      detectorHook('prompt-injection:mcp-sampling', 'mcp.sampling', 'injection', 'deny'),
    ],
  },
}

/** The names of the built-in packs. */
export const PACK_NAMES = Object.keys(PACKS)

/** One `packs:` entry: a pack name, or `{ name, action?, options?, enabled? }` for all its hooks. */
export const packEntrySchema = z.union(
  [
    z.string(),
    z
      .object({
        name: z.string({ error: 'is required: the pack name' }),
        action: z.enum(['deny', 'redact', 'ask'], { error: 'must be "deny", "redact" or "ask"' }).optional(),
        options: z
          .record(z.string(), z.unknown(), { error: 'must be a mapping of detector options' })
          .optional(),
        enabled: z.boolean({ error: 'must be true or false' }).optional(),
      })
      .strict(),
  ],
  { error: `must be a pack name (${PACK_NAMES.join(', ')}) or { name, action, options, enabled }` },
)

/** One parsed `packs:` entry. */
export type PackEntry = z.infer<typeof packEntrySchema>

type Handler = Record<string, unknown>

function mergeHandler(base: Handler, over: Handler | undefined): Handler {
  if (!over) return base
  if (over.type !== undefined && over.type !== base.type) return over
  const options =
    base.options !== undefined || over.options !== undefined
      ? { options: { ...(base.options as Handler | undefined), ...(over.options as Handler | undefined) } }
      : {}
  return { ...base, ...over, ...options }
}

/**
 * The hooks of the listed packs, each overridden by the user hook of the same name (which
 * is then taken out of `userHooks`), followed by the remaining user hooks.
 * @throws WardenError `invalid-config` naming an unknown pack.
 */
export function expandPacks(
  entries: readonly PackEntry[],
  userHooks: readonly Record<string, unknown>[],
  label: string,
): Record<string, unknown>[] {
  const overrides = new Map<string, Record<string, unknown>>()
  for (const hook of userHooks) if (typeof hook.name === 'string') overrides.set(hook.name, hook)
  const used = new Set<string>()
  const out: Record<string, unknown>[] = []
  for (const [index, entry] of entries.entries()) {
    const name = typeof entry === 'string' ? entry : entry.name
    const pack = Object.hasOwn(PACKS, name) ? PACKS[name] : undefined
    if (!pack)
      throw new WardenError(
        'invalid-config',
        `${label}: packs[${index}] "${name}" is not a known pack; use one of ${PACK_NAMES.join(', ')}`,
      )
    if (used.has(`pack:${name}`)) continue
    used.add(`pack:${name}`)
    for (const hook of pack.hooks) {
      let handler = hook.handler as Handler
      let definition: Record<string, unknown> = { ...hook, source: `${BUILTIN_SOURCE_PREFIX}${name}` }
      if (typeof entry === 'object') {
        handler = mergeHandler(handler, {
          ...(entry.action ? { action: entry.action } : {}),
          ...(entry.options ? { options: entry.options } : {}),
        })
        if (entry.enabled !== undefined) definition.enabled = entry.enabled
      }
      const override = overrides.get(hook.name)
      if (override) {
        used.add(hook.name)
        const { handler: overHandler, source: _ignored, ...rest } = override
        definition = { ...definition, ...rest }
        handler = mergeHandler(handler, overHandler as Handler | undefined)
      }
      out.push({ ...definition, handler })
    }
  }
  for (const hook of userHooks) if (typeof hook.name !== 'string' || !used.has(hook.name)) out.push(hook)
  return out
}
