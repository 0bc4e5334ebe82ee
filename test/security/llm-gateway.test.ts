// Attacks on `warden llm` (the real CLI, token auth, a SQLite store): oversized bodies,
// garbage from the upstream, a secret cut across streamed chunks at every position (no
// fragment of it ever reaches the client), the API key and the Warden token never logged,
// echoed, stored or forwarded, and tenants kept apart.

import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWardenLlm, type WardenLlm } from '../gateway/llm-process.js'
import { type ModelServer, startModelServer } from '../gateway/llm-upstream.js'
import { runCliInProcess } from '../helpers/cli.js'

const SECRET = 'sk-live-0123456789abcdef'
const API_KEY = 'sk-ant-configured-upstream-key-7f3a'
const AGENT_KEY = 'sk-ant-agent-own-key-99c1'

describe('warden llm under attack', () => {
  let dir: string
  let db: string
  let upstream: ModelServer
  let gateway: WardenLlm
  let acme: string
  let beta: string

  async function token(tenant: string): Promise<string> {
    const run = await runCliInProcess([
      'tokens',
      'create',
      '--name',
      tenant,
      '--role',
      'agent',
      '--tenant',
      tenant,
      '--json',
      '--db',
      db,
    ])
    return (JSON.parse(run.stdout) as { token: string }).token
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'warden-llm-security-'))
    db = join(dir, 'warden.db')
    acme = await token('acme')
    beta = await token('beta')
    upstream = await startModelServer()
    const hooks = join(dir, 'hooks')
    mkdirSync(hooks)
    writeFileSync(
      join(hooks, 'redact-live-key.md'),
      [
        '---',
        'event: agent.response',
        'script: |',
        `  SECRET = "${SECRET}"`,
        '  def handle(event, payload):',
        '      text = payload["message"]["text"]',
        '      if SECRET in text:',
        '          return modify({"message": {"role": "agent", "text": text.replace(SECRET, "[REDACTED]")}})',
        '      return allow()',
        '---',
        '',
      ].join('\n'),
    )
    const config = join(dir, 'warden.yaml')
    writeFileSync(
      config,
      [
        'server: { auth: token }',
        'llm:',
        '  maxBodyBytes: 65536',
        `  apiKey: "\${LLM_UPSTREAM_KEY}"`,
        '  stream: { checkEveryChars: 4, holdBackChars: 24 }',
        'hooks:',
        '  - name: beta-may-not-prompt',
        '    event: user.message',
        '    scope: { tenant: beta }',
        '    handler: { type: deny, reason: "tenant beta may not use this model" }',
        '',
      ].join('\n'),
    )
    gateway = await startWardenLlm(
      ['--config', config, '--hooks', hooks, '--upstream', upstream.url, '--db', db],
      { ...process.env, LLM_UPSTREAM_KEY: API_KEY },
    )
  }, 60_000)

  afterAll(async () => {
    await gateway?.stop()
    await upstream?.close()
  })

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': AGENT_KEY,
        'x-warden-token': acme,
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
  const message = (text: string, stream = false) => ({
    model: 'claude-test',
    max_tokens: 10,
    stream,
    messages: [{ role: 'user', content: text }],
  })

  it('refuses a body over llm.maxBodyBytes with 413 in the API shape, forwarding nothing', async () => {
    const before = upstream.requests.length
    const response = await post(message('x'.repeat(100_000)))
    expect(response.status).toBe(413)
    const body = (await response.json()) as { type: string; error: { type: string; message: string } }
    expect(body.type).toBe('error')
    expect(body.error.message).toContain('llm.maxBodyBytes')
    expect(upstream.requests.length).toBe(before)
  })

  it('ends the stream with an error event on garbage SSE, passing none of it on', async () => {
    upstream.script([
      { text: ['hello'], garbage: 'event: content_block_delta\ndata: {not json at all PLEASE-LEAK\n\n' },
    ])
    const response = await post(message('hi', true))
    const raw = await response.text()
    expect(raw).toContain('event: error')
    expect(raw).toContain('not a JSON object')
    expect(raw).not.toContain('PLEASE-LEAK')
  })

  it('never sends any fragment of a redacted secret, wherever the stream cuts it', async () => {
    for (let cut = 1; cut < SECRET.length; cut += 2) {
      upstream.script([
        {
          text: [
            `Your key: ${SECRET.slice(0, cut)}`,
            SECRET.slice(cut, cut + 5),
            `${SECRET.slice(cut + 5)} keep it.`,
          ],
        },
      ])
      const raw = await (await post(message('key?', true))).text()
      expect(raw).toContain('[REDACTED]')
      for (let i = 0; i + 4 <= SECRET.length; i++)
        expect(raw, `cut at ${cut}`).not.toContain(SECRET.slice(i, i + 4))
    }
  })

  it('refuses an API key in clear in warden.yaml without echoing it', async () => {
    const config = join(dir, 'clear-key.yaml')
    writeFileSync(config, `llm:\n  apiKey: "${API_KEY}"\n`)
    const run = await runCliInProcess(['llm', '--config', config, '--upstream', upstream.url])
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('an API key in clear in the config is refused')
    expect(run.stdout + run.stderr).not.toContain(API_KEY)
  })

  it('checks a whole answer sent back to a streamed request instead of passing it on', async () => {
    upstream.script([{ text: [`Your key: ${SECRET}.`], json: true }])
    const raw = await (await post(message('key?', true))).text()
    expect(raw).toContain('[REDACTED]')
    expect(raw).not.toContain(SECRET)
  })

  it('keeps tenants apart: a token pins its tenant, and tenant-scoped hooks see only theirs', async () => {
    upstream.script([{ text: ['fine'] }])
    expect((await post(message('hi'))).status).toBe(200)
    const denied = await post(message('hi'), { 'x-warden-token': beta })
    expect(denied.status).toBe(403)
    expect(await denied.text()).toContain('tenant beta may not use this model')
    const crossing = await post(message('hi'), { 'x-warden-tenant': 'beta' })
    expect(crossing.status).toBe(403)
    const refusal = (await crossing.json()) as { error: { message: string } }
    expect(refusal.error.message).toContain('belongs to tenant "acme"')
    const anonymous = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': AGENT_KEY },
      body: JSON.stringify(message('hi')),
    })
    expect(anonymous.status).toBe(401)
    expect((await fetch(`${gateway.url}/metrics`)).status).toBe(401)
    const metrics = await fetch(`${gateway.url}/metrics`, { headers: { 'x-warden-token': acme } })
    expect(await metrics.text()).toMatch(/warden_decisions_total\{[^}]*event="user.message"[^}]*\} \d/)
  })

  it('sends the configured API key in place of the agent’s and never leaks a key or token', async () => {
    upstream.script([{ text: ['fine'] }])
    expect(
      (await post(message('hi'), { 'x-warden-token': '', authorization: `Bearer ${acme}` })).status,
    ).toBe(200)
    const sent = upstream.requests.at(-1)
    expect(sent?.headers['x-api-key']).toBe(API_KEY)
    expect(JSON.stringify(sent?.headers)).not.toContain('wdn_')
    const bad = await post(message('hi'), { 'x-warden-token': `${acme}x` })
    expect(bad.status).toBe(401)
    expect(await bad.text()).not.toContain(acme)
    await gateway.stop()
    const stored = readFileSync(db).toString('latin1')
    for (const secret of [API_KEY, AGENT_KEY, acme]) {
      expect(gateway.stderr()).not.toContain(secret)
      expect(stored).not.toContain(secret)
    }
    // Every decision is audited per tenant, and replays against today's hooks.
    const listed = await runCliInProcess([
      'decisions',
      '--db',
      db,
      '--decision',
      'deny',
      '--event',
      'user.message',
      '--json',
    ])
    const denial = JSON.parse(listed.stdout.trim().split('\n')[0] ?? '{}') as {
      id: string
      tenantId?: string
    }
    expect(listed.stdout).toContain('tenant beta may not use this model')
    const replayed = await runCliInProcess([
      'replay',
      denial.id,
      '--db',
      db,
      '--config',
      join(dir, 'warden.yaml'),
    ])
    expect(replayed.code, replayed.stdout + replayed.stderr).toBe(0)
  })
})
