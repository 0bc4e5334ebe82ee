// Starts the real `warden llm` CLI (from source) as a child process and waits for the
// address it listens on.

import { type ChildProcess, spawn } from 'node:child_process'
import { cliArgs, ROOT } from '../helpers/cli.js'

/** A running `warden llm`. */
export interface WardenLlm {
  url: string
  stderr(): string
  stop(): Promise<void>
}

/** Starts `warden llm ARGS`; rejects with its stderr if it exits before listening. */
export function startWardenLlm(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<WardenLlm> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, cliArgs(['llm', ...args]), {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stderr?.on('data', (d) => {
      stderr += d
    })
    child.stdout?.on('data', (d) => {
      stdout += d
      const match = /listening on (http:\/\/\S+?)\/?,/.exec(stdout)
      if (match)
        resolve({
          url: match[1] as string,
          stderr: () => stderr,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done()
              child.once('exit', () => done())
              child.kill('SIGTERM')
            }),
        })
    })
    child.once('exit', (code) => reject(new Error(`warden llm exited ${code}: ${stderr}`)))
  })
}
