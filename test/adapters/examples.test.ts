// Every adapter example in examples/adapters runs as documented, against the local model
// servers where it needs a model, and shows Warden's decisions.

import { spawn } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/cli.js'
import { type AnthropicServer, startAnthropicServer } from './servers/anthropic.js'
import { offlineEnv, type Scratch, scratch } from './servers/claude-run.js'
import { type OpenAiServer, startOpenAiServer } from './servers/openai.js'

function runExample(
  file: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `examples/adapters/${file}`], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
    })
    child.stderr.on('data', (d) => {
      out += d
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, out })
    })
  })
}

let anthropic: AnthropicServer | undefined
let openai: OpenAiServer | undefined
let where: Scratch | undefined
afterEach(async () => {
  await anthropic?.close()
  await openai?.close()
  where?.cleanup()
  anthropic = openai = where = undefined
})

describe('examples/adapters', () => {
  it('loom.ts blocks the force push, redacts the token and prints the reminders', async () => {
    const run = await runExample('loom.ts')
    expect(run.code, run.out).toBe(0)
    expect(run.out).toContain('✗ git push --force: force pushes are not allowed')
    expect(run.out).toContain('✓ git status: ran git status with [token]')
    expect(run.out).toContain(
      '<system-reminder>\nhook no-force-push blocked the action: force pushes are not allowed\n</system-reminder>',
    )
  })

  it('mcp-client.ts denies /etc, rewrites /home and allows /tmp', async () => {
    const run = await runExample('mcp-client.ts')
    expect(run.code, run.out).toBe(0)
    expect(run.out).toContain(
      '✗ /etc/passwd: Warden blocked the MCP tool call delete_file: /etc is off limits',
    )
    expect(run.out).toContain('✓ /home/me/notes: [{"type":"text","text":"deleted /tmp/trash"}]')
    expect(run.out).toContain('✓ /tmp/old')
  })

  it('ai-sdk.ts deploys to staging instead of production', async () => {
    openai = await startOpenAiServer([
      { tool: { name: 'deploy', input: { target: 'production' } } },
      { text: 'Deployed.' },
    ])
    const run = await runExample('ai-sdk.ts', { OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: 'sk-test' })
    expect(run.code, run.out).toBe(0)
    expect(run.out).toContain('tool deploy: "deployed to staging"')
  })

  it('openai-agents.ts refuses the rm and the model is told why', async () => {
    openai = await startOpenAiServer([
      { tool: { name: 'shell', input: { cmd: 'rm -rf logs' } } },
      { text: 'I cannot delete them.' },
    ])
    const run = await runExample('openai-agents.ts', {
      OPENAI_BASE_URL: openai.url,
      OPENAI_API_KEY: 'sk-test',
    })
    expect(run.code, run.out).toBe(0)
    expect(run.out).toContain('I cannot delete them.')
    expect(JSON.stringify(openai.requests[1]?.body.input)).toContain('deleting files is not allowed')
  })

  it('claude-agent-sdk.ts blocks rm -rf and asks before git push, through the real Claude Code', async () => {
    where = scratch()
    anthropic = await startAnthropicServer([
      { tool: { name: 'Bash', input: { command: 'rm -rf build', description: 'remove build' } } },
      { tool: { name: 'Bash', input: { command: 'git push', description: 'push' } } },
      { text: 'Warden said no.' },
    ])
    const run = await runExample('claude-agent-sdk.ts', offlineEnv(anthropic.url, where.home))
    expect(run.code, run.out).toBe(0)
    expect(run.out).toContain('rm -rf is never allowed')
    // The approval callback runs for Bash: the SDK does not shadow canUseTool.
    expect(run.out).toContain('approve? pushing needs a person to approve it (answering no)')
    expect(run.out).not.toContain('CAN_USE_TOOL_SHADOWED')
    expect(run.out).toContain('Warden said no.')
  }, 60_000)
})
