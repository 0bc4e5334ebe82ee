// What `warden init` writes: the starter hooks of a warden.yaml (each one working as
// written, checked by the tests), the `packs:` line of the built-in detector packs chosen,
// and the Claude Code settings entry that runs `warden check`, merged into a settings file
// that may already hold other settings and hooks.

import { PACKS } from '../sources/index.js'

/** A starter hook `warden init` can put into warden.yaml. */
export interface StarterHook {
  name: string
  summary: string
  /** The hook's YAML, as an item of `hooks:` (indented two spaces). */
  yaml: string
}

/** The starter hooks, in the order they are offered. */
export const STARTER_HOOKS: readonly StarterHook[] = [
  {
    name: 'no-destructive-shell',
    summary: 'deny shell commands that delete recursively, format disks or pipe downloads into a shell',
    yaml: `  - name: no-destructive-shell
    event: tool.pre
    matcher: "^(Bash|exec|shell)$"
    if: >-
      (has(tool_input.command) ? tool_input.command : has(tool_input.cmd) ? tool_input.cmd : '')
      .matches('rm\\\\s+-[a-zA-Z]*[rf]|mkfs|dd\\\\s+if=|curl[^|]*\\\\|\\\\s*(ba)?sh')
    handler: { type: deny, reason: "destructive shell command refused: use a narrower, reversible command" }
`,
  },
  {
    name: 'protect-secret-files',
    summary: 'deny reading or writing .env files, private keys and credential files',
    yaml: `  - name: protect-secret-files
    event: tool.pre
    matcher: "^(Read|Write|Edit|MultiEdit|read_file|write_file)$"
    if: >-
      (has(tool_input.file_path) ? tool_input.file_path : has(tool_input.path) ? tool_input.path : '')
      .matches('(^|/)(\\\\.env(\\\\.[^/]*)?|id_(rsa|ed25519|ecdsa)|\\\\.npmrc|credentials(\\\\.json)?)$')
    handler: { type: deny, reason: "secret files (.env, private keys, credentials) are off limits" }
`,
  },
  {
    name: 'ask-before-push',
    summary: 'ask a person before git push or npm publish',
    yaml: `  - name: ask-before-push
    event: tool.pre
    matcher: "^(Bash|exec|shell)$"
    if: >-
      (has(tool_input.command) ? tool_input.command : has(tool_input.cmd) ? tool_input.cmd : '')
      .matches('git\\\\s+push|npm\\\\s+publish')
    handler: { type: ask, reason: "pushing or publishing needs a person to approve it" }
`,
  },
]

/** A built-in detector pack `warden init` can turn on (`packs:` in warden.yaml). */
export interface DetectorPack {
  name: string
  summary: string
  /** On unless the user says otherwise (the packs that rarely refuse ordinary work). */
  recommended: boolean
}

/** Packs on by default: the others (pii, egress, prompt-injection) fit some agents only. */
const RECOMMENDED_PACKS = ['shell-safety', 'secrets', 'protected-paths']

/** The built-in detector packs, as `warden init` offers them. */
export const DETECTOR_PACKS: readonly DetectorPack[] = Object.entries(PACKS).map(([name, pack]) => ({
  name,
  summary: pack.summary,
  recommended: RECOMMENDED_PACKS.includes(name),
}))

/** The text of a new warden.yaml with the chosen starter hooks and packs. */
export function wardenYaml(options: {
  hooks: readonly StarterHook[]
  packs: readonly string[]
  port?: number
}): string {
  const lines = [
    '# Warden configuration: the hooks that decide what your agents may do.',
    '# Check one event:  npx warden check --config warden.yaml event.json',
    '# Serve them:       npx warden serve --config warden.yaml',
    '# Every section: docs/configuration.md in the Warden package.',
  ]
  if (options.port !== undefined) lines.push('', 'server:', `  port: ${options.port}`)
  if (options.packs.length > 0) lines.push('', `packs: [${options.packs.join(', ')}]`)
  const head = `${lines.join('\n')}\n\n`
  if (options.hooks.length === 0) return `${head}hooks: []\n`
  return `${head}hooks:\n${options.hooks.map((h) => h.yaml).join('\n')}`
}

/** The command Claude Code runs for every tool call. */
export function claudeCommand(configName: string): string {
  return `npx --no-install warden check --config "$CLAUDE_PROJECT_DIR/${configName}"`
}

type Json = Record<string, unknown>

/**
 * Adds the PreToolUse entry that runs `warden check` to Claude Code settings (the parsed
 * file, or undefined for a new one), keeping everything else.
 * @returns the new settings, and whether a `warden check` entry was there already.
 * @throws Error naming what is not as Claude Code expects it.
 */
export function mergeClaudeSettings(
  existing: unknown,
  command: string,
): { settings: Json; alreadyThere: boolean } {
  if (
    existing !== undefined &&
    (typeof existing !== 'object' || existing === null || Array.isArray(existing))
  )
    throw new Error('it is not a JSON object')
  const settings: Json = { ...((existing as Json | undefined) ?? {}) }
  const hooks = settings.hooks ?? {}
  if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks))
    throw new Error('its "hooks" is not an object of events')
  const preToolUse = (hooks as Json).PreToolUse ?? []
  if (!Array.isArray(preToolUse)) throw new Error('its "hooks.PreToolUse" is not a list')
  const runsWarden = preToolUse.some((entry) =>
    ((entry as { hooks?: unknown })?.hooks as unknown[] | undefined)?.some?.(
      (hook) =>
        typeof (hook as { command?: unknown })?.command === 'string' &&
        /warden check/.test((hook as { command: string }).command),
    ),
  )
  if (runsWarden) return { settings, alreadyThere: true }
  settings.hooks = {
    ...(hooks as Json),
    PreToolUse: [...preToolUse, { matcher: '*', hooks: [{ type: 'command', command }] }],
  }
  return { settings, alreadyThere: false }
}
