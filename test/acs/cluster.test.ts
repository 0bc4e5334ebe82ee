// One ACS session across a cluster: three `warden serve` instances on one real PostgreSQL, as
// a team runs them behind a plain load balancer. A session's hello, Intent, steps, an ASK and
// its approval, and its end each land on a different instance from the step before, every
// step names the chain head it saw, and the answers are those one instance gives; the chain
// then verifies with `warden audit verify`. `npm run conformance -- acs URL` passes through a
// round-robin balancer in front of the three as against one of them.

import { randomUUID } from 'node:crypto'
import { createServer, request as httpRequest, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runConformance } from '../../scripts/conformance/run.js'
import { run as audit } from '../../src/cli/audit-verify.js'
import type { CliIo } from '../../src/cli/io.js'
import type { JsonObject } from '../../src/core/index.js'
import { acsRequest, clientHello, deriveSessionKey, signMessage } from '../../src/protocols/acs/index.js'
import { type Served, serve, tempDir } from '../server/management-helper.js'
import { postgresForTests, type TestDatabase } from '../setup/postgres.js'
import { KEY } from './helper.js'

const APPROVER = { id: 'approver-1', material: Buffer.from('approver key', 'utf8') }
const YAML = `
audit: { mode: sync }
acs:
  requireSignatures: true
  keys: [{ id: ${KEY.id}, secret: env:ACS_KEY }]
  intent: { defaultScopeMode: ask }
  approvers:
    - { id: ${APPROVER.id}, type: agent, endpoint: "https://approver.example/acs", secret: env:ACS_APPROVER }
hooks:
  - name: no-shell
    event: tool.pre
    matcher: "^shell$"
    handler: { type: deny, reason: "no shell here" }
`
const env = {
  ACS_KEY: Buffer.from(KEY.material).toString('utf8'),
  ACS_APPROVER: APPROVER.material.toString('utf8'),
  WARDEN_DATABASE_URL: '',
}

const dir = tempDir('warden-acs-cluster-')
let pg: TestDatabase | undefined
let instances: Served[] = []
let balancer: Server | undefined
let balancerUrl = ''

/** A round-robin balancer on loopback: each request goes to the next instance. */
function roundRobin(targets: string[]): Promise<{ server: Server; url: string }> {
  let next = 0
  const server = createServer((req, res) => {
    const target = new URL(req.url ?? '/', targets[next++ % targets.length])
    const upstream = httpRequest(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.on('error', () => res.writeHead(502).end())
    req.pipe(upstream)
  })
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address() as { port: number }
      resolve({ server, url: `http://127.0.0.1:${address.port}` })
    }),
  )
}

beforeAll(async () => {
  pg = await postgresForTests()
  if (!pg) return
  const db = pg.url
  instances = await Promise.all(['a', 'b', 'c'].map((name) => serve({ dir, name, yaml: YAML, db, env })))
  const front = await roundRobin(instances.map((i) => i.url))
  balancer = front.server
  balancerUrl = front.url
}, 120_000)

afterAll(async () => {
  balancer?.close()
  await Promise.all(instances.map((i) => i.stop('SIGKILL')))
  await pg?.release()
})

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response fields
async function post(url: string, body: JsonObject): Promise<any> {
  const answer = await fetch(`${url}/acs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  expect(answer.status).toBe(200)
  return answer.json()
}

/** The approver's signed answer to the ASK raised by `askedId`, widening the session. */
function approval(sessionId: string, askedId: string): JsonObject {
  const answer: JsonObject = {
    jsonrpc: '2.0',
    id: randomUUID(),
    result: {
      type: 'final',
      acs_version: '0.1.0',
      request_id: askedId,
      timestamp: new Date().toISOString(),
      decision: 'allow',
      intent_extension: { capabilities: ['network.egress'], scope: 'session' },
    },
  }
  signMessage(answer, 'result', deriveSessionKey(APPROVER.material, sessionId), APPROVER.id)
  return answer
}

/**
 * Runs one session, step `i` on `urls[i % urls.length]`, each step naming the chain head the
 * step before answered with; returns what each step answered (decision and reason codes).
 */
async function session(urls: string[]): Promise<{ id: string; answers: string[] }> {
  const id = `s-${randomUUID()}`
  let step = 0
  let head: string | undefined
  const answers: string[] = []
  const on = () => urls[step++ % urls.length] as string
  const send = async (method: string, payload: JsonObject, params: JsonObject = {}) => {
    const message = acsRequest(method, payload, {
      sessionId: id,
      key: KEY,
      params: head ? { chain_hash: head, ...params } : params,
    })
    const reply = await post(on(), message)
    expect(reply.result, JSON.stringify(reply)).toBeDefined()
    if (typeof reply.result.chain_hash === 'string') head = reply.result.chain_hash
    answers.push(`${method}: ${reply.result.decision} ${(reply.result.reason_codes ?? []).join(',')}`.trim())
    return reply.result
  }
  const hello = await post(on(), clientHello(id, {}, { key: KEY }))
  expect(hello.result.negotiated_version).toBe('0.1.0')
  const intent = {
    raw: 'read the logs',
    parsed: ['filesystem.read'],
    parser_provenance: { origin: 'user_input' },
  }
  await send('steps/sessionStart', { intent })
  await send('steps/toolCallRequest', {
    tool: { name: 'read' },
    capability: 'filesystem.read',
    arguments: {},
  })
  await send('steps/toolCallRequest', {
    tool: { name: 'shell' },
    capability: 'filesystem.read',
    arguments: {},
  })
  const egress = {
    tool: { name: 'fetch' },
    capability: 'network.egress',
    arguments: { url: 'https://x.test' },
  }
  const asked = await send('steps/toolCallRequest', egress)
  expect(asked.ask_details?.approver?.id).toBe(APPROVER.id)
  await send('steps/toolCallRequest', egress, { approval: approval(id, asked.request_id) })
  // The approval was used once: sent again it is refused, wherever it lands.
  await send('steps/toolCallRequest', egress, { approval: approval(id, asked.request_id) })
  await send('steps/toolCallRequest', { ...egress, arguments: { url: 'https://y.test' } })
  await send('steps/agentTrigger', { intent: { ...intent, parsed: ['*'] } })
  await send('steps/sessionEnd', {})
  return { id, answers }
}

function cliIo(): { io: CliIo; out: { stdout: string; stderr: string } } {
  const out = { stdout: '', stderr: '' }
  const io: CliIo = {
    stdout: (t) => {
      out.stdout += t
    },
    stderr: (t) => {
      out.stderr += t
    },
    readStdin: async () => '',
    cwd: dir,
    env: {},
  }
  return { io, out }
}

describe('one ACS session across three instances on one PostgreSQL', () => {
  it('answers each step on another instance as one instance does, and the chain verifies', async (ctx) => {
    if (!pg) return ctx.skip()
    const urls = instances.map((i) => i.url)
    const spread = await session(urls)
    const single = await session([urls[0] as string])
    expect(spread.answers).toEqual(single.answers)
    expect(spread.answers).toEqual([
      'steps/sessionStart: allow',
      'steps/toolCallRequest: allow',
      'steps/toolCallRequest: deny no-shell',
      'steps/toolCallRequest: ask ibac_intent_mismatch',
      'steps/toolCallRequest: allow',
      'steps/toolCallRequest: deny approval_unknown',
      'steps/toolCallRequest: allow',
      'steps/agentTrigger: deny intent_immutable',
      'steps/sessionEnd: allow',
    ])
    for (const id of [spread.id, single.id]) {
      const { io, out } = cliIo()
      expect(await audit(['verify', '--session', id, '--db', pg?.url as string], io), out.stderr).toBe(0)
      expect(out.stdout).toMatch(/OK/)
      expect(out.stdout).toMatch(/10 entries/)
    }
  })

  it('passes `npm run conformance -- acs URL` through a round-robin balancer as against one instance', async (ctx) => {
    if (!pg) return ctx.skip()
    const one = await runConformance(`${instances[0]?.url}/acs`, KEY)
    const cluster = await runConformance(`${balancerUrl}/acs`, KEY)
    expect(one.failed).toBe(0)
    expect(cluster.failed, cluster.table).toBe(0)
    expect(cluster.table).toBe(one.table)
  })
})
