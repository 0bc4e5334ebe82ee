// Real `warden serve` processes: two remote Guardians composed by a local Warden through
// `guardians:` (any deny is a deny, modifies merge in declared order, allow needs all, an
// unreachable Guardian fails closed), and graceful shutdown on SIGTERM and SIGINT losing
// no request in flight. The local Warden reaches the remote ones through a relay that
// checks every answer they give against both AOS schemas.

import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer as createHttpServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { buildEngine, parseConfig } from '../../src/sources/index.js'
import { cliArgs, ROOT } from '../helpers/cli.js'
import { FULL_CONTEXT } from './aos-fixtures.js'
import { expectValidResponse, postAos, startGuardian } from './aos-helper.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-aos-'))
const children: ChildProcess[] = []

interface Served {
  url: string
  child: ChildProcess
  exited: Promise<number | null>
  stderr: () => string
  stdout: () => string
}

/** Starts `warden serve` on a free loopback port with the given config text or file. */
async function serve(name: string, yaml: string | { file: string }): Promise<Served> {
  const config = typeof yaml === 'string' ? join(dir, `${name}.yaml`) : yaml.file
  if (typeof yaml === 'string') writeFileSync(config, yaml)
  const child = spawn(
    process.execPath,
    cliArgs(['serve', '--config', config, '--port', '0', '--db', join(dir, `${name}.db`)]),
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  children.push(child)
  let stdout = ''
  let stderr = ''
  child.stderr?.on('data', (d) => {
    stderr += d
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start: ${stderr}`)), 45_000)
    child.stdout?.on('data', (d) => {
      stdout += d
      const match = /listening on (http:\/\/[^\s]+)\/aos[\s\S]*curl [^\n]*\n/.exec(stdout)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve(match[1])
      }
    })
    void exited.then((code) => reject(new Error(`${name} exited with ${code}: ${stderr}`)))
  })
  return { url, child, exited, stderr: () => stderr, stdout: () => stdout }
}

/** A command hook script answering in the GoClaw dialect. */
function script(name: string, body: string): string {
  const file = join(dir, `${name}.mjs`)
  writeFileSync(
    file,
    `let text = ''\nprocess.stdin.on('data', (d) => (text += d))\nprocess.stdin.on('end', () => {\n  const input = JSON.parse(text).tool_input\n${body}\n})\n`,
  )
  return file
}

const guardianA = () =>
  script(
    'guardian-a',
    `  if (String(input.content).includes('forbidden')) { process.stderr.write('A refuses forbidden content'); process.exit(2) }
  console.log(JSON.stringify({ decision: 'modify', updatedInput: { ...input, content: 'A:' + input.content, a: 'from-a', shared: 'a' } }))`,
  )
const guardianB = () =>
  script(
    'guardian-b',
    `  console.log(JSON.stringify({ decision: 'modify', updatedInput: { ...input, b: 'from-b', shared: 'b' } }))`,
  )

function remoteYaml(hook: string): string {
  return `hooks:\n  - name: judge\n    event: tool.pre\n    timeoutMs: 15000\n    handler: { type: command, command: node ${JSON.stringify(hook)} }\n`
}

function request(content: string) {
  return {
    jsonrpc: '2.0',
    id: `r-${content}`,
    method: 'steps/toolCallRequest',
    params: {
      toolCallRequest: {
        executionId: 'e-1',
        toolId: 'send_sms',
        inputs: [
          { name: 'content', value: content },
          { name: 'to', value: '+1' },
        ],
      },
      context: FULL_CONTEXT,
    },
  }
}

const relays: Server[] = []
const relayed = { answers: 0, invalid: [] as string[] }

/** A loopback relay to a remote Guardian that validates each of its answers. */
async function relay(target: string): Promise<string> {
  const server = createHttpServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const tenant = req.headers['x-warden-tenant']
    const response = await fetch(`${target}/aos`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(tenant ? { 'x-warden-tenant': String(tenant) } : {}),
      },
      body: Buffer.concat(chunks),
    })
    const text = await response.text()
    try {
      expectValidResponse(JSON.parse(text))
      relayed.answers++
    } catch (error) {
      relayed.invalid.push(String(error))
    }
    res.writeHead(response.status, { 'content-type': 'application/json' })
    res.end(text)
  })
  relays.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
}

let a: Served
let b: Served
beforeAll(async () => {
  const [servedA, servedB] = await Promise.all([
    serve('a', remoteYaml(guardianA())),
    serve('b', remoteYaml(guardianB())),
  ])
  a = { ...servedA, url: await relay(servedA.url) }
  b = { ...servedB, url: await relay(servedB.url) }
}, 90_000)
afterEach(() => {
  expect(relayed.invalid).toEqual([])
})
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
  for (const server of relays) {
    server.closeAllConnections()
    server.close()
  }
  rmSync(dir, { recursive: true, force: true })
})

async function localWarden(guardians: { name: string; url: string }[]) {
  const yaml = `network: { allow: ["127.0.0.0/8"] }\nguardians:\n${guardians
    .map((g) => `  - { name: ${g.name}, url: "${g.url}/aos", timeoutMs: 15000 }`)
    .join('\n')}\n`
  return startGuardian({ engine: buildEngine(parseConfig(yaml, dir)) })
}

describe('composition of remote Guardians', () => {
  it('merges modifies in declared order: the later Guardian wins a conflict', async () => {
    const ab = await localWarden([
      { name: 'a', url: a.url },
      { name: 'b', url: b.url },
    ])
    const ba = await localWarden([
      { name: 'b', url: b.url },
      { name: 'a', url: a.url },
    ])
    try {
      const first = (await ab.post(request('hello'))).body.result
      expect(first.decision).toBe('modify')
      expect(first.modifiedRequest.params.toolCallRequest.inputs).toEqual([
        { name: 'content', value: 'A:hello' },
        { name: 'to', value: '+1' },
        { name: 'a', value: 'from-a' },
        { name: 'shared', value: 'b' },
        { name: 'b', value: 'from-b' },
      ])
      const reversed = (await ba.post(request('hello'))).body.result
      const shared = reversed.modifiedRequest.params.toolCallRequest.inputs.find(
        (i: { name: string }) => i.name === 'shared',
      )
      expect(shared.value).toBe('a')
      expect(relayed.answers).toBeGreaterThanOrEqual(4)
    } finally {
      await ab.close()
      await ba.close()
    }
  })

  it('denies when any Guardian denies, even when the others modify', async () => {
    const ab = await localWarden([
      { name: 'b', url: b.url },
      { name: 'a', url: a.url },
    ])
    try {
      const result = (await ab.post(request('forbidden words'))).body.result
      expect(result.decision).toBe('deny')
      expect(result.message).toContain('guardian a denied: A refuses forbidden content')
    } finally {
      await ab.close()
    }
  })

  it('needs every Guardian: an unreachable one denies (fail closed), naming it', async () => {
    const closed = await localWarden([
      { name: 'b', url: b.url },
      { name: 'gone', url: 'http://127.0.0.1:9' },
    ])
    try {
      const result = (await closed.post(request('hello'))).body.result
      expect(result.decision).toBe('deny')
      expect(result.message).toContain('guardian gone could not answer')
    } finally {
      await closed.close()
    }
  })
})

describe('warden serve --config examples/warden.yaml (what npm start runs)', () => {
  it('prints its URL and a ready-to-paste curl whose request the example hooks deny', async () => {
    const served = await serve('examples', { file: join(ROOT, 'examples', 'warden.yaml') })
    try {
      const curl = /curl -s (\S+)\/aos -H 'content-type: application\/json' -d '([^']+)'/.exec(
        served.stdout(),
      )
      expect(curl?.[1]).toBe(served.url)
      const answer = await postAos(served.url, JSON.parse(curl?.[2] ?? '{}'))
      expect(answer.body.result).toMatchObject({ decision: 'deny', reasonCode: ['no-destructive-shell'] })
    } finally {
      served.child.kill('SIGTERM')
      await served.exited
    }
  }, 60_000)
})

describe('graceful shutdown', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`finishes requests in flight on ${signal}, then exits 0`, async () => {
      const slow = script(
        `slow-${signal}`,
        `  setTimeout(() => console.log(JSON.stringify({ decision: 'allow' })), 1500)`,
      )
      const served = await serve(`slow-${signal}`, remoteYaml(slow))
      const inFlight = [1, 2, 3].map((i) => postAos(served.url, { ...request(`slow-${i}`), id: i }))
      await new Promise((resolve) => setTimeout(resolve, 500))
      served.child.kill(signal)
      const answers = await Promise.all(inFlight)
      for (const [i, answer] of answers.entries()) {
        expect(answer.status).toBe(200)
        expect(answer.body).toMatchObject({ id: i + 1, result: { decision: 'allow' } })
      }
      expect(await served.exited).toBe(0)
      expect(served.stderr()).toContain(signal)
      await expect(fetch(`${served.url}/healthz`)).rejects.toThrow()
    }, 60_000)
  }
})
