// The destructive-shell detector: reads a command as a shell would (shell-parse.ts), peels
// wrappers and nested scripts (shell-commands.ts), then checks each command that would run
// against a few rules: recursive deletes of `/`, `~` or system folders (`rm`, `find
// -delete`), writes to disks (`dd of=/dev/sda`, `mkfs`, `> /dev/sda`), downloaded or decoded
// code run by a shell (`curl … | sh`, `bash <(curl …)`), recursive permission changes on
// system folders, fork bombs, and force pushes to protected branches.

import { z } from 'zod'
import {
  baseName,
  INTERPRETERS,
  normalisePath,
  type RunCommand,
  runCommands,
  SHELLS,
} from './shell-commands.js'
import { type ParsedScript, parseShell } from './shell-parse.js'
import type { Detector, Finding } from './types.js'

/** The rules of the destructive-shell detector. */
export const SHELL_RULES = [
  'recursive-delete',
  'disk-write',
  'remote-code',
  'permissions',
  'fork-bomb',
  'force-push',
] as const

/** One of {@link SHELL_RULES}. */
export type ShellRule = (typeof SHELL_RULES)[number]

const optionsSchema = z
  .object({
    protectedBranches: z
      .array(z.string().min(1).max(200), { error: 'must be a list of branch names or globs like release/*' })
      .max(100)
      .optional(),
    disable: z
      .array(z.enum(SHELL_RULES, { error: `must name rules among ${SHELL_RULES.join(', ')}` }))
      .optional(),
  })
  .strict()

/** Options of the destructive-shell detector. */
export type ShellOptions = z.infer<typeof optionsSchema>

const DEFAULT_BRANCHES = ['main', 'master', 'trunk', 'production', 'prod', 'release', 'release/*', 'stable']

const SYSTEM_ROOTS = new Set(
  'bin boot dev etc home lib lib32 lib64 opt proc root sbin srv sys usr var Applications Library System Users Volumes private snap'.split(
    ' ',
  ),
)
const DISK =
  /^\/dev\/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d|md\d|dm-\d|mapper\/|loop\d|sr\d)/
const DOWNLOADERS = new Set([
  'curl',
  'wget',
  'fetch',
  'aria2c',
  'nc',
  'ncat',
  'netcat',
  'lwp-download',
  'http',
  'xh',
])

/**
 * True for a path whose recursive deletion or opening up would wreck the machine or a
 * home folder: `/`, `~`, a top-level system folder or one level under it (`/usr/lib`,
 * `/home/alice`).
 */
export function isCriticalPath(path: string): boolean {
  const p = normalisePath(path)
  if (p === '/' || p === '~' || p === '/*') return true
  if (!p.startsWith('/')) return false
  const parts = p.slice(1).split('/')
  if (parts.length > 2) return false
  const top = parts[0] as string
  if (top === 'tmp' || (top === 'var' && parts[1] === 'tmp')) return false
  return SYSTEM_ROOTS.has(top)
}

function flagsOf(args: readonly string[]): { flags: Set<string>; long: Set<string>; operands: string[] } {
  const flags = new Set<string>()
  const long = new Set<string>()
  const operands: string[] = []
  let options = true
  for (const arg of args) {
    if (options && arg === '--') options = false
    else if (options && arg.startsWith('--')) long.add(arg.split('=')[0] as string)
    else if (options && arg.startsWith('-') && arg.length > 1) for (const f of arg.slice(1)) flags.add(f)
    else operands.push(arg)
  }
  return { flags, long, operands }
}

/** The programs some rule looks at (`mkfs.*` besides); others matter only for their redirections. */
const RULE_NAMES = new Set([
  ...'rm rmdir unlink find dd mke2fs mkswap wipefs blkdiscard shred fdisk sfdisk sgdisk parted chmod chown chgrp setfacl git eval'.split(
    ' ',
  ),
  ...INTERPRETERS,
])

/**
 * A command whose name is a glob (`/bin/r? -rf /`) runs whatever the glob matches: taken as
 * the first program a rule looks at that it could match (fail closed).
 */
function globbedName(run: RunCommand): RunCommand {
  const source = run.name
    .replace(/[.+^${}()|\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.')
  let re: RegExp
  try {
    re = new RegExp(`^${source}$`)
  } catch {
    return run
  }
  for (const name of RULE_NAMES) if (re.test(name)) return { ...run, name }
  return run
}

type Check = (run: RunCommand, all: readonly RunCommand[]) => string | undefined

function recursiveDelete(run: RunCommand): string | undefined {
  if (run.name === 'rm' || run.name === 'rmdir' || run.name === 'unlink') {
    const { flags, long, operands } = flagsOf(run.args)
    if (long.has('--no-preserve-root')) return 'rm --no-preserve-root'
    const recursive = flags.has('r') || flags.has('R') || long.has('--recursive')
    const target = operands.find(isCriticalPath)
    if (recursive && target !== undefined) return `rm -r on ${normalisePath(target)}`
    return undefined
  }
  if (run.name === 'find') {
    const starts: string[] = []
    for (const arg of run.args) {
      if (arg.startsWith('-') || arg === '(' || arg === '!') break
      starts.push(arg)
    }
    const deletes =
      run.args.includes('-delete') ||
      run.args.some(
        (a, i) =>
          /^-(exec|execdir|ok|okdir)$/.test(a) && /^(rm|shred|unlink)$/.test(baseName(run.args[i + 1] ?? '')),
      )
    const target = starts.find(isCriticalPath)
    if (deletes && target !== undefined) return `find ${normalisePath(target)} deleting what it finds`
  }
  return undefined
}

function diskWrite(run: RunCommand): string | undefined {
  if (run.name === 'dd') {
    const of = run.args.find((a) => a.startsWith('of='))
    if (of && DISK.test(of.slice(3))) return `dd writing to ${of.slice(3)}`
  }
  if (/^(mkfs(\..+)?|mke2fs|mkswap|wipefs|blkdiscard|shred|fdisk|sfdisk|sgdisk|parted)$/.test(run.name)) {
    const device = run.args.find((a) => DISK.test(a))
    if (device) return `${run.name} on ${device}`
  }
  for (const redirect of run.command.redirects)
    if (/^(>|>>|>\||&>|&>>|<>)$/.test(redirect.op) && DISK.test(redirect.target))
      return `output redirected to ${redirect.target}`
  return undefined
}

function fetches(script: ParsedScript): boolean {
  return runCommands(script, 1).some((r) => DOWNLOADERS.has(r.name))
}

function remoteCode(run: RunCommand, all: readonly RunCommand[]): string | undefined {
  const isShell = INTERPRETERS.has(run.name) || run.name === 'eval'
  if (!isShell) return undefined
  if (run.command.substitutions.some(fetches)) return `${run.name} runs code it downloads`
  if (run.command.stage === 0) return undefined
  // A shell reading its script from a pipe: what feeds it?
  const { operands } = flagsOf(run.args)
  if (run.name !== 'eval' && operands.length > 0 && operands[0] !== '-' && !SHELLS.has(run.name))
    return undefined
  for (const before of all) {
    if (before.script !== run.script || before.command.pipeline !== run.command.pipeline) continue
    if (before.command.stage >= run.command.stage) continue
    if (DOWNLOADERS.has(before.name)) return `${before.name} piped into ${run.name}`
    if (before.name === 'base64' && before.args.some((a) => /^-(d|D|-decode)$/.test(a)))
      return `decoded text piped into ${run.name}`
    if (before.name === 'xxd' && before.args.includes('-r')) return `decoded text piped into ${run.name}`
  }
  return undefined
}

function permissions(run: RunCommand): string | undefined {
  if (!/^(chmod|chown|chgrp|setfacl)$/.test(run.name)) return undefined
  const { flags, long, operands } = flagsOf(run.args)
  const recursive = flags.has('R') || long.has('--recursive')
  const [first, ...rest] = operands
  const targets = run.name === 'setfacl' ? operands : rest
  const target = targets.find(isCriticalPath)
  if (target === undefined) return undefined
  const worldWritable =
    run.name === 'chmod' && /^(0?[0-7]?[2367][2367][2367]|[ugoa]*\+[rwxX]*w|a=rwx)/.test(first ?? '')
  if (recursive || worldWritable)
    return `${run.name}${recursive ? ' -R' : ''} ${first ?? ''} on ${normalisePath(target)}`
  return undefined
}

function globMatch(glob: string, text: string): boolean {
  if (!glob.includes('*')) return glob === text
  const [head, ...tail] = glob.split('*')
  if (!text.startsWith(head as string)) return false
  let at = (head as string).length
  for (const [i, part] of tail.entries()) {
    if (i === tail.length - 1) return text.length - at >= part.length && text.endsWith(part)
    const found = text.indexOf(part, at)
    if (found < 0) return false
    at = found + part.length
  }
  return true
}

function forcePush(branches: readonly string[]): Check {
  const isProtected = (ref: string) => {
    const name = ref.replace(/^refs\/heads\//, '')
    return branches.some((b) => globMatch(b, name))
  }
  return (run) => {
    if (run.name !== 'git') return undefined
    let i = 0
    while (i < run.args.length && (run.args[i] as string).startsWith('-'))
      i += /^(-C|-c|--git-dir|--work-tree|--namespace)$/.test(run.args[i] as string) ? 2 : 1
    if (run.args[i] !== 'push') return undefined
    const { flags, long, operands } = flagsOf(
      run.args.slice(i + 1).filter((a) => !/^(-o|--push-option)$/.test(a)),
    )
    const force =
      flags.has('f') || long.has('--force') || long.has('--force-with-lease') || long.has('--mirror')
    const deletes = flags.has('d') || long.has('--delete')
    const refspecs = operands.slice(1)
    if ((force || deletes) && (refspecs.length === 0 || long.has('--all') || long.has('--mirror')))
      return `git push ${force ? '--force' : '--delete'} without naming a branch (the current one may be protected)`
    for (const spec of refspecs) {
      const plus = spec.startsWith('+')
      const body = plus ? spec.slice(1) : spec
      const colon = body.indexOf(':')
      const dst = colon >= 0 ? body.slice(colon + 1) : body
      const deleting = deletes || (colon === 0 && dst !== '')
      if ((force || plus || deleting) && isProtected(dst || body))
        return `git push ${deleting ? 'deleting' : 'forcing'} protected branch ${dst || body}`
      if ((force || plus) && (dst === 'HEAD' || body === 'HEAD'))
        return 'git push --force of HEAD (the current branch may be protected)'
    }
    return undefined
  }
}

function forkBombs(script: ParsedScript): string | undefined {
  for (const fn of script.functions) {
    const calls = fn.body.commands.filter((c) => c.argv[0] === fn.name)
    if (calls.length === 0) continue
    if (calls.length >= 2 || calls.some((c) => c.background || c.stage > 0))
      return `fork bomb: function ${fn.name} spawns itself`
  }
  return undefined
}

/** The checks, by rule. */
function checks(options: ShellOptions): [ShellRule, Check][] {
  const all: [ShellRule, Check][] = [
    ['recursive-delete', recursiveDelete],
    ['disk-write', diskWrite],
    ['remote-code', remoteCode],
    ['permissions', permissions],
    ['force-push', forcePush(options.protectedBranches ?? DEFAULT_BRANCHES)],
  ]
  const off = new Set(options.disable ?? [])
  return all.filter(([rule]) => !off.has(rule))
}

/** Every destructive pattern in one command line (the finding spans the whole line). */
export function scanShell(text: string, options: ShellOptions = {}): Finding[] {
  return prepareShell(options)(text)
}

function prepareShell(options: ShellOptions): (text: string) => Finding[] {
  const rules = checks(options)
  const bombs = !options.disable?.includes('fork-bomb')
  return (text) => (text.length === 0 ? [] : scanWith(text, rules, bombs))
}

function scanWith(text: string, rules: readonly [ShellRule, Check][], bombs: boolean): Finding[] {
  const script = parseShell(text)
  const findings: Finding[] = []
  const found = (kind: string, detail: string) => {
    if (!findings.some((f) => f.kind === kind)) findings.push({ kind, start: 0, end: text.length, detail })
  }
  if (bombs) {
    const bomb = forkBombs(script)
    if (bomb) found('fork-bomb', bomb)
  }
  const runs = runCommands(script)
  for (const listed of runs) {
    const run = /[*?[]/.test(listed.name) ? globbedName(listed) : listed
    // Most commands are none of those the rules are about: skip them at once.
    if (!RULE_NAMES.has(run.name) && !run.name.startsWith('mkfs') && run.command.redirects.length === 0)
      continue
    for (const [rule, check] of rules) {
      const detail = check(run, runs)
      if (detail) found(rule, detail)
    }
  }
  return findings
}

/** The `shell` detector: destructive commands in shell command lines. */
export const shellDetector: Detector<ShellOptions> = {
  name: 'shell',
  summary: 'destructive shell commands, read as a shell would read them',
  options: optionsSchema,
  target: 'commands',
  redacts: false,
  prepare: prepareShell,
}
