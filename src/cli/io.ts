// How subcommands talk to the outside: output streams and stdin, injectable for tests.

import { readFile } from 'node:fs/promises'

/** The streams a subcommand uses. */
export interface CliIo {
  stdout(text: string): void
  stderr(text: string): void
  /** Reads all of stdin as text. */
  readStdin(): Promise<string>
  cwd: string
  env: NodeJS.ProcessEnv
  /** Whether stdout is a terminal (colour, progress); false or absent when piped. */
  isTTY?: boolean
  /** Whether stdin is a terminal (nothing to read unless typed); false or absent when piped. */
  stdinIsTTY?: boolean
  /** The terminal's width in columns, when it is one. */
  columns?: number
}

/** The real process streams. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readStdin: async () => {
      const chunks: Buffer[] = []
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
      return Buffer.concat(chunks).toString('utf8')
    },
    cwd: process.cwd(),
    env: process.env,
    isTTY: process.stdout.isTTY === true,
    stdinIsTTY: process.stdin.isTTY === true,
    ...(process.stdout.columns ? { columns: process.stdout.columns } : {}),
  }
}

/** Reads a file, or stdin when the path is "-" or missing. */
export async function readInput(path: string | undefined, io: CliIo): Promise<string> {
  if (path === undefined || path === '-') return io.readStdin()
  return readFile(path, 'utf8')
}
