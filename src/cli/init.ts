// `warden init`: a guided start. Writes a warden.yaml with working starter hooks and the
// built-in detector packs chosen and, with --claude-code, the Claude Code
// settings entry that runs `warden check` on every tool call, merged into an existing
// .claude/settings.json. Asks on a terminal, takes flags otherwise; never overwrites a
// warden.yaml without --force.

import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, relative, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { parseArgs } from './args.js'
import {
  claudeCommand,
  DETECTOR_PACKS,
  mergeClaudeSettings,
  STARTER_HOOKS,
  type StarterHook,
  wardenYaml,
} from './init-templates.js'
import type { CliIo } from './io.js'

const HELP = `usage: warden init [--config warden.yaml] [--hooks NAMES] [--packs NAMES] [--claude-code] [--yes] [--force]

Writes a starter warden.yaml in this folder: hooks that work as written, to keep or change.
On a terminal it asks what to include; with --yes (or when not on a terminal) it takes the
flags and the defaults. An existing warden.yaml is never overwritten without --force.

options:
  -c, --config FILE   the file to write (default warden.yaml)
  --hooks NAMES       starter hooks, comma-separated, or "none" (default: all of them):
${STARTER_HOOKS.map((h) => `                        ${h.name}: ${h.summary}`).join('\n')}${
  DETECTOR_PACKS.length > 0
    ? `\n  --packs NAMES       built-in detector packs, comma-separated, or "none" (default: the ones marked *):\n${DETECTOR_PACKS.map((p) => `                      ${p.recommended ? '*' : ' '} ${p.name}: ${p.summary}`).join('\n')}`
    : ''
}
  --port N            the port warden serve listens on (written as server.port)
  --claude-code       also add a PreToolUse hook to .claude/settings.json that runs
                      "warden check" on every tool call (merged into an existing file)
  -y, --yes           ask nothing; take the flags and the defaults
  -f, --force         overwrite an existing warden.yaml
  -h, --help          this text

examples:
  warden init                              # asks on a terminal
  warden init --yes --claude-code          # all starter hooks, and Claude Code runs them
  warden init --hooks no-destructive-shell --config agents/warden.yaml
`

/** Asks one question on the terminal; the answer, trimmed. */
type Ask = (question: string) => Promise<string>

/** Splits a comma list; "none" is the empty list; names not in `known` are an error. */
function chosen(value: string, known: readonly { name: string }[], flag: string, noun: string): string[] {
  if (value.trim() === 'none') return []
  const names = value
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean)
  const unknown = names.filter((n) => !known.some((k) => k.name === n))
  if (unknown.length > 0) {
    throw new Error(
      `${flag}: no ${noun} named ${unknown.map((n) => `"${n}"`).join(', ')}; choose from ${known.map((k) => k.name).join(', ')} (or "none")`,
    )
  }
  return names
}

async function yesNo(ask: Ask, question: string, byDefault: boolean): Promise<boolean> {
  for (;;) {
    const answer = (await ask(`${question} ${byDefault ? '[Y/n]' : '[y/N]'} `)).toLowerCase()
    if (answer === '') return byDefault
    if (['y', 'yes'].includes(answer)) return true
    if (['n', 'no'].includes(answer)) return false
  }
}

const OPTIONS = {
  config: { type: 'string', short: 'c' },
  hooks: { type: 'string' },
  packs: { type: 'string' },
  port: { type: 'string' },
  'claude-code': { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  force: { type: 'boolean', short: 'f' },
  help: { type: 'boolean', short: 'h' },
} as const

/** What to write, from the flags (and the answers on a terminal). */
interface Plan {
  hooks: string[]
  packs: string[]
  port?: number
  claudeCode: boolean
}

/** The plan the flags alone give; throws naming a bad flag value. */
function planFromFlags(
  values: ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS }>>['values'],
): Plan {
  const plan: Plan = {
    hooks:
      values.hooks === undefined
        ? STARTER_HOOKS.map((h) => h.name)
        : chosen(values.hooks, STARTER_HOOKS, '--hooks', 'starter hook'),
    packs:
      values.packs === undefined
        ? DETECTOR_PACKS.filter((p) => p.recommended).map((p) => p.name)
        : chosen(values.packs, DETECTOR_PACKS, '--packs', 'pack'),
    claudeCode: values['claude-code'] === true,
  }
  if (values.port !== undefined) {
    if (!/^\d+$/.test(values.port) || Number(values.port) > 65_535)
      throw new Error(`--port must be a whole number from 0 to 65535 (got "${values.port}")`)
    plan.port = Number(values.port)
  }
  return plan
}

/** Asks what to include, on the terminal. */
async function askPlan(io: CliIo, plan: Plan, shown: string): Promise<void> {
  const terminal = createInterface({ input: process.stdin, output: process.stdout })
  // Lines typed ahead of a question wait in the iterator's buffer instead of being lost.
  const lines = terminal[Symbol.asyncIterator]()
  const ask: Ask = async (question) => {
    io.stdout(question)
    const line = await lines.next()
    if (line.done) throw new Error('the terminal closed before every question was answered')
    return String(line.value).trim()
  }
  try {
    io.stdout(`Writing ${shown}. Starter hooks (each works as written; change them later):\n`)
    plan.hooks = []
    for (const hook of STARTER_HOOKS) {
      if (await yesNo(ask, `  ${hook.name}: ${hook.summary}?`, true)) plan.hooks.push(hook.name)
    }
    if (DETECTOR_PACKS.length > 0) {
      io.stdout('Built-in detector packs:\n')
      plan.packs = []
      for (const pack of DETECTOR_PACKS) {
        if (await yesNo(ask, `  ${pack.name}: ${pack.summary}?`, pack.recommended)) plan.packs.push(pack.name)
      }
    }
    if (!plan.claudeCode) {
      plan.claudeCode = await yesNo(
        ask,
        'Run these hooks in Claude Code here (.claude/settings.json)?',
        false,
      )
    }
  } finally {
    terminal.close()
  }
}

/** Runs `warden init`. */
export async function run(args: string[], io: CliIo): Promise<number> {
  let values: ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS }>>['values']
  let plan: Plan
  try {
    values = parseArgs({ args, allowPositionals: false, options: OPTIONS }).values
    plan = planFromFlags(values)
  } catch (error) {
    io.stderr(`warden init: ${(error as Error).message}\n\n${HELP}`)
    return 1
  }
  if (values.help) {
    io.stdout(HELP)
    return 0
  }
  const configPath = resolve(io.cwd, values.config ?? 'warden.yaml')
  const shown = relative(io.cwd, configPath) || configPath
  if (existsSync(configPath) && !values.force) {
    io.stderr(`warden init: ${shown} exists already; it was left as it is (--force overwrites it)\n`)
    return 1
  }
  if (values.yes !== true && io.isTTY === true && io.stdinIsTTY === true) await askPlan(io, plan, shown)
  // The Claude Code settings are checked before anything is written: all or nothing.
  const claude = plan.claudeCode ? await claudeSettings(io, relative(io.cwd, configPath)) : undefined
  if (claude && 'error' in claude) {
    io.stderr(`warden init: ${claude.error}; nothing was written\n`)
    return 1
  }
  const hooks = plan.hooks
    .map((name) => STARTER_HOOKS.find((h) => h.name === name))
    .filter((h): h is StarterHook => h !== undefined)
  try {
    await mkdir(dirname(configPath), { recursive: true })
    await writeFile(
      configPath,
      wardenYaml({ hooks, packs: plan.packs, ...(plan.port !== undefined ? { port: plan.port } : {}) }),
    )
    const starters = hooks.length
      ? `starter hooks ${hooks.map((h) => h.name).join(', ')}`
      : 'no starter hooks'
    const packs = plan.packs.length ? `packs ${plan.packs.join(', ')}` : 'no packs'
    io.stdout(`Wrote ${shown}: ${starters}; ${packs}.\n`)
    if (claude) {
      if (claude.alreadyThere) io.stdout(`${claude.shown} already runs "warden check"; left as it is.\n`)
      else {
        await mkdir(dirname(claude.path), { recursive: true })
        await writeFile(claude.path, `${JSON.stringify(claude.settings, null, 2)}\n`)
        io.stdout(
          `${claude.existed ? 'Added to' : 'Wrote'} ${claude.shown}: Claude Code runs "warden check" before every tool call (Warden must be installed in this project).\n`,
        )
      }
    }
  } catch (error) {
    io.stderr(`warden init: ${(error as Error).message}\n`)
    return 1
  }
  io.stdout(
    `Next:\n  npx warden check --config ${shown} event.json   # exit 2 when a hook denies\n  npx warden serve --config ${shown}               # the Guardian server and the web UI\n`,
  )
  return 0
}

/** The merged .claude/settings.json, or why it cannot take the hook. */
async function claudeSettings(
  io: CliIo,
  configName: string,
): Promise<
  | {
      path: string
      shown: string
      settings: Record<string, unknown>
      alreadyThere: boolean
      existed: boolean
    }
  | { error: string }
> {
  const path = resolve(io.cwd, '.claude', 'settings.json')
  const shown = relative(io.cwd, path)
  let existing: unknown
  const existed = existsSync(path)
  if (existed) {
    try {
      existing = JSON.parse(await readFile(path, 'utf8'))
    } catch (error) {
      return {
        error: `${shown} is not valid JSON (${(error as Error).message}): fix it, then run this again`,
      }
    }
  }
  try {
    const merged = mergeClaudeSettings(existing, claudeCommand(configName))
    return { path, shown, existed, ...merged }
  } catch (error) {
    return { error: `${shown} cannot take the hook: ${(error as Error).message}` }
  }
}
