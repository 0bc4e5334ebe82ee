// The network: and judge: sections of warden.yaml: validated at load with messages naming
// the field, and wired by the runtime into one outbound client shared by the http and
// prompt handlers (a webhook and a judge on loopback, explicitly allowed).

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildEngine, parseConfig } from '../../src/sources/index.js'
import { decideAnswer, type FakeLlm, reply, startFakeLlm } from '../handlers/prompt-fake-llm.js'
import { type Listener, listen } from './helpers.js'

let webhook: Listener
let llm: FakeLlm

beforeAll(async () => {
  webhook = await listen('127.0.0.1', (req, res) =>
    res.end(
      JSON.stringify({
        decision: 'block',
        reason: `auth ${req.headers.authorization === 'Bearer t0k3n-abc' ? 'ok' : 'missing'}`,
      }),
    ),
  )
  llm = await startFakeLlm()
  llm.script = (_r, res) =>
    reply(res, decideAnswer({ decision: 'deny', reason: 'judge says no', injection_detected: false }))
})
afterAll(async () => {
  await webhook.close()
  await llm.close()
})

const event = { event: 'tool.pre', payload: { tool: { name: 'exec', input: { cmd: 'ls' } } } }

describe('network: and judge: in warden.yaml', () => {
  it('refuses malformed sections with the field named', () => {
    expect(() => parseConfig('network: { allow: ["http://x/"] }', '/tmp')).toThrow(
      /network\.allow\.0 entries must be CIDR ranges/,
    )
    expect(() => parseConfig('network: { followRedirects: "yes" }', '/tmp')).toThrow(
      /network\.followRedirects must be true, false or a number/,
    )
    expect(() => parseConfig('network: { proxy: x }', '/tmp')).toThrow(/unknown field "proxy"/)
    expect(() => parseConfig('judge: { baseUrl: "ftp://x" }', '/tmp')).toThrow(
      /judge\.baseUrl must be an http\(s\) URL/,
    )
    expect(() => parseConfig('judge: { apiKeyEnv: "sk-abc" }', '/tmp')).toThrow(
      /judge\.apiKeyEnv must be the name of an environment variable/,
    )
  })

  it('wires http and prompt hooks through one client that honours network.allow', async () => {
    const yaml = `
network: { allow: ["127.0.0.1"], maxResponseBytes: 65536 }
judge: { baseUrl: "${llm.baseUrl}", model: judge-1, apiKeyEnv: MY_JUDGE_KEY }
hooks:
  - name: webhook
    event: tool.pre
    priority: -1
    handler: { type: http, url: "http://127.0.0.1:${webhook.port}/hook", secretHeaders: { Authorization: "Bearer t0k3n-abc" } }
  - name: judge
    event: tool.pre
    matcher: exec
    handler: { type: prompt, prompt: "Deny everything." }
`
    const env = { MY_JUDGE_KEY: 'sk-judge-key', WARDEN_SECRET_KEY: 'a'.repeat(64) }
    const engine = buildEngine(parseConfig(yaml, '/tmp'), { env })
    const specs = engine.hooks()
    expect(JSON.stringify(specs)).not.toContain('t0k3n-abc')
    const decision = await engine.dispatch(event)
    expect(decision, JSON.stringify(decision)).toMatchObject({ decision: 'deny', reason: 'auth ok' })
    const judged = await engine.dispatch({
      ...event,
      payload: { tool: { name: 'exec', input: { cmd: 'pwd' } } },
    })
    await engine.close()
    expect(judged.trace.map((t) => t.outcome)).toEqual(['deny', 'skipped'])
    const withJudge = buildEngine(
      parseConfig(yaml.replace(/ {2}- name: webhook[\s\S]*?secretHeaders[^\n]*\n/, ''), '/tmp'),
      { env },
    )
    const second = await withJudge.dispatch(event)
    await withJudge.close()
    expect(second).toMatchObject({ decision: 'deny', reason: 'judge says no' })
    expect(llm.requests.at(-1)?.authorization).toBe('Bearer sk-judge-key')
    expect(llm.requests.at(-1)?.model).toBe('judge-1')
  })

  it('refuses loopback webhooks when network.allow does not list them', async () => {
    const yaml = `
hooks:
  - name: webhook
    event: tool.pre
    handler: { type: http, url: "http://127.0.0.1:${webhook.port}/hook" }
`
    const before = webhook.count
    const engine = buildEngine(parseConfig(yaml, '/tmp'), { env: {} })
    const decision = await engine.dispatch(event)
    await engine.close()
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(/add "127\.0\.0\.1" \(or a CIDR range covering it\) to network\.allow/)
    expect(webhook.count).toBe(before)
  })

  it('refuses prompt hooks when no judge is configured, naming the settings', () => {
    const yaml = 'hooks: [{ name: j, event: tool.pre, matcher: exec, handler: { type: prompt, prompt: p } }]'
    expect(() => buildEngine(parseConfig(yaml, '/tmp'), { env: {} })).toThrow(
      /WARDEN_JUDGE_BASE_URL and WARDEN_JUDGE_MODEL/,
    )
  })
})
