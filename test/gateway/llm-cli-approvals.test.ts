// `warden llm` (the real CLI) with a hook that asks: the tool call the model asks for is
// held as a pending approval in the store until `warden approvals` resolves it — approved,
// the call reaches the agent; rejected, the agent gets the reason in its place.

import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCliInProcess } from '../helpers/cli.js'
import { startWardenLlm, type WardenLlm } from './llm-process.js'
import { type ModelServer, startModelServer } from './llm-upstream.js'

describe("warden llm: a hook's ask held in the store", () => {
  let dir: string
  let db: string
  let upstream: ModelServer
  let gateway: WardenLlm

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'warden-llm-ask-'))
    db = join(dir, 'warden.db')
    upstream = await startModelServer([{ tools: [{ name: 'Bash', input: { command: 'deploy prod' } }] }])
    const config = join(dir, 'warden.yaml')
    writeFileSync(
      config,
      [
        'hooks:',
        '  - name: deploys-need-a-human',
        '    event: tool.pre',
        '    matcher: "^Bash$"',
        '    handler: { type: ask, reason: "a human confirms each deploy" }',
        '',
      ].join('\n'),
    )
    gateway = await startWardenLlm(['--config', config, '--upstream', upstream.url, '--db', db])
  }, 60_000)

  afterAll(async () => {
    await gateway?.stop()
    await upstream?.close()
  })

  const call = async () =>
    (await (
      await fetch(`${gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-x' },
        body: JSON.stringify({
          model: 'm',
          max_tokens: 10,
          messages: [{ role: 'user', content: 'ship it' }],
        }),
      })
    ).json()) as { content: { type: string; text?: string; input?: unknown }[] }

  async function pending(): Promise<string> {
    const deadline = Date.now() + 30_000
    while (Date.now() < deadline) {
      const listed = await runCliInProcess(['approvals', 'list', '--db', db, '--status', 'pending', '--json'])
      const line = listed.stdout.trim().split('\n').filter(Boolean)[0]
      if (line) return (JSON.parse(line) as { id: string }).id
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    throw new Error('no pending approval appeared')
  }

  it('forwards the tool call once approved, and replaces it with the reason once rejected', async () => {
    expect(gateway.stderr()).toContain('asks are held for approval in the store')
    const approved = call()
    const first = await pending()
    expect((await runCliInProcess(['approvals', 'approve', first, '--db', db, '--by', 'alice'])).code).toBe(0)
    expect((await approved).content[0]).toMatchObject({ type: 'tool_use', input: { command: 'deploy prod' } })
    const rejected = call()
    const second = await pending()
    expect(second).not.toBe(first)
    expect(
      (await runCliInProcess(['approvals', 'reject', second, '--db', db, '--comment', 'not now'])).code,
    ).toBe(0)
    const answer = await rejected
    expect(answer.content).toHaveLength(1)
    expect(answer.content[0]?.text).toContain('Warden blocked the tool call Bash')
    expect(answer.content[0]?.text).toContain('not now')
  }, 60_000)
})
