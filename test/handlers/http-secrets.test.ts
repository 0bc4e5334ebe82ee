// Secret headers of the http handler: sent in clear to the webhook only; sealed in the
// hook's config; never in decisions, traces, recorded audit data, errors or anything the
// process writes — even when a hostile webhook echoes them back.

import { randomBytes } from 'node:crypto'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createHttpHandler } from '../../src/handlers/index.js'
import { createEngine, type DecisionRecord, type HookDefinition } from '../../src/index.js'
import { createOutboundClient } from '../../src/net/index.js'
import { createSecretBox, isSealed } from '../../src/secrets/index.js'
import { type Listener, listen } from '../net/helpers.js'

const SECRET = `Bearer sk-live-${randomBytes(12).toString('hex')}`
const API_KEY = `k-${randomBytes(12).toString('hex')}`
let echo: Listener
let base: string
const client = createOutboundClient({ allow: ['127.0.0.1'] })
const box = createSecretBox({ key: randomBytes(32) })

beforeAll(async () => {
  echo = await listen('127.0.0.1', (req, res) => {
    const leak = `${req.headers.authorization} ${req.headers['x-api-key']}`
    if (req.url === '/deny') return res.writeHead(401).end(JSON.stringify({ reason: `bad token ${leak}` }))
    if (req.url === '/text') return res.writeHead(400).end(`bad token ${leak}`)
    if (req.url === '/invalid') return res.end(JSON.stringify({ decision: leak }))
    if (req.url === '/modify')
      return res.end(JSON.stringify({ decision: 'allow', updatedInput: { cmd: `curl -H '${leak}'` } }))
    res.end(JSON.stringify({ decision: 'allow', reason: `ok ${leak}`, additionalContext: [`seen ${leak}`] }))
  })
  base = `http://127.0.0.1:${echo.port}`
})

afterAll(async () => {
  await client.close()
  await echo.close()
})

afterEach(() => vi.restoreAllMocks())

function capture(): string[] {
  const out: string[] = []
  const grab = (...args: unknown[]) => {
    out.push(args.map((a) => (typeof a === 'string' ? a : String(a))).join(' '))
    return true
  }
  vi.spyOn(process.stdout, 'write').mockImplementation(grab as never)
  vi.spyOn(process.stderr, 'write').mockImplementation(grab as never)
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const)
    vi.spyOn(console, level).mockImplementation(grab)
  return out
}

const hookFor = (path: string, secretHeaders: Record<string, string>): HookDefinition => ({
  name: `secret${path.replace(/\//g, '-')}`,
  event: 'tool.pre',
  handler: { type: 'http', url: `${base}${path}`, secretHeaders },
})

const event = { event: 'tool.pre', payload: { tool: { name: 'exec', input: { cmd: 'ls' } } } }

describe('http handler: secret headers', () => {
  it('sends them in clear to the webhook and nowhere else', async () => {
    const written = capture()
    const records: DecisionRecord[] = []
    const engine = createEngine({
      hooks: [
        hookFor('/allow', { Authorization: SECRET, 'X-Api-Key': box.seal(API_KEY) }),
        hookFor('/deny', { Authorization: SECRET }),
      ],
      handlers: [createHttpHandler({ client, secrets: box })],
      recorder: { record: (r) => void records.push(r) },
    })
    const hooks = engine.hooks()
    const first = await engine.dispatch(event)
    const second = await engine.dispatch({
      ...event,
      payload: { tool: { name: 'exec', input: { cmd: 'pwd' } } },
    })
    await engine.close()
    const received = echo.received.filter((r) => r.url === '/allow')[0]
    expect(received?.headers.authorization).toBe(SECRET)
    expect(received?.headers['x-api-key']).toBe(API_KEY)
    expect(first.decision).toBe('deny')
    expect(first.reason).toContain('bad token [redacted]')
    expect(first.additionalContext.join(' ')).toContain('seen [redacted]')

    const sealedHeaders = hooks[0]?.handler.secretHeaders as Record<string, string>
    expect(isSealed(sealedHeaders.Authorization)).toBe(true)
    expect(box.open(sealedHeaders.Authorization as string)).toBe(SECRET)
    const everything = JSON.stringify({ hooks, first, second, records, written })
    expect(everything).not.toContain(SECRET.slice(7))
    expect(everything).not.toContain(API_KEY)
  })

  it('keeps them out of errors and answers: echoed in text, in an invalid decision, unreachable, refused, in updatedInput', async () => {
    const written = capture()
    const gone = await listen('127.0.0.1')
    await gone.close()
    const strict = createOutboundClient({ allow: [] })
    const decisions = []
    for (const [def, useClient] of [
      [hookFor('/text', { Authorization: SECRET }), client],
      [hookFor('/invalid', { Authorization: SECRET }), client],
      [
        {
          ...hookFor('/', { Authorization: SECRET }),
          handler: {
            type: 'http',
            url: `http://127.0.0.1:${gone.port}/`,
            secretHeaders: { Authorization: SECRET },
          },
        },
        client,
      ],
      [hookFor('/allow', { Authorization: SECRET }), strict],
    ] as const) {
      const engine = createEngine({
        hooks: [def],
        handlers: [createHttpHandler({ client: useClient, secrets: box, retryDelayMs: 20 })],
      })
      decisions.push(await engine.dispatch(event))
      await engine.close()
    }
    await strict.close()
    const modify = createEngine({
      hooks: [hookFor('/modify', { Authorization: SECRET })],
      handlers: [createHttpHandler({ client, secrets: box })],
    })
    const modified = await modify.dispatch(event)
    await modify.close()
    expect(modified.decision).toBe('modify')
    expect(modified.payload).toEqual({
      tool: { name: 'exec', input: { cmd: "curl -H '[redacted] undefined'" } },
    })
    decisions.push(modified)
    expect(decisions.map((d) => d.decision)).toEqual(['deny', 'deny', 'deny', 'deny', 'modify'])
    expect(decisions[1]?.reason).toMatch(/invalid decision/)
    const everything = JSON.stringify({ decisions, written })
    expect(everything).not.toContain(SECRET.slice(7))
  })

  it('a sealed value from another key fails closed without printing it', async () => {
    const other = createSecretBox({ key: randomBytes(32) })
    const sealed = other.seal(SECRET)
    const engine = createEngine({
      hooks: [hookFor('/allow', { Authorization: sealed })],
      handlers: [createHttpHandler({ client, secrets: box })],
    })
    const decision = await engine.dispatch(event)
    await engine.close()
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(/sealed with another key/)
    expect(JSON.stringify(decision)).not.toContain(sealed.slice(10))
  })
})
