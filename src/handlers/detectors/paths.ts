// The protected-paths detector: file paths a tool would read or write that hold secrets or
// the system's configuration (`.env`, `~/.ssh`, cloud credentials, `/etc`, mounted service
// account tokens). Paths are resolved first (`~`, `$HOME`, `/root`, `..`, `//`, `./`, the
// event's `cwd`, `cd` earlier in the command, `/proc/self/root`), so `/tmp/../etc/shadow` and
// `$HOME/.ssh/id_rsa` are what they are; globs (`~/.s*/i*`, `.en[v]`) are checked for every
// path they could match; shell commands are read as a shell would, so every word and
// redirection target of `cat ~/.ssh/id_rsa > x` counts. `mode: allow` with `roots` is the
// strict form: a path outside the roots, or one that cannot be resolved, is not allowed.

import { z } from 'zod'
import { bounded } from './budget.js'
import { type PathCheck, pathChecker } from './paths-check.js'

export { compilePathGlob } from './paths-glob.js'

import { runCommands } from './shell-commands.js'
import { parseShell, SHELL_LIMITS } from './shell-parse.js'
import type { Detector, Finding, ScanContext } from './types.js'

/** The paths protected by default (globs: `**` any depth, `*` within a segment). */
export const DEFAULT_PROTECTED_PATHS = [
  '.env',
  '.env.*',
  '~/.ssh/**',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
  '~/.aws/**',
  '~/.config/gcloud/**',
  'application_default_credentials.json',
  '~/.azure/**',
  '~/.kube/config',
  '~/.docker/config.json',
  '~/.netrc',
  '~/.npmrc',
  '~/.pypirc',
  '~/.git-credentials',
  '~/.config/gh/hosts.yml',
  '~/.gnupg/**',
  '*.pem',
  '*.p12',
  '*.pfx',
  '*.jks',
  '/etc/**',
  '/var/run/secrets/**',
  '/run/secrets/**',
  '/proc/*/environ',
  '/proc/*/mem',
  '/proc/kcore',
  '/dev/mem',
]

/** Exceptions allowed by default: templates of `.env` files and public keys. */
export const DEFAULT_ALLOWED_PATHS = ['.env.example', '.env.sample', '.env.template', '.env.dist', '*.pub']

const optionsSchema = z
  .object({
    paths: z.array(z.string().min(1).max(1024)).max(500).optional(),
    extraPaths: z.array(z.string().min(1).max(1024)).max(500).optional(),
    allow: z.array(z.string().min(1).max(1024)).max(500).optional(),
    mode: z.enum(['deny', 'allow'], { error: 'must be "deny" or "allow"' }).optional(),
    roots: z
      .array(z.string().min(1).max(1024), {
        error: 'must be a list of folders such as "~/project", "/srv/app" or "." (the working folder)',
      })
      .max(100)
      .optional(),
  })
  .strict()
  .refine((o) => o.mode !== 'allow' || o.roots !== undefined, {
    message: 'mode "allow" needs the roots paths may stay under (an empty list allows none)',
    path: ['roots'],
  })

/** Options of the protected-paths detector. */
export type PathsOptions = z.infer<typeof optionsSchema>

/** Keys of tool inputs whose values are shell command lines. */
export const COMMAND_KEYS = new Set([
  'command',
  'cmd',
  'script',
  'commandLine',
  'command_line',
  'shell',
  'bash',
])

/** A word of a command and the folder it is read in (after `cd` earlier in the line). */
interface CommandWord {
  word: string
  cwd: string | undefined
}

function candidateWords(command: string, cwd: string | undefined): CommandWord[] {
  const words: CommandWord[] = []
  let here = cwd
  for (const run of runCommands(parseShell(command))) {
    if ((run.name === 'cd' || run.name === 'pushd') && run.command.substitutions.length === 0) {
      const target = run.args.find((a) => !a.startsWith('-'))
      here = target === undefined ? '~' : target === '-' ? undefined : resolveFolder(target, here)
      continue
    }
    for (const arg of run.args) {
      words.push({ word: arg, cwd: here })
      const eq = arg.indexOf('=')
      if (eq > 0) words.push({ word: arg.slice(eq + 1), cwd: here })
    }
    for (const redirect of run.command.redirects) words.push({ word: redirect.target, cwd: here })
  }
  return words
}

/** The folder `cd target` lands in, or undefined when it cannot be known. */
function resolveFolder(target: string, cwd: string | undefined): string | undefined {
  if (/[$`*?[]/.test(target)) return undefined
  if (target.startsWith('/') || target.startsWith('~')) return target
  return cwd ? `${cwd}/${target}` : undefined
}

function preparePaths(
  options: PathsOptions,
): (text: string, key?: string, context?: ScanContext) => Finding[] {
  const protectedGlobs = [...(options.paths ?? DEFAULT_PROTECTED_PATHS), ...(options.extraPaths ?? [])]
  const checker = pathChecker({
    protectedGlobs,
    allowed: options.allow ?? DEFAULT_ALLOWED_PATHS,
    roots: options.mode === 'allow' ? (options.roots ?? []) : undefined,
  })
  return bounded(
    'paths',
    (text, budget, key, context) => {
      const cwd = context?.cwd
      const finding = (check: PathCheck): Finding[] => [
        { kind: check.kind, start: 0, end: text.length, detail: check.detail },
      ]
      if (key === undefined || !COMMAND_KEYS.has(key)) {
        if (text.length > 4096) return []
        const check = checker.check(text, { cwd, dotglob: false, command: false }, budget)
        return check ? finding(check) : []
      }
      if (text.length > SHELL_LIMITS.maxChars)
        return [
          {
            kind: 'scan-limit',
            start: 0,
            end: text.length,
            detail: `paths detector did not read a command of ${text.length} characters, more than ${SHELL_LIMITS.maxChars}`,
          },
        ]
      const dotglob = /dotglob|globdots|GLOBIGNORE|\(D\)/.test(text)
      const dynamic = /\$\(|`/.test(text)
      for (const { word, cwd: here } of candidateWords(text, cwd)) {
        if (budget.exhausted) break
        if (word === '' && dynamic && checker.strict)
          return finding({
            kind: 'path-outside-roots',
            detail: 'a word made by a command substitution (mode: allow)',
          })
        const check = checker.check(word, { cwd: here, dotglob, command: true }, budget)
        if (check) return finding(check)
      }
      return []
    },
    PATHS_WORK_PER_CHAR,
  )
}

/** Paths test every word against each protected glob, and globs segment by segment. */
const PATHS_WORK_PER_CHAR = 1024

/** Protected paths in one path (or, for a command key, in one command line). */
export function scanPaths(
  text: string,
  options: PathsOptions = {},
  key?: string,
  context?: ScanContext,
): Finding[] {
  return preparePaths(options)(text, key, context)
}

/** The `paths` detector. */
export const pathsDetector: Detector<PathsOptions> = {
  name: 'paths',
  summary:
    'protected files and folders (.env, ~/.ssh, cloud credentials, /etc), paths and globs resolved; roots in mode allow',
  options: optionsSchema,
  target: 'paths',
  redacts: false,
  prepare: preparePaths,
}
