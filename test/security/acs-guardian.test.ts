// Warden as the Observed Agent of a remote ACS Guardian (`handler: { type: guardian,
// protocol: acs }`): against a real `warden serve` /acs it handshakes, signs, follows the
// session's chain head and applies allow and deny; against a hostile Guardian on loopback
// (unsigned, forged, garbled, error, another request's answer, no chain head) every answer
// is a decision failure that denies with its cause, and under `onDecisionFailure: proceed`
// the fail-open allow is recorded with reason code decision_failure.

import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Engine, JsonObject } from '../../src/core/index.js'
import { deriveSessionKey, signEnvelope } from '../../src/protocols/acs/index.js'
import { buildEngine, parseConfig } from '../../src/sources/index.js'
import { cliArgs, ROOT } from '../helpers/cli.js'

const SECRET = 'the shared key of guardian and agent'
const env = { ...process.env, WARDEN_DATABASE_URL: '', ACS_KEY_K1: SECRET }
const children: ChildProcess[] = []
const engines: Engine[] = []
let remoteUrl = ''
let hostile: Server
let hostileUrl = ''
let mode = 'unsigned'

function serve(config: string): Promise<string> {
  const child = spawn(process.execPath, cliArgs(['serve', '--port', '0', '--config', config]), {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.push(child)
  let out = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 30_000)
    child.stderr?.on('data', (d) => {
      out += d
    })
    child.stdout?.on('data', (d) => {
      out += d
      const match = /listening on (http:\/\/[^\s]+)\/aos/.exec(out)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve(match[1])
      }
    })
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)))
  })
}

/** A loopback Guardian that answers hellos properly and hook requests as `mode` says. */
function startHostile(): Promise<string> {
  hostile = createServer((request, response) => {
    let body = ''
    request.on('data', (d) => {
      body += d
    })
    request.on('end', () => {
      const message = JSON.parse(body) as JsonObject
      const params = message.params as JsonObject
      const sessionId = (params.metadata as JsonObject).session_id as string
      const key = deriveSessionKey(Buffer.from(SECRET), sessionId)
      const signed = (result: JsonObject) => {
        const answer: JsonObject = { jsonrpc: '2.0', id: message.id ?? null, result }
        signEnvelope(answer, 'result', key, 'k1')
        return answer
      }
      const base: JsonObject = {
        type: 'final',
        decision: 'allow',
        request_id: params.request_id ?? null,
        chain_hash: 'a'.repeat(64),
      }
      let out: string
      if (message.method === 'handshake/hello') out = JSON.stringify(signed({ negotiated_version: '0.1.0' }))
      else if (mode === 'unsigned') out = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: base })
      else if (mode === 'forged') {
        const answer = signed(base)
        ;(answer.result as JsonObject).decision = 'allow'
        ;((answer.result as JsonObject).signature as JsonObject).value = Buffer.alloc(32, 7).toString(
          'base64',
        )
        out = JSON.stringify(answer)
      } else if (mode === 'garbage') out = 'allow allow allow'
      else if (mode === 'error')
        out = JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32603, message: 'boom' } })
      else if (mode === 'other-request') out = JSON.stringify(signed({ ...base, request_id: randomUUID() }))
      else if (mode === 'hang' && message.method !== 'handshake/hello') return
      else if (mode === 'no-chain') out = JSON.stringify(signed({ ...base, chain_hash: null }))
      else out = JSON.stringify(signed(base))
      response.writeHead(200, { 'content-type': 'application/json' }).end(out)
    })
  })
  return new Promise((resolve) =>
    hostile.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(hostile.address() as AddressInfo).port}`),
    ),
  )
}

/** A local engine whose one tool.pre hook consults the ACS Guardian at `url`. */
function agentEngine(url: string, extra: Record<string, unknown> = {}): Engine {
  const config = parseConfig(
    JSON.stringify({
      network: { allow: ['127.0.0.1'] },
      hooks: [
        {
          name: 'remote-acs',
          event: 'tool.pre',
          handler: {
            type: 'guardian',
            protocol: 'acs',
            url,
            key: { id: 'k1', secret: 'env:ACS_KEY_K1' },
            ...extra,
          },
        },
      ],
    }),
    ROOT,
  )
  const engine = buildEngine(config, { env })
  engines.push(engine)
  return engine
}

const call = (engine: Engine, tool: string, sessionId: string) =>
  engine.dispatch({
    event: 'tool.pre',
    payload: { tool: { name: tool, input: { command: 'ls' } } },
    context: { session: { id: sessionId }, agent: { id: 'agent-1' } },
    wait: true,
  })

beforeAll(async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const dir = mkdtempSync(join(tmpdir(), 'warden-acs-guardian-'))
  const config = join(dir, 'warden.yaml')
  writeFileSync(
    config,
    `acs:\n  keys:\n    - id: k1\n      secret: env:ACS_KEY_K1\nhooks:\n  - name: no-shell\n    event: tool.pre\n    matcher: shell\n    handler: { type: command, command: "sh -c 'echo no shell here >&2; exit 2'" }\n`,
  )
  const [served, hostileAt] = await Promise.all([serve(config), startHostile()])
  remoteUrl = `${served}/acs`
  hostileUrl = `${hostileAt}/acs`
}, 40_000)

afterAll(async () => {
  for (const engine of engines) await engine.close()
  for (const child of children) child.kill('SIGKILL')
  hostile?.close()
})

describe('a guardian hook consulting a real warden serve over ACS', () => {
  it('handshakes, signs, follows the chain head, and applies allow and deny', async () => {
    const engine = agentEngine(remoteUrl)
    const sessionId = randomUUID()
    const first = await call(engine, 'list_files', sessionId)
    expect(first.decision).toBe('allow')
    // The second request of the session sends the head the first answer gave; a wrong head
    // would be denied chain_mismatch by the Guardian.
    const denied = await call(engine, 'shell', sessionId)
    expect(denied.decision).toBe('deny')
    expect(denied.reason).toMatch(/ACS Guardian remote-acs denied: .*no shell here/)
    const again = await call(engine, 'list_files', sessionId)
    expect(again.decision).toBe('allow')
  })

  it('denies with the cause when the shared key is not the Guardian key', async () => {
    const engine = buildEngine(
      parseConfig(
        JSON.stringify({
          network: { allow: ['127.0.0.1'] },
          hooks: [
            {
              name: 'wrong-key',
              event: 'tool.pre',
              handler: {
                type: 'guardian',
                protocol: 'acs',
                url: remoteUrl,
                key: { id: 'k1', secret: 'env:OTHER' },
              },
            },
          ],
        }),
        ROOT,
      ),
      { env: { ...env, OTHER: 'not the key' } },
    )
    engines.push(engine)
    const decision = await call(engine, 'list_files', randomUUID())
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(/decision failure: .*-32004/)
  })
})

describe('a guardian hook facing a hostile ACS Guardian', () => {
  it.each([
    ['unsigned', /answered unsigned/],
    ['forged', /signature does not verify/],
    ['garbage', /not JSON/],
    ['error', /answered error -32603: boom/],
    ['other-request', /another request_id/],
    ['no-chain', /no chain_hash/],
  ])('a %s answer is a decision failure that denies with its cause', async (which, cause) => {
    mode = which
    const decision = await call(agentEngine(hostileUrl), 'list_files', randomUUID())
    expect(decision.decision).toBe('deny')
    expect(decision.reason).toMatch(cause)
    expect(decision.reasonCode).toContain('decision_failure')
  })

  it('a fail-open proceed is an allow recorded with the failure and its cause', async () => {
    mode = 'forged'
    const decision = await call(
      agentEngine(hostileUrl, { onDecisionFailure: 'proceed' }),
      'list_files',
      randomUUID(),
    )
    expect(decision.decision).toBe('allow')
    const trace = decision.trace.find((t) => t.hook === 'remote-acs')
    expect(trace?.reason).toMatch(/decision failure: .*signature does not verify.*onDecisionFailure: proceed/)
    expect(trace?.logs?.join('\n')).toMatch(/decision failure: .*signature does not verify/)
    // The decision itself says it failed open, with the reason code, not "no objection".
    expect(decision.reason).toMatch(
      /^allowed, failing open: hook "remote-acs" failed \(error: decision failure: .*signature does not verify/,
    )
    expect(decision.reasonCode).toEqual(['decision_failure', 'remote-acs'])
  })

  it('an onTimeout: allow past a Guardian that does not answer is a fail-open the decision names', async () => {
    mode = 'hang'
    const config = parseConfig(
      JSON.stringify({
        network: { allow: ['127.0.0.1'] },
        hooks: [
          {
            name: 'slow-acs',
            event: 'tool.pre',
            timeoutMs: 200,
            onTimeout: 'allow',
            handler: {
              type: 'guardian',
              protocol: 'acs',
              url: hostileUrl,
              key: { id: 'k1', secret: 'env:ACS_KEY_K1' },
            },
          },
        ],
      }),
      ROOT,
    )
    const engine = buildEngine(config, { env })
    engines.push(engine)
    const decision = await call(engine, 'list_files', randomUUID())
    expect(decision.decision).toBe('allow')
    expect(decision.reason).toMatch(/^allowed, failing open: hook "slow-acs" failed \(timeout: /)
    expect(decision.reasonCode).toEqual(['decision_failure', 'slow-acs'])
  })

  it('a well-formed signed answer from the same server is applied (the checks are not blanket refusals)', async () => {
    mode = 'good'
    const decision = await call(agentEngine(hostileUrl), 'list_files', randomUUID())
    expect(decision.decision).toBe('allow')
  })
})
