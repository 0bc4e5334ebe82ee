// The protected-paths detector: file paths a tool would read or write that hold secrets or
// the system's configuration (`.env`, `~/.ssh`, cloud credentials, `/etc`, mounted service
// account tokens). Paths are normalised first (`~`, `$HOME`, `/root`, `..`, `//`, `./`), so
// `/tmp/../etc/shadow` and `$HOME/.ssh/id_rsa` are what they are; shell commands are read as
// a shell would, so every word and redirection target of `cat ~/.ssh/id_rsa > x` counts.

import { z } from 'zod'
import { normalisePath, runCommands } from './shell-commands.js'
import { parseShell } from './shell-parse.js'
import type { Detector, Finding } from './types.js'

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
]

/** Exceptions allowed by default: templates of `.env` files and public keys. */
export const DEFAULT_ALLOWED_PATHS = ['.env.example', '.env.sample', '.env.template', '.env.dist', '*.pub']

const optionsSchema = z
  .object({
    paths: z.array(z.string().min(1).max(1024)).max(500).optional(),
    extraPaths: z.array(z.string().min(1).max(1024)).max(500).optional(),
    allow: z.array(z.string().min(1).max(1024)).max(500).optional(),
  })
  .strict()

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

/**
 * Compiles a path glob: `/…` is anchored at the root; any other glob matches the end of a
 * path at a segment boundary (`~/.ssh/**` also matches `/home/ann/.ssh/id_rsa`); a
 * trailing `/**` matches the folder itself too. Case-insensitive (macOS, Windows).
 */
export function compilePathGlob(glob: string): RegExp {
  const absolute = glob.startsWith('/')
  let body = glob.replace(/^~\//, '').replace(/^\/+/, '')
  const subtree = body.endsWith('/**')
  if (subtree) body = body.slice(0, -3)
  let source = ''
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string
    if (c === '*' && body[i + 1] === '*') {
      source += '.*'
      i++
    } else if (c === '*') source += '[^/]*'
    else if (c === '?') source += '[^/]'
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`${absolute ? '^/' : '(?:^|/)'}${source}${subtree ? '(?:/.*)?' : ''}$`, 'i')
}

function candidateWords(command: string): string[] {
  const words: string[] = []
  for (const run of runCommands(parseShell(command))) {
    for (const arg of run.args) {
      words.push(arg)
      const eq = arg.indexOf('=')
      if (eq > 0) words.push(arg.slice(eq + 1))
    }
    for (const redirect of run.command.redirects) words.push(redirect.target)
  }
  return words
}

function preparePaths(options: PathsOptions): (text: string, key?: string) => Finding[] {
  const protectedGlobs = [...(options.paths ?? DEFAULT_PROTECTED_PATHS), ...(options.extraPaths ?? [])]
  const rules = protectedGlobs.map((glob) => ({ glob, re: compilePathGlob(glob) }))
  const allowed = (options.allow ?? DEFAULT_ALLOWED_PATHS).map(compilePathGlob)
  const check = (path: string): string | undefined => {
    if (path.length === 0 || path.length > 4096) return undefined
    const normal = normalisePath(path.replace(/^file:\/\//, ''))
    if (allowed.some((re) => re.test(normal))) return undefined
    const rule = rules.find((r) => r.re.test(normal))
    return rule ? `${normal} (protected by ${rule.glob})` : undefined
  }
  return (text, key) => {
    const words = key !== undefined && COMMAND_KEYS.has(key) ? candidateWords(text) : [text]
    for (const word of words) {
      const detail = check(word)
      if (detail) return [{ kind: 'protected-path', start: 0, end: text.length, detail }]
    }
    return []
  }
}

/** Protected paths in one path (or, for a command key, in one command line). */
export function scanPaths(text: string, options: PathsOptions = {}, key?: string): Finding[] {
  return preparePaths(options)(text, key)
}

/** The `paths` detector. */
export const pathsDetector: Detector<PathsOptions> = {
  name: 'paths',
  summary: 'protected files and folders (.env, ~/.ssh, cloud credentials, /etc), paths normalised',
  options: optionsSchema,
  target: 'paths',
  redacts: false,
  prepare: preparePaths,
}
