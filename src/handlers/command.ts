// The `command` handler: runs a program per event with the Claude Code hook contract.
// No shell unless asked for; the environment emptied but for PATH, HOME and an allowlist;
// the event as JSON on stdin; exit 0 = allow unless stdout JSON says otherwise, exit 2 =
// deny with stderr as the reason, anything else = error. With `dialect: loom` the program
// reads loom's context on stdin and is read as loom reads it. A timeout or abort kills the
// whole process group; stdout and stderr are capped without stalling the child.

import { spawn } from 'node:child_process'
import { isAbsolute, resolve } from 'node:path'
import shellQuote from 'shell-quote'
import { z } from 'zod'
import {
  formatZodError,
  type HandlerFactory,
  type HookCall,
  type HookSpec,
  parseHookOutput,
  toClaudeInput,
  WardenError,
} from '../core/index.js'
import { fromLoom } from './fn.js'
import { loomWireContext } from './loom-context.js'

/** Bytes kept of each of stdout and stderr. */
export const OUTPUT_CAP_BYTES = 1024 * 1024

/** Bytes of each of stdout and stderr a dry run reports. */
export const DETAIL_CAP_BYTES = 64 * 1024

const configSchema = z
  .object({
    type: z.literal('command'),
    command: z
      .string({ error: 'is required: the program to run, e.g. "./hooks/check.sh"' })
      .min(1, 'must not be empty'),
    args: z.array(z.string(), { error: 'must be a list of strings' }).optional(),
    shell: z.boolean({ error: 'must be true or false' }).optional(),
    env: z
      .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be environment variable names'), {
        error: 'must be a list of variable names',
      })
      .optional(),
    cwd: z.string().optional(),
    /** Folder that relative command paths and cwd resolve against (set by config loaders). */
    baseDir: z.string().optional(),
    /** `loom`: read the process as loom does (any non-zero exit blocks, `output` is shown to the model). */
    dialect: z.enum(['warden', 'loom'], { error: 'must be "warden" or "loom"' }).optional(),
    /** `false`: the program may not rewrite the event (a modify is dropped, as loom does for profiles). */
    rewrite: z.boolean({ error: 'must be true or false' }).optional(),
  })
  .strict()

export type CommandConfig = z.infer<typeof configSchema>

/** What a program wrote, each stream capped. */
export interface ProcessOutput {
  stdout: string
  stderr: string
  stdoutTruncated: boolean
  stderrTruncated: boolean
}

/** What running the program produced. */
export interface ProcessResult extends ProcessOutput {
  code: number | null
  signal: NodeJS.Signals | null
}

/** Splits a command line like a shell would, refusing shell operators. */
export function splitCommand(command: string, hookName: string): string[] {
  const parts = shellQuote.parse(command, (name) => `$${name}`)
  const words: string[] = []
  for (const part of parts) {
    if (typeof part !== 'string') {
      const op = 'op' in part ? part.op : 'comment' in part ? '#' : '?'
      throw new WardenError(
        'invalid-hook',
        `hook "${hookName}": handler.command uses the shell operator "${op}"; set shell: true to run it through /bin/sh, or use args`,
      )
    }
    words.push(part)
  }
  if (words.length === 0)
    throw new WardenError('invalid-hook', `hook "${hookName}": handler.command is empty`)
  return words
}

function resolveProgram(program: string, baseDir: string | undefined): string {
  if (baseDir && !isAbsolute(program) && (program.startsWith('./') || program.startsWith('../'))) {
    return resolve(baseDir, program)
  }
  return program
}

/** Builds the child's environment: PATH, HOME and the allowlisted variables only. */
export function hookEnvironment(
  allow: readonly string[] = [],
  source: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const name of ['PATH', 'HOME', ...allow]) {
    const value = source[name]
    if (value !== undefined) env[name] = value
  }
  return env
}

/** How {@link runProcess} is told to stop: an AbortSignal, or a hook call's `onAbort`. */
export interface ProcessOptions {
  input: string
  env: NodeJS.ProcessEnv
  cwd?: string
  signal?: AbortSignal
  /** Used instead of `signal` when given (no AbortSignal needs to exist). */
  onAbort?: (listener: () => void) => () => void
  /** Told, when aborted, what the program wrote so far (before its process group is killed). */
  onAbortOutput?: (output: ProcessOutput) => void
  cap?: number
}

/**
 * Spawns a program in its own process group, writes `input` to its stdin, and collects
 * capped output. Resolves when the process has exited and its pipes closed; on abort, the
 * whole group is killed.
 */
export function runProcess(file: string, args: string[], options: ProcessOptions): Promise<ProcessResult> {
  const cap = options.cap ?? OUTPUT_CAP_BYTES
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const out = collector(cap)
    const err = collector(cap)
    let settled = false
    const killGroup = () => {
      if (child.pid === undefined) return
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {
        // the group is already gone
      }
    }
    const onAbort = () => {
      if (options.onAbortOutput && !settled) {
        options.onAbortOutput({
          stdout: out.text(),
          stderr: err.text(),
          stdoutTruncated: out.truncated(),
          stderrTruncated: err.truncated(),
        })
      }
      killGroup()
    }
    const signal = options.onAbort ? undefined : options.signal
    const off = options.onAbort?.(onAbort)
    signal?.addEventListener('abort', onAbort, { once: true })
    if (signal?.aborted) killGroup()
    const stopListening = () => {
      off?.()
      signal?.removeEventListener('abort', onAbort)
    }
    child.stdout.on('data', out.push)
    child.stderr.on('data', err.push)
    child.stdin.on('error', () => undefined)
    child.on('error', (error) => {
      if (settled) return
      settled = true
      stopListening()
      reject(new Error(`could not start ${file}: ${error.message}`))
    })
    child.on('exit', () => {
      // Descendants left behind would hold the pipes open: end the whole group.
      killGroup()
    })
    child.on('close', (code, signal) => {
      if (settled) return
      settled = true
      stopListening()
      resolvePromise({
        code,
        signal,
        stdout: out.text(),
        stderr: err.text(),
        stdoutTruncated: out.truncated(),
        stderrTruncated: err.truncated(),
      })
    })
    child.stdin.end(options.input)
  })
}

function collector(cap: number) {
  const chunks: Buffer[] = []
  let size = 0
  let over = false
  return {
    push: (chunk: Buffer) => {
      if (size >= cap) {
        over = true
        return
      }
      const room = cap - size
      if (chunk.length > room) over = true
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk
      chunks.push(kept)
      size += kept.length
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
    truncated: () => over,
  }
}

/** Interprets a finished process per the command-hook contract. */
export function interpretProcess(
  result: ProcessResult,
  call: Pick<HookCall, 'event' | 'hook'>,
  dialect: 'warden' | 'loom' = 'warden',
): unknown {
  const stderr = result.stderr.trim()
  if (result.signal)
    throw new Error(`the command was killed by ${result.signal}${stderr ? `: ${stderr.slice(0, 500)}` : ''}`)
  const stdout = result.stdout.trim()
  if (result.code === 2 || (dialect === 'loom' && result.code !== 0 && !stdout.startsWith('{'))) {
    const reason = stderr.slice(0, 2000) || `the command exited with code ${result.code}`
    if (dialect === 'loom' && stdout)
      return fromLoom({ continue: false, reason, output: stdout.slice(0, 2000) }, call)
    return { type: 'deny', reason }
  }
  if (result.code !== 0 && dialect !== 'loom') {
    throw new Error(`the command exited with code ${result.code}${stderr ? `: ${stderr.slice(0, 500)}` : ''}`)
  }
  if (!stdout.startsWith('{')) {
    // loom shows a command's plain stdout to the model as its output.
    if (dialect === 'loom' && stdout) return fromLoom({ continue: true, output: stdout.slice(0, 2000) }, call)
    return { type: 'allow' }
  }
  if (result.stdoutTruncated) throw new Error(`the command's JSON output exceeded ${OUTPUT_CAP_BYTES} bytes`)
  let parsed: unknown
  try {
    parsed = JSON.parse(stdout)
  } catch (error) {
    throw new Error(`the command printed invalid JSON: ${(error as Error).message}`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('the command printed JSON that is not an object')
  if (dialect === 'loom') {
    const loom = fromLoom(parsed, call)
    if (loom !== parsed) return loom
  }
  const verdict = parseHookOutput(parsed as Record<string, never>, call.event)
  if ('error' in verdict) throw new Error(`the command's output is not a valid decision: ${verdict.error}`)
  return verdict.verdict
}

function noop(): void {}

/** Reports a process's exit and output to a dry run, each stream cut to {@link DETAIL_CAP_BYTES}. */
function reportProcess(
  call: HookCall,
  exit: Pick<ProcessResult, 'code' | 'signal'> | undefined,
  output: ProcessOutput,
): void {
  const stdout = capBytes(output.stdout, DETAIL_CAP_BYTES)
  const stderr = capBytes(output.stderr, DETAIL_CAP_BYTES)
  const info: Record<string, unknown> = exit ? { exitCode: exit.code, signal: exit.signal } : {}
  info.stdout = stdout
  info.stderr = stderr
  if (output.stdoutTruncated || stdout.length < output.stdout.length) info.stdoutTruncated = true
  if (output.stderrTruncated || stderr.length < output.stderr.length) info.stderrTruncated = true
  call.detail?.(info)
}

/** The text cut to at most `max` UTF-8 bytes (never in the middle of a character). */
function capBytes(text: string, max: number): string {
  if (text.length <= max / 3 || Buffer.byteLength(text) <= max) return text
  return Buffer.from(text)
    .subarray(0, max)
    .toString('utf8')
    .replace(/\uFFFD$/, '')
}

/** `handler: { type: command, command, args?, shell?, env?, cwd? }`. */
export const commandHandler: HandlerFactory = {
  type: 'command',
  prepare(config, hook: HookSpec) {
    const parsed = configSchema.safeParse(config)
    if (!parsed.success)
      throw new WardenError('invalid-hook', formatZodError(parsed.error, `hook "${hook.name}": handler`))
    const c = parsed.data
    let file: string
    let args: string[]
    if (c.shell) {
      if (c.args)
        throw new WardenError(
          'invalid-hook',
          `hook "${hook.name}": handler.args cannot be used with shell: true; put the whole line in command`,
        )
      file = '/bin/sh'
      args = ['-c', c.command]
    } else if (c.args) {
      file = resolveProgram(c.command, c.baseDir)
      args = c.args
    } else {
      const words = splitCommand(c.command, hook.name)
      file = resolveProgram(words[0] as string, c.baseDir)
      args = words.slice(1)
    }
    const cwd = c.cwd ? (c.baseDir ? resolve(c.baseDir, c.cwd) : c.cwd) : c.baseDir
    const env = hookEnvironment(c.env)
    const stdinOf = c.dialect === 'loom' ? loomWireContext : toClaudeInput
    return async (call) => {
      const input = JSON.stringify(stdinOf(call.event))
      const result = await runProcess(file, args, {
        input,
        env,
        ...(call.onAbort
          ? { onAbort: (listener) => call.onAbort?.(listener) ?? noop }
          : { signal: call.signal }),
        ...(cwd ? { cwd } : {}),
        ...(call.detail
          ? { onAbortOutput: (output: ProcessOutput) => reportProcess(call, undefined, output) }
          : {}),
      })
      if (call.detail) reportProcess(call, result, result)
      call.meta?.({
        stdoutBytes: Buffer.byteLength(result.stdout),
        ...(result.code !== null ? { exitCode: result.code } : {}),
      })
      if (result.stderr.trim() && result.code === 0) call.log(`stderr: ${result.stderr.trim().slice(0, 500)}`)
      const verdict = interpretProcess(result, call, c.dialect)
      return c.rewrite === false ? withoutRewrite(verdict, call) : verdict
    }
  },
}

/**
 * A hook that may not rewrite (loom's rule for profile `command` actions): a modify is
 * dropped — recorded in the trace, the action goes ahead unchanged — and its context kept.
 */
function withoutRewrite(verdict: unknown, call: HookCall): unknown {
  const answer = verdict as { type?: unknown; additionalContext?: unknown; reason?: unknown }
  if (answer?.type !== 'modify') return verdict
  const note = `hook "${call.hook.name}" may not rewrite the ${call.event.event} payload (profile command actions observe, guard and ask; they never rewrite): the rewrite was dropped`
  call.log(note)
  return {
    type: 'allow',
    reason: note,
    ...(Array.isArray(answer.additionalContext) ? { additionalContext: answer.additionalContext } : {}),
  }
}
