// loom agent.json profiles: buckets mapped to events, the five actions (log, webhook,
// save_json, approve, command) through a real engine, the webhook through the outbound
// client to a loopback server, and the WARDEN_DISABLE_HOOKS kill switch.

import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/core/index.js'
import { commandHandler, fnHandler } from '../../src/handlers/index.js'
import { createOutboundClient } from '../../src/net/index.js'
import {
  applyKillSwitch,
  buildEngine,
  createProfileActionHandler,
  KILL_SWITCH_WARNING,
  parseProfile,
} from '../../src/sources/index.js'
import { scriptedResolver } from '../net/helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-profile-'))
const file = join(dir, 'agent.json')
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let server: Server
let hookUrl = ''
const received: { url: string; body: string }[] = []
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => {
      body += c
    })
    req.on('end', () => {
      received.push({ url: req.url ?? '', body })
      res.end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const profile = (hooks: unknown, name = 'support bot') => JSON.stringify({ name, model: 'm', hooks })
const call = {
  event: 'tool.pre',
  payload: { tool: { name: 'deploy_prod', input: { token: 'sk-secret-value' } } },
  context: { session: { id: 's9' }, agent: { id: 'a1' } },
}

describe('agent.json profiles', () => {
  it('maps every bucket to its event and names hooks after the profile', () => {
    const buckets = [
      'onStart',
      'onToolCall',
      'onToolEnd',
      'onModelCall',
      'onModelEnd',
      'onComplete',
      'onError',
    ]
    const report = parseProfile(
      profile(Object.fromEntries(buckets.map((b) => [b, [{ action: 'log' }]]))),
      file,
    )
    expect(report.problems).toEqual([])
    expect(report.hooks.map((h) => [h.name, h.event])).toEqual([
      ['support-bot:onStart:01-log', 'session.start'],
      ['support-bot:onToolCall:01-log', 'tool.pre'],
      ['support-bot:onToolEnd:01-log', 'tool.post'],
      ['support-bot:onModelCall:01-log', 'model.pre'],
      ['support-bot:onModelEnd:01-log', 'model.post'],
      ['support-bot:onComplete:01-log', 'session.end'],
      ['support-bot:onError:01-log', 'error'],
    ])
  })

  it('log writes a summary line that never holds the inputs', async () => {
    const lines: string[] = []
    const report = parseProfile(profile({ onToolCall: [{ action: 'log', level: 'warn' }] }), file)
    const engine = createEngine({
      handlers: [createProfileActionHandler({ log: (l) => lines.push(l) })],
      hooks: report.hooks,
    })
    const decision = await engine.dispatch(call)
    expect(decision.decision).toBe('allow')
    expect(lines).toEqual(['[support-bot] warn tool.pre tool=deploy_prod agent=a1 session=s9'])
    expect(JSON.stringify(decision.trace)).not.toContain('sk-secret-value')
  })

  it('webhook posts to an allowlisted loopback URL and only observes', async () => {
    const report = parseProfile(profile({ onToolCall: [{ action: 'webhook', url: hookUrl }] }), file, {
      webhookAllow: [hookUrl],
    })
    expect(report.problems).toEqual([])
    const handler = createProfileActionHandler({ webhookAllow: [hookUrl] })
    const engine = createEngine({ handlers: [handler], hooks: report.hooks })
    const decision = await engine.dispatch(call)
    expect(decision.decision).toBe('allow')
    expect(decision.trace[0]?.logs).toEqual(['webhook answered 200'])
    const sent = JSON.parse(received.at(-1)?.body ?? '{}')
    expect(sent).toMatchObject({ profile: 'support-bot', event: 'tool.pre', payload: call.payload })
    await engine.close()
  })

  it('sends https webhooks through the shared SSRF-checked client: a name resolving to loopback is refused', async () => {
    const port = new URL(hookUrl).port
    const url = `https://hooks.partner.test:${port}/hooks`
    const report = parseProfile(profile({ onToolCall: [{ action: 'webhook', url }] }), file, {
      webhookAllow: [url],
    })
    expect(report.problems).toEqual([])
    const client = createOutboundClient({
      resolver: scriptedResolver({ 'hooks.partner.test': ['127.0.0.1'] }),
    })
    const handler = createProfileActionHandler({ webhookAllow: [url], client })
    const engine = createEngine({ handlers: [handler], hooks: report.hooks })
    const before = received.length
    const decision = await engine.dispatch(call)
    expect(decision.decision).toBe('allow')
    expect(decision.trace[0]?.logs?.[0]).toMatch(/webhook failed \(observe only.*127\.0\.0\.1.*network/)
    expect(received.length).toBe(before)
    await engine.close()
    await client.close()
  })

  it('refuses webhooks outside the allowlist, http to other hosts, and bad URLs', () => {
    const report = parseProfile(
      profile({
        onToolCall: [
          { action: 'webhook', url: hookUrl },
          { action: 'webhook', url: 'http://hooks.example.com/x' },
          { action: 'webhook', url: 'https://user:pw@hooks.example.com/x' },
          { action: 'webhook', url: 'not a url' },
        ],
      }),
      file,
      { webhookAllow: ['https://hooks.example.com/'] },
    )
    expect(report.hooks).toEqual([])
    expect(report.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/is not in the webhook allowlist; add it to webhooks.allow/),
      expect.stringMatching(/uses http to a non-loopback host; use https/),
      expect.stringMatching(/must not carry user:password/),
      expect.stringMatching(/is not a valid URL/),
    ])
  })

  it('save_json appends JSONL inside the profile folder and refuses paths that leave it', async () => {
    const report = parseProfile(
      profile({
        onToolCall: [{ action: 'save_json', path: 'logs/events.jsonl' }],
        onToolEnd: [
          { action: 'save_json', path: '../outside.jsonl' },
          { action: 'save_json', path: '/tmp/abs.jsonl' },
        ],
      }),
      file,
    )
    expect(report.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/leaves the profile's folder/),
      expect.stringMatching(/must be relative to the profile's folder/),
    ])
    const engine = createEngine({ handlers: [createProfileActionHandler()], hooks: report.hooks })
    await engine.dispatch(call)
    await engine.dispatch(call)
    const lines = readFileSync(join(dir, 'logs', 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
    expect(lines).toHaveLength(2)
    expect(JSON.parse(lines[0] as string)).toMatchObject({ profile: 'support-bot', event: 'tool.pre' })
  })

  it('save_json does not follow a symbolic link planted at its path', async () => {
    const target = join(dir, 'victim.txt')
    writeFileSync(target, 'untouched')
    symlinkSync(target, join(dir, 'linked.jsonl'))
    const report = parseProfile(
      profile({ onToolCall: [{ action: 'save_json', path: 'linked.jsonl' }] }),
      file,
    )
    const engine = createEngine({ handlers: [createProfileActionHandler()], hooks: report.hooks })
    const decision = await engine.dispatch(call)
    expect(decision.decision).toBe('allow')
    expect(decision.trace[0]?.logs?.[0]).toMatch(/symbolic link; refused/)
    expect(readFileSync(target, 'utf8')).toBe('untouched')
  })

  it('approve asks for matching tools: denied without an approver, allowed when approved', async () => {
    const report = parseProfile(
      profile({ onToolCall: [{ action: 'approve', tools: ['deploy_*', 'Bash'] }] }),
      file,
    )
    const alone = createEngine({ handlers: [createProfileActionHandler()], hooks: report.hooks })
    const denied = await alone.dispatch(call)
    expect(denied.decision).toBe('deny')
    expect(denied.reason).toContain('profile support-bot requires approval for tool "deploy_prod"')
    expect(denied.approval?.outcome).toBe('unavailable')
    const other = await alone.dispatch({ ...call, payload: { tool: { name: 'read_file', input: {} } } })
    expect(other.decision).toBe('allow')
    const approved = createEngine({
      handlers: [createProfileActionHandler()],
      hooks: report.hooks,
      approver: () => ({ outcome: 'approve', by: 'lead' }),
    })
    expect((await approved.dispatch(call)).decision).toBe('allow')
    const late = createEngine({
      handlers: [createProfileActionHandler()],
      hooks: report.hooks,
      approver: () => new Promise(() => undefined),
      limits: { approvalTimeoutMs: 50 },
    })
    const timedOut = await late.dispatch(call)
    expect(timedOut.decision).toBe('deny')
    expect(timedOut.approval?.outcome).toBe('timeout')
  })

  it('refuses command actions unless WARDEN_ALLOW_COMMAND_HOOKS=1', async () => {
    const hooks = { onToolCall: [{ action: 'command', command: 'echo "from profile" >&2; exit 2' }] }
    const refused = parseProfile(profile(hooks), file, { env: {} })
    expect(refused.hooks).toEqual([])
    expect(refused.problems[0]?.message).toMatch(
      /refused unless the operator sets WARDEN_ALLOW_COMMAND_HOOKS=1/,
    )
    const allowed = parseProfile(profile(hooks), file, { env: { WARDEN_ALLOW_COMMAND_HOOKS: '1' } })
    const engine = createEngine({ handlers: [commandHandler], hooks: allowed.hooks })
    const decision = await engine.dispatch(call)
    expect(decision.reason).toBe('from profile')
  })

  it('reports unknown buckets, actions and keys', () => {
    const report = parseProfile(
      profile({
        onToolCal: [{ action: 'log' }],
        onToolCall: [{ action: 'email' }, { action: 'log', colour: 1 }],
      }),
      file,
    )
    expect(report.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/hooks.onToolCal is not a profile bucket; did you mean "onToolCall"/),
      expect.stringMatching(/unknown key colour ignored/),
    ])
    expect(report.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/action must be one of log, webhook/),
    ])
  })
})

describe('WARDEN_DISABLE_HOOKS', () => {
  const denyAll = {
    name: 'deny-all',
    event: 'tool.pre',
    handler: { type: 'fn', fn: () => ({ type: 'deny', reason: 'no' }) },
  }

  it('turns every hook off, the ones registered later too, and says so loudly', async () => {
    const warnings: string[] = []
    const engine = applyKillSwitch(createEngine({ hooks: [denyAll], handlers: [fnOnly()] }), {
      env: { WARDEN_DISABLE_HOOKS: '1' },
      warn: (t) => warnings.push(t),
    })
    expect(warnings).toEqual([KILL_SWITCH_WARNING])
    expect(KILL_SWITCH_WARNING).toMatch(/EVERY HOOK IS OFF/)
    engine.register({ ...denyAll, name: 'later' })
    const decision = await engine.dispatch(call)
    expect(decision.decision).toBe('allow')
    expect(decision.trace.map((t) => t.skipped)).toEqual(['disabled', 'disabled'])
  })

  it('leaves hooks on when unset, and buildEngine applies it', async () => {
    const on = applyKillSwitch(createEngine({ hooks: [denyAll], handlers: [fnOnly()] }), { env: {} })
    expect((await on.dispatch(call)).decision).toBe('deny')
    const config = { baseDir: dir, hooks: [denyAll], limits: {}, raw: {} }
    const off = buildEngine(config, { env: { WARDEN_DISABLE_HOOKS: '1' } })
    expect((await off.dispatch(call)).decision).toBe('allow')
    await off.close()
  })
})

function fnOnly() {
  return fnHandler
}
