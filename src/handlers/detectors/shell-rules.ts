// The destructive-shell rules, each a check of one command as it would run: recursive
// deletes of `/`, `~` or system folders (globs and the directory `cd` moved to included),
// writes to disks, downloaded, decoded or network-fed code run by a shell, recursive
// permission changes on system folders and force pushes to protected branches; and fork
// bombs, read from the script's functions.

import {
  baseName,
  INTERPRETERS,
  normalisePath,
  type RunCommand,
  runCommands,
  SHELLS,
} from './shell-commands.js'
import { compileGlob, hasGlob, matchGlob, starMatches } from './shell-glob.js'
import type { ParsedScript } from './shell-syntax.js'

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

/** What a check knows besides the command: every command of the line and the directory `cd` moved to. */
export interface CheckScope {
  all: readonly RunCommand[]
  /** The commands of the same pipeline as `run`, in order. */
  pipeline(run: RunCommand): readonly RunCommand[]
  /** The working directory at this command, when known (`cd /`, the event's `cwd`). */
  cwd: string | undefined
}

/** A rule's check: what it found in one command, or undefined. */
export type Check = (run: RunCommand, scope: CheckScope) => string | undefined

const SYSTEM_ROOTS = [
  ...'bin boot dev etc home lib lib32 lib64 opt proc root sbin srv sys usr var'.split(' '),
  ...'Applications Library System Users Volumes private snap'.split(' '),
]
const SYSTEM_ROOT_SET = new Set(SYSTEM_ROOTS)
const DISK =
  /^\/dev\/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d|md\d|dm-\d|mapper\/|loop\d|sr\d|nbd\d|disk\/|block\/|root$|mem$|kmem$|port$)/
const DISK_SAMPLES = [
  ...'sda hda vda xvda nvme0n1 mmcblk0 disk0 rdisk0 md0 dm-0 loop0 nbd0 mem'.split(' '),
  'disk/by-id/x',
].map((d) => `/dev/${d}`)
const DOWNLOADERS = new Set(
  'curl wget fetch aria2c nc ncat netcat lwp-download http xh socat telnet ssh'.split(' '),
)
const NETWORK = /^\/dev\/(?:tcp|udp)\//
const STDIN = new Set(['-', '/dev/stdin', '/dev/fd/0', '/proc/self/fd/0'])

/** A path with the directory it is relative to applied (absolute and home paths stay). */
export function inDirectory(cwd: string | undefined, path: string): string {
  if (cwd === undefined || path.startsWith('/') || path.startsWith('~') || path.startsWith('$')) return path
  return `${cwd}/${path}`
}

/**
 * True for a path whose recursive deletion or opening up would wreck the machine or a
 * home folder: `/`, `~`, a top-level system folder or one level under it (`/usr/lib`,
 * `/home/alice`), or a glob that matches one (`/e*c`, `/et?`, `/[e]tc`).
 */
export function isCriticalPath(path: string): boolean {
  const p = normalisePath(path)
  if (p === '/' || p === '~' || p === '/*') return true
  if (!p.startsWith('/')) return false
  const parts = p.slice(1).split('/')
  if (parts.length > 2) return false
  const top = parts[0] as string
  if (hasGlob(top)) {
    const glob = compileGlob(top)
    return SYSTEM_ROOTS.some((root) => matchGlob(glob, root))
  }
  if (top === 'tmp' || (top === 'var' && parts[1] === 'tmp')) return false
  return SYSTEM_ROOT_SET.has(top)
}

/** True for a disk or memory device, or a glob that matches one (`/dev/sd?`). */
export function isDisk(path: string): boolean {
  const p = path.startsWith('/dev/') ? path : normalisePath(path)
  if (DISK.test(p)) return true
  if (!hasGlob(p)) return false
  const glob = compileGlob(p)
  return DISK_SAMPLES.some((d) => matchGlob(glob, d))
}

function flagsOf(args: readonly string[]): { flags: Set<string>; long: Set<string>; operands: string[] } {
  const flags = new Set<string>()
  const long = new Set<string>()
  const operands: string[] = []
  let options = true
  for (const arg of args) {
    if (options && arg === '--') options = false
    else if (options && arg.startsWith('--')) long.add(arg.split('=')[0] as string)
    else if (options && arg.startsWith('-') && arg.length > 1) for (const f of arg.slice(1, 64)) flags.add(f)
    else operands.push(arg)
  }
  return { flags, long, operands }
}

const DISK_TOOLS =
  /^(mkfs(\..+)?|mke2fs|mkswap|wipefs|blkdiscard|shred|fdisk|sfdisk|sgdisk|parted|cryptsetup|badblocks|ddrescue)$/

/** The programs some rule looks at (`mkfs.*` besides); others matter only for their redirections. */
export const RULE_NAMES = new Set([
  ...'rm rmdir unlink find dd mke2fs mkswap wipefs blkdiscard shred fdisk sfdisk sgdisk parted chmod chown chgrp setfacl git eval'.split(
    ' ',
  ),
  ...'cp mv install tee cryptsetup badblocks ddrescue socat nc ncat netcat openssl'.split(' '),
  ...INTERPRETERS,
])

/**
 * A command whose name is a glob (`/bin/r? -rf /`) runs whatever the glob matches: taken as
 * the first program a rule looks at that it could match (fail closed).
 */
export function globbedName(run: RunCommand): RunCommand {
  if (!hasGlob(run.name)) return run
  const glob = compileGlob(run.name)
  for (const name of RULE_NAMES) if (matchGlob(glob, name)) return { ...run, name }
  return run
}

function recursiveDelete(run: RunCommand, scope: CheckScope): string | undefined {
  if (run.name === 'rm' || run.name === 'rmdir' || run.name === 'unlink') {
    const { flags, long, operands } = flagsOf(run.args)
    if (long.has('--no-preserve-root')) return 'rm --no-preserve-root'
    const recursive = flags.has('r') || flags.has('R') || long.has('--recursive')
    if (!recursive) return undefined
    for (const operand of operands) {
      const target = inDirectory(scope.cwd, operand)
      if (isCriticalPath(target)) return `rm -r on ${normalisePath(target)}`
    }
    return undefined
  }
  if (run.name === 'find') {
    const starts: string[] = []
    for (const arg of run.args) {
      if (arg.startsWith('-') || arg === '(' || arg === '!') break
      starts.push(inDirectory(scope.cwd, arg))
    }
    if (starts.length === 0 && scope.cwd !== undefined) starts.push(scope.cwd)
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
  const { name, args } = run
  if (name === 'dd') {
    const of = args.find((a) => a.startsWith('of='))
    if (of && isDisk(of.slice(3))) return `dd writing to ${of.slice(3)}`
  }
  // `fdisk -l`, `parted /dev/sda print`, `cryptsetup status` and `badblocks` without -w/-n only read.
  const reads =
    args.some((a) => /^(-l|--list|print|status|luksDump|isLuks)$/.test(a)) ||
    (name === 'badblocks' && !args.some((a) => /^-[a-zA-Z]*[wn]/.test(a)))
  if (DISK_TOOLS.test(name) && !reads) {
    const device = args.find(isDisk)
    if (device) return `${name} on ${device}`
  }
  if (name === 'cp' || name === 'mv' || name === 'install') {
    const { operands } = flagsOf(args)
    const target = operands[operands.length - 1]
    if (operands.length >= 2 && target !== undefined && isDisk(target)) return `${name} onto ${target}`
  }
  if (name === 'tee') {
    const device = flagsOf(args).operands.find(isDisk)
    if (device) return `tee writing to ${device}`
  }
  for (const redirect of run.command.redirects)
    if (/^(>|>>|>\||&>|&>>|<>)$/.test(redirect.op) && isDisk(redirect.target))
      return `output redirected to ${redirect.target}`
  return undefined
}

function fetches(script: ParsedScript): boolean {
  return runCommands(script, 1).some((r) => DOWNLOADERS.has(r.name) || readsNetwork(r))
}

function readsNetwork(run: RunCommand): boolean {
  return run.command.redirects.some((r) => NETWORK.test(r.target))
}

/** What makes a command's output code from elsewhere: a download, a socket, a decoder. */
function feeds(run: RunCommand): string | undefined {
  const { name, args } = run
  if (DOWNLOADERS.has(name)) return `${name} piped into`
  if (readsNetwork(run)) return 'a network connection (/dev/tcp) piped into'
  const decoding = args.some((a) => /^(-d|-D|--decode)$/.test(a))
  if (/^(base64|base32|basenc)$/.test(name) && decoding) return 'decoded text piped into'
  if (name === 'openssl' && (decoding || args.includes('s_client'))) return 'openssl output piped into'
  if (name === 'xxd' && args.includes('-r')) return 'decoded text piped into'
  if (/^(uudecode|gunzip|zcat|bzcat|xzcat|unxz|rev)$/.test(name)) return 'decoded text piped into'
  if (/^(gzip|bzip2|xz)$/.test(name) && decoding) return 'decompressed text piped into'
  return undefined
}

function remoteCode(run: RunCommand, scope: CheckScope): string | undefined {
  const { name, args } = run
  // A socket handing a shell over: `socat … EXEC:/bin/sh`, `nc -e /bin/sh`.
  if (name === 'socat' && args.some((a) => /^(exec|system):/i.test(a)))
    return 'socat running a program for a socket'
  if (/^(nc|ncat|netcat)$/.test(name) && args.some((a) => a === '-e' || a === '-c'))
    return `${name} running a program for a socket`
  const isShell = INTERPRETERS.has(name) || name === 'eval'
  if (!isShell) return undefined
  if (readsNetwork(run)) return `${name} connected to a network socket`
  if (run.command.substitutions.some(fetches)) return `${name} runs code it downloads`
  if (run.command.stage === 0) return undefined
  // A shell reading its script from a pipe: what feeds it?
  const { operands } = flagsOf(args)
  const fromStdin = operands.length === 0 || STDIN.has(operands[0] as string)
  if (name !== 'eval' && !fromStdin && !SHELLS.has(name)) return undefined
  for (const before of scope.pipeline(run)) {
    if (before.command.stage >= run.command.stage) break
    const feeding = feeds(before)
    if (feeding) return `${feeding} ${name}`
  }
  return undefined
}

function permissions(run: RunCommand, scope: CheckScope): string | undefined {
  if (!/^(chmod|chown|chgrp|setfacl)$/.test(run.name)) return undefined
  const { flags, long, operands } = flagsOf(run.args)
  const recursive = flags.has('R') || long.has('--recursive')
  const [first, ...rest] = operands
  const targets = (run.name === 'setfacl' ? operands : rest).map((t) => inDirectory(scope.cwd, t))
  const target = targets.find(isCriticalPath)
  if (target === undefined) return undefined
  const worldWritable =
    run.name === 'chmod' && /^(0?[0-7]?[2367][2367][2367]|[ugoa]*\+[rwxX]*w|a=rwx)/.test(first ?? '')
  if (recursive || worldWritable)
    return `${run.name}${recursive ? ' -R' : ''} ${first ?? ''} on ${normalisePath(target)}`
  return undefined
}

function forcePush(branches: readonly string[]): Check {
  const isProtected = (ref: string) => {
    const name = ref.replace(/^refs\/heads\//, '')
    return branches.some((b) => starMatches(b, name))
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

/** A function that runs itself twice, in a pipeline or in the background. */
export function forkBomb(script: ParsedScript): string | undefined {
  for (const fn of script.functions) {
    const calls = fn.body.commands.filter((c) => c.argv[0] === fn.name)
    if (calls.length === 0) continue
    if (calls.length >= 2 || calls.some((c) => c.background || c.stage > 0))
      return `fork bomb: function ${fn.name} spawns itself`
  }
  return undefined
}

/** The checks of the rules switched on, by rule. */
export function ruleChecks(
  protectedBranches: readonly string[],
  off: ReadonlySet<string>,
): [ShellRule, Check][] {
  const all: [ShellRule, Check][] = [
    ['recursive-delete', recursiveDelete],
    ['disk-write', diskWrite],
    ['remote-code', remoteCode],
    ['permissions', permissions],
    ['force-push', forcePush(protectedBranches)],
  ]
  return all.filter(([rule]) => !off.has(rule))
}
