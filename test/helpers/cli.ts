// Runs the real `warden` CLI from source in a child process and collects its output.

import { spawn } from 'node:child_process'
import { fileURLToPath, pathToFileURL } from 'node:url'

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** What a CLI run produced. */
export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Arguments that start the CLI from source with node. tsx is named by its path, so the
 * CLI also starts with a working folder outside the repository.
 */
export function cliArgs(args: string[]): string[] {
  return [
    '--import',
    pathToFileURL(`${ROOT}node_modules/tsx/dist/loader.mjs`).href,
    `${ROOT}src/cli/run.ts`,
    ...args,
  ]
}

/** Runs `warden ARGS` with optional stdin and returns exit code and output. */
export function runCli(
  args: string[],
  options: { stdin?: string; cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cliArgs(args), {
      cwd: options.cwd ?? ROOT,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => {
      stdout += d
    })
    child.stderr.on('data', (d) => {
      stderr += d
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
    child.stdin.end(options.stdin ?? '')
  })
}

/**
 * Runs `warden ARGS` in this process (no child, no module loading per run) with optional
 * stdin; returns exit code and output as {@link runCli} does.
 */
export async function runCliInProcess(
  args: string[],
  options: { stdin?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliRun> {
  const { main } = await import('../../src/cli/index.js')
  const run: CliRun = { code: null, stdout: '', stderr: '' }
  run.code = await main(args, {
    stdout: (text) => {
      run.stdout += text
    },
    stderr: (text) => {
      run.stderr += text
    },
    readStdin: async () => options.stdin ?? '',
    cwd: options.cwd ?? ROOT,
    env: options.env ?? { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  })
  return run
}
