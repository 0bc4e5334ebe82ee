// The shell detector: reads a command as a shell would (shell-parse.ts), peels wrappers and
// nested scripts (shell-commands.ts), then checks each command that would run against the
// destructive rules (shell-rules.ts) and, in allowlist mode, against the commands that may
// run (shell-allow.ts, Claude Code's rule syntax, or its settings.json via shell-claude.ts).
// A bound of the reader reached (size, depth, nesting, work budget) is a finding of its own,
// and the scanner never throws.

import { z } from 'zod'
import { indexRules, type RuleIndex } from './shell-allow.js'
import { readClaudeRules } from './shell-claude.js'
import { normalisePath, type RunCommand, runCommands } from './shell-commands.js'
import { parseShell } from './shell-parse.js'
import { judgeAssignments, judgeCommand, judgeRedirects, type Policy } from './shell-policy.js'
import {
  type CheckScope,
  forkBomb,
  globbedName,
  inDirectory,
  RULE_NAMES,
  ruleChecks,
  SHELL_RULES,
  type ShellRule,
} from './shell-rules.js'
import { newReading, SHELL_LIMITS, type ShellBound, type ShellReading } from './shell-syntax.js'
import { type Detector, type Finding, SCAN_LIMIT_KIND } from './types.js'

export { isCriticalPath, SHELL_RULES, type ShellRule } from './shell-rules.js'

/** The kind of a finding that says the reader reached a bound (the text was not fully read). */
export const SHELL_LIMIT_KIND = SCAN_LIMIT_KIND

const ruleList = z
  .array(z.string().min(1).max(1000), {
    error: 'must be a list of commands such as "git status" or "npm run *"',
  })
  .max(10_000)

const optionsSchema = z
  .object({
    protectedBranches: z
      .array(z.string().min(1).max(200), { error: 'must be a list of branch names or globs like release/*' })
      .max(100)
      .optional(),
    disable: z
      .array(z.enum(SHELL_RULES, { error: `must name rules among ${SHELL_RULES.join(', ')}` }))
      .optional(),
    mode: z
      .enum(['deny', 'allow'], {
        error: 'must be "deny" (refuse destructive commands) or "allow" (only the listed commands may run)',
      })
      .optional(),
    allow: ruleList.optional(),
    deny: ruleList.optional(),
    claudeSettings: z
      .string({ error: 'must be the path of a Claude Code settings.json file' })
      .min(1)
      .max(4096)
      .optional(),
    allowRedirects: z.boolean({ error: 'must be true or false' }).optional(),
  })
  .strict()
  .superRefine((o, ctx) => {
    if (o.allow && o.mode !== 'allow')
      ctx.addIssue({ code: 'custom', path: ['allow'], message: 'is read only with mode: allow' })
    if (o.allowRedirects !== undefined && o.mode !== 'allow')
      ctx.addIssue({ code: 'custom', path: ['allowRedirects'], message: 'is read only with mode: allow' })
    if (o.mode === 'allow' && !o.allow && !o.claudeSettings)
      ctx.addIssue({
        code: 'custom',
        path: ['mode'],
        message:
          'allow needs the commands that may run: allow: [...] or claudeSettings: path/to/settings.json',
      })
  })

/** Options of the shell detector. */
export type ShellOptions = z.infer<typeof optionsSchema>

const DEFAULT_BRANCHES = ['main', 'master', 'trunk', 'production', 'prod', 'release', 'release/*', 'stable']

const BOUNDS: Record<ShellBound, string> = {
  size: `command line longer than ${SHELL_LIMITS.maxChars} characters`,
  depth: `more than ${SHELL_LIMITS.maxDepth} levels of nested $(…), sh -c, eval or su -c`,
  nesting: `more than ${SHELL_LIMITS.maxNesting} nested groups or function bodies`,
  work: 'work budget spent (expansions or nested scripts grew too large)',
}

/** What a scan may be told about its event (the handler passes it when it knows it). */
interface ShellScanContext {
  /** The folder relative paths are read against. */
  cwd?: string
  /** Work units the scan may spend. */
  budget?: number
}

/** Every finding in one command line (each finding spans the whole line). */
export function scanShell(text: string, options: ShellOptions = {}): Finding[] {
  return prepareShell(options)(text)
}

function policyOf(options: ShellOptions): Policy | undefined {
  const allow = [...(options.allow ?? [])]
  const deny = [...(options.deny ?? [])]
  let ask: string[] = []
  if (options.claudeSettings !== undefined) {
    const claude = readClaudeRules(options.claudeSettings)
    allow.push(...claude.allow)
    deny.push(...claude.deny)
    ask = claude.ask
  }
  const allowMode = options.mode === 'allow'
  if (!allowMode && deny.length === 0) return undefined
  const empty: RuleIndex = indexRules([])
  return {
    allowMode,
    allow: allowMode ? indexRules(allow) : empty,
    ask: allowMode ? indexRules(ask) : empty,
    deny: indexRules(deny),
    redirects: options.allowRedirects === true,
  }
}

function prepareShell(
  options: ShellOptions,
): (text: string, key?: string, context?: ShellScanContext) => Finding[] {
  const rules = ruleChecks(options.protectedBranches ?? DEFAULT_BRANCHES, new Set(options.disable ?? []))
  const bombs = !options.disable?.includes('fork-bomb')
  const policy = policyOf(options)
  return (text, _key, context) => {
    if (text.length === 0) return []
    try {
      return scanWith(text, rules, bombs, policy, context ?? {})
    } catch (error) {
      // Never thrown to the caller: a reader that failed did not read the line.
      const cause = error instanceof Error ? error.message.slice(0, 200) : 'unknown error'
      return [
        { kind: SHELL_LIMIT_KIND, start: 0, end: text.length, detail: `shell reader failed (${cause})` },
      ]
    }
  }
}

/** The directory after `cd`/`pushd`, when it can be known. */
function changeDirectory(cwd: string | undefined, run: RunCommand): string | undefined {
  const operands = run.args.filter((a) => !/^-[LPe@]+$/.test(a))
  if (operands.length === 0) return '~'
  if (run.dynamicArgs.some(Boolean) || operands[0] === '-') return undefined
  const target = inDirectory(cwd, operands[0] as string)
  return target.startsWith('/') || target.startsWith('~') ? normalisePath(target) : undefined
}

function pipelines(): (run: RunCommand, all: readonly RunCommand[]) => readonly RunCommand[] {
  let index: Map<unknown, Map<number, RunCommand[]>> | undefined
  return (run, all) => {
    if (!index) {
      index = new Map()
      for (const r of all) {
        let byNumber = index.get(r.script)
        if (!byNumber) {
          byNumber = new Map()
          index.set(r.script, byNumber)
        }
        const list = byNumber.get(r.command.pipeline) ?? []
        list.push(r)
        byNumber.set(r.command.pipeline, list)
      }
    }
    return index.get(run.script)?.get(run.command.pipeline) ?? []
  }
}

function boundFindings(reading: ShellReading, found: (kind: string, detail: string) => void): void {
  for (const bound of reading.bounds)
    found(SHELL_LIMIT_KIND, `shell reader stopped at its bound: ${BOUNDS[bound]}; the rest was not read`)
}

function scanWith(
  text: string,
  rules: readonly [ShellRule, (run: RunCommand, scope: CheckScope) => string | undefined][],
  bombs: boolean,
  policy: Policy | undefined,
  context: ShellScanContext,
): Finding[] {
  const reading = newReading(Math.min(text.length, SHELL_LIMITS.maxChars), context.budget)
  const script = parseShell(text, { reading })
  const findings: Finding[] = []
  const found = (kind: string, detail: string) => {
    if (!findings.some((f) => f.kind === kind)) findings.push({ kind, start: 0, end: text.length, detail })
  }
  if (bombs) {
    const bomb = forkBomb(script)
    if (bomb) found('fork-bomb', bomb)
  }
  const runs = runCommands(script)
  const inPipeline = pipelines()
  const scope: CheckScope = { all: runs, pipeline: (run) => inPipeline(run, runs), cwd: context.cwd }
  for (const listed of runs) {
    if (reading.budget < 0) break
    if (policy) judgeCommand(listed, policy, found)
    if (listed.name === 'cd' || listed.name === 'pushd') scope.cwd = changeDirectory(scope.cwd, listed)
    const run = listed.dynamicName ? globbedName(listed) : listed
    // Most commands are none of those the rules are about: skip them at once.
    if (!RULE_NAMES.has(run.name) && !run.name.startsWith('mkfs') && run.command.redirects.length === 0)
      continue
    for (const [rule, check] of rules) {
      const detail = check(run, scope)
      if (detail) found(rule, detail)
    }
  }
  if (policy?.allowMode) {
    judgeRedirects(reading.redirects, policy, found)
    judgeAssignments(reading.assigned, runs, found)
    if (reading.unresolved.length > 0)
      found('unresolved', `the shell reader could not resolve ${reading.unresolved.slice(0, 3).join(', ')}`)
  }
  boundFindings(reading, found)
  return findings
}

/** The `shell` detector: destructive commands in shell command lines, or commands not allowed. */
export const shellDetector: Detector<ShellOptions> = {
  name: 'shell',
  summary: 'destructive shell commands, read as a shell would read them; or an allowlist of commands',
  options: optionsSchema,
  target: 'commands',
  redacts: false,
  prepare: prepareShell,
}
