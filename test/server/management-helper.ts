// Helpers for the management-plane tests: a real `warden serve` process on a free port,
// tokens made in its store, and a real `ws` client speaking the request/answer/push frames.

import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { secretBoxFrom } from '../../src/audit/index.js'
import { createAccessToken } from '../../src/server/index.js'
import { openStore, type Store, type TokenRole } from '../../src/store/index.js'
import { cliArgs, ROOT } from '../helpers/cli.js'

/** A frame field read by the tests, whatever its shape. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response fields
export type Loose = any

/** The secret key the served Wardens and the tests' stores share. */
export const SECRET_KEY = 'a'.repeat(64)

/** A running `warden serve`. */
export interface Served {
  url: string
  child: ChildProcess
  exited: Promise<number | null>
  stderr: () => string
  /** Everything printed on standard output so far (the start-up banner). */
  stdout: () => string
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** A temporary folder for one test file. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/** Starts `warden serve --port 0` with a config text and a database. */
export async function serve(options: {
  dir: string
  name: string
  yaml: string
  db: string
  args?: string[]
  env?: NodeJS.ProcessEnv
}): Promise<Served> {
  const config = join(options.dir, `${options.name}.yaml`)
  writeFileSync(config, options.yaml)
  const child = spawn(
    process.execPath,
    cliArgs(['serve', '--config', config, '--port', '0', '--db', options.db, ...(options.args ?? [])]),
    {
      cwd: ROOT,
      env: { ...process.env, WARDEN_SECRET_KEY: SECRET_KEY, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let stdout = ''
  let stderr = ''
  child.stderr?.on('data', (d) => {
    stderr += d
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${options.name} did not start: ${stderr}`)), 45_000)
    child.stdout?.on('data', (d) => {
      stdout += d
      const match = /listening on (http:\/\/[^\s]+)\/aos/.exec(stdout)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve(match[1])
      }
    })
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`${options.name} exited with ${code}: ${stderr}`))
    })
  })
  return {
    url,
    child,
    exited,
    stderr: () => stderr,
    stdout: () => stdout,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}

/** Opens the store a served Warden uses (to make tokens, or look at rows). */
export function storeAt(db: string): Promise<Store> {
  return openStore(db, { cwd: ROOT, secrets: secretBoxFrom({ WARDEN_SECRET_KEY: SECRET_KEY }) })
}

/** Makes a token in the store; returns the secret. */
export async function token(
  store: Store,
  role: TokenRole,
  tenant?: string,
  name = `${role}-${tenant ?? 'all'}`,
): Promise<{ id: string; token: string }> {
  const created = await createAccessToken(store, { name, role, tenant })
  return { id: created.id, token: created.token }
}

/** A res frame. */
export interface Res {
  type: 'res'
  id: string | number | null
  ok: boolean
  payload?: Loose
  error?: { code: string; message: string; field?: string }
}

/** A real WebSocket client of `/ws`. */
export class WsClient {
  readonly pushes: { event: string; payload: Loose }[] = []
  readonly errors: Res[] = []
  private next = 1
  private readonly waiting = new Map<string | number, (res: Res) => void>()
  private readonly pushWaiters: {
    match: (p: { event: string; payload: Loose }) => boolean
    resolve: (p: Loose) => void
  }[] = []
  readonly closed: Promise<{ code: number; reason: string }>

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as Res | { type: 'event'; event: string; payload: Loose }
      if (frame.type === 'event') {
        this.pushes.push(frame)
        for (const waiter of [...this.pushWaiters]) {
          if (waiter.match(frame)) {
            this.pushWaiters.splice(this.pushWaiters.indexOf(waiter), 1)
            waiter.resolve(frame.payload)
          }
        }
        return
      }
      const waiter = frame.id === null ? undefined : this.waiting.get(frame.id)
      if (waiter && frame.id !== null) {
        this.waiting.delete(frame.id)
        waiter(frame)
      } else this.errors.push(frame)
    })
    this.closed = new Promise((resolve) =>
      socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
    )
  }

  /** Connects with a token (header), or fails with the HTTP status. */
  static connect(
    base: string,
    secret: string | undefined,
    via: 'header' | 'query' = 'header',
  ): Promise<WsClient> {
    const url = `${base.replace(/^http/, 'ws')}/ws${via === 'query' && secret ? `?token=${encodeURIComponent(secret)}` : ''}`
    const headers = via === 'header' && secret ? { authorization: `Bearer ${secret}` } : undefined
    const socket = new WebSocket(url, headers ? { headers } : {})
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new WsClient(socket)))
      socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
      socket.once('error', reject)
    })
  }

  /** Sends a request and waits for its answer. */
  call(method: string, params?: unknown): Promise<Res> {
    const id = this.next++
    return this.raw(
      JSON.stringify({ type: 'req', id, method, ...(params === undefined ? {} : { params }) }),
      id,
    )
  }

  /** Calls and expects success; returns the payload. */
  async ok(method: string, params?: unknown): Promise<Loose> {
    const res = await this.call(method, params)
    if (!res.ok) throw new Error(`${method} failed: ${JSON.stringify(res.error)}`)
    return res.payload
  }

  /** Sends a raw frame; waits for the answer with `id`, or the next error frame without one. */
  raw(text: string | Buffer, id?: string | number): Promise<Res> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${String(text).slice(0, 80)}`)), 10_000)
      const done = (res: Res) => {
        clearTimeout(timer)
        resolve(res)
      }
      if (id !== undefined) this.waiting.set(id, done)
      else {
        const before = this.errors.length
        const poll = setInterval(() => {
          const res = this.errors[before]
          if (res) {
            clearInterval(poll)
            done(res)
          }
        }, 5)
      }
      this.socket.send(text)
    })
  }

  /** Waits for a push matching the predicate (also one already received). */
  push(event: string, match: (payload: Loose) => boolean = () => true, timeoutMs = 5000): Promise<Loose> {
    const seen = this.pushes.find((p) => p.event === event && match(p.payload))
    if (seen) return Promise.resolve(seen.payload)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${event} push within ${timeoutMs} ms`)), timeoutMs)
      this.pushWaiters.push({
        match: (p) => p.event === event && match(p.payload),
        resolve: (payload) => {
          clearTimeout(timer)
          resolve(payload)
        },
      })
    })
  }

  close(): void {
    this.socket.close()
  }
}

/** A tool call request in AOS, for `/aos`. */
export function toolCall(tool: string, inputs: Record<string, unknown>) {
  return {
    jsonrpc: '2.0',
    id: 1,
    method: 'steps/toolCallRequest',
    params: {
      toolCallRequest: {
        executionId: `e-${Math.random().toString(36).slice(2)}`,
        toolId: tool,
        inputs: Object.entries(inputs).map(([name, value]) => ({ name, value })),
      },
      context: { agent: { id: 'agent-1', name: 'agent' }, session: { id: 's-1' } },
    },
  }
}

/** Posts to `/aos`; returns the HTTP status and the JSON body. */
export async function aos(
  base: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Loose }> {
  const response = await fetch(`${base}/aos`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined }
}

export { writeFileSync }
