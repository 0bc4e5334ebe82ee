// The shell detector's command policy: deny rules (in either mode) and, in allowlist mode,
// the commands that may run. Each command the reader found is judged on its own, wrappers
// that change who or where a program runs included; a command whose name the reader could
// not know, an `ask` rule's command, a program on no list and an output redirection to a
// file (unless allowed) are not allowed, each with a reason naming it.

import { type CommandWords, findRule, type RuleIndex, SAFE_BUILTINS } from './shell-allow.js'
import type { RunCommand } from './shell-commands.js'
import type { Redirect } from './shell-syntax.js'

/** The rules a hook was set up with. */
export interface Policy {
  /** Only commands on the allow list may run. */
  allowMode: boolean
  allow: RuleIndex
  /** Claude Code's `ask` rules: in allowlist mode their commands are not allowed. */
  ask: RuleIndex
  /** Commands that may never run, in either mode. */
  deny: RuleIndex
  /** Output redirections to files are allowed (allowlist mode). */
  redirects: boolean
}

type Found = (kind: string, detail: string) => void

const SHOWN = 80

function shown(run: RunCommand): string {
  const text = [run.program, ...run.args].join(' ')
  return text.length > SHOWN ? `${text.slice(0, SHOWN)}…` : text
}

function wordsOf(run: RunCommand, program: string): CommandWords {
  return {
    words: [program, ...run.args],
    dynamic: [run.dynamicName, ...run.dynamicArgs],
    open: run.argsFromStdin,
  }
}

/** Judges one command against the deny rules and, in allowlist mode, the allow list. */
export function judgeCommand(run: RunCommand, policy: Policy, found: Found): void {
  if (policy.deny.size > 0 && !run.dynamicName) {
    // Deny rules match the program as written and by its base name (`/bin/rm` is `rm`).
    const rule =
      findRule(policy.deny, run.program, wordsOf(run, run.program), run.script.reading) ??
      (run.name !== run.program
        ? findRule(policy.deny, run.name, wordsOf(run, run.name), run.script.reading)
        : undefined)
    if (rule) {
      found('denied-command', `\`${shown(run)}\` matches the deny rule ${rule.text}`)
      return
    }
  }
  if (!policy.allowMode || run.wrapper === 'transparent') return
  if (run.dynamicName) {
    found('unresolved', `a command name the shell reader cannot know (\`${shown(run)}\`)`)
    return
  }
  const command = wordsOf(run, run.program)
  const ask = findRule(policy.ask, run.program, command, run.script.reading)
  if (ask) {
    found('not-allowed', `\`${shown(run)}\` matches the ask rule ${ask.text}`)
    return
  }
  if (SAFE_BUILTINS.has(run.program) && run.wrapper === undefined) return
  if (!findRule(policy.allow, run.program, command, run.script.reading))
    found(
      'not-allowed',
      `\`${shown(run)}\` is not on the allow list${run.argsFromStdin ? ' (its arguments also come from its input)' : ''}`,
    )
}

/** Variables that change which program runs or what it loads: setting one is not allowed. */
const CODE_VARIABLES =
  /^(?:PATH|LD_\w+|DYLD_\w+|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|IFS|CDPATH|PYTHON(?:PATH|STARTUP|HOME|USERBASE)|NODE_(?:OPTIONS|PATH)|PERL5(?:LIB|OPT)|PERLLIB|RUBY(?:OPT|LIB)|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|GIT_(?:SSH|SSH_COMMAND|EXEC_PATH|EXTERNAL_DIFF|PAGER|EDITOR|ASKPASS|CONFIG\w*|PROXY_COMMAND|TEMPLATE_DIR)|PAGER|EDITOR|VISUAL|MANPAGER|LESSOPEN|LESSCLOSE|SSH_ASKPASS|SUDO_ASKPASS|BROWSER)$/

/**
 * In allowlist mode: setting a variable that decides which program runs or what it loads
 * (`PATH=.:$PATH git status`, `LD_PRELOAD=x.so ls`, `env GIT_SSH_COMMAND=… git fetch`).
 */
export function judgeAssignments(
  assigned: ReadonlySet<string>,
  runs: readonly RunCommand[],
  found: Found,
): void {
  const names = [...assigned]
  for (const run of runs)
    if (run.name === 'env')
      for (const arg of run.args) {
        const at = arg.indexOf('=')
        if (at > 0) names.push(arg.slice(0, at))
      }
  const risky = names.find((name) => CODE_VARIABLES.test(name))
  if (risky) found('not-allowed', `sets ${risky}, which changes which program runs or what it loads`)
}

const WRITES = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&'])
const HARMLESS = /^(?:\/dev\/(?:null|stdout|stderr|fd\/[12])|\d+|-)$/

/** In allowlist mode: an output redirection to a file is not allowed unless `allowRedirects`. */
export function judgeRedirects(redirects: readonly Redirect[], policy: Policy, found: Found): void {
  if (policy.redirects) return
  for (const redirect of redirects) {
    if (!WRITES.has(redirect.op) || HARMLESS.test(redirect.target)) continue
    const target = redirect.target.length > SHOWN ? `${redirect.target.slice(0, SHOWN)}…` : redirect.target
    found('not-allowed', `output redirected to ${target || 'a file'} (allowRedirects is off)`)
    return
  }
}
