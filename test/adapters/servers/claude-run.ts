// Runs the real Claude Agent SDK (and the Claude Code binary it drives) against the local
// Messages server, in a throwaway home and working directory, and collects what came back.

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Options, query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk'

/** A scratch directory with a home inside; removed by `cleanup`. */
export interface Scratch {
  dir: string
  home: string
  cleanup(): void
}

/** Makes a scratch working directory and home. */
export function scratch(): Scratch {
  const dir = mkdtempSync(join(tmpdir(), 'warden-adapter-'))
  const home = join(dir, 'home')
  mkdirSync(home)
  return { dir, home, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** The environment that points Claude Code at the local server, offline. */
export function offlineEnv(baseUrl: string, home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-test',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
  }
}

/** Runs one prompt through `query()` and returns every message and the final result text. */
export async function runClaude(
  prompt: string,
  baseUrl: string,
  where: Scratch,
  options: Partial<Options> = {},
): Promise<{ messages: SDKMessage[]; result: string; stderr: string }> {
  const messages: SDKMessage[] = []
  let stderr = ''
  const run = query({
    prompt,
    options: {
      cwd: where.dir,
      env: offlineEnv(baseUrl, where.home),
      model: 'claude-sonnet-4-5',
      settingSources: [],
      allowedTools: ['Bash'],
      maxTurns: 4,
      stderr: (data) => {
        stderr += data
      },
      ...options,
    },
  })
  let result = ''
  for await (const message of run) {
    messages.push(message)
    if (message.type === 'result' && message.subtype === 'success') result = message.result
  }
  return { messages, result, stderr }
}
