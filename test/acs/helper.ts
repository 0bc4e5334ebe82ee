// Starts a Warden Guardian on loopback with `/acs` mounted and given ACS settings, and
// posts to it. Shared by the ACS tests.

import { randomUUID } from 'node:crypto'
import type {
  ApprovalAnswer,
  ApprovalRequest,
  Engine,
  HandlerFactory,
  HookDefinition,
  JsonObject,
} from '../../src/core/index.js'
import { createEngine } from '../../src/index.js'
import {
  type AcsLedger,
  type AcsSettings,
  type ClientKey,
  clientHello,
  settingsWith,
} from '../../src/protocols/acs/index.js'
import { createServer, listen } from '../../src/server/index.js'

export const KEY: ClientKey = { id: 'k1', material: Buffer.from('a shared secret of the deployment', 'utf8') }
export const OLD_KEY: ClientKey = { id: 'k0', material: Buffer.from('the previous shared secret', 'utf8') }

export interface AcsGuardian {
  url: string
  engine: Engine
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response fields
  post(body: unknown): Promise<{ status: number; body: any }>
  /** Handshakes a new session and returns its id. */
  session(extra?: JsonObject): Promise<string>
  close(): Promise<void>
}

export async function startAcs(
  options: {
    hooks?: HookDefinition[]
    settings?: Partial<AcsSettings>
    approver?: (request: ApprovalRequest) => Promise<ApprovalAnswer> | ApprovalAnswer
    ledger?: AcsLedger
    handlers?: HandlerFactory[]
  } = {},
): Promise<AcsGuardian> {
  const engine = createEngine({
    hooks: options.hooks ?? [],
    ...(options.approver ? { approver: options.approver } : {}),
    limits: { approvalTimeoutMs: 5_000 },
    ...(options.handlers ? { handlers: options.handlers } : {}),
  })
  const settings = settingsWith({ keys: [{ id: KEY.id, material: KEY.material }], ...options.settings })
  const app = await createServer({
    engine,
    acs: {
      settings,
      ...(options.ledger ? { ledger: options.ledger } : {}),
      ...(options.approver ? { approver: options.approver } : {}),
    },
  })
  const url = await listen(app, { port: 0, host: '127.0.0.1' })
  const post = async (body: unknown) => {
    const response = await fetch(`${url}/acs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
    const text = await response.text()
    return { status: response.status, body: text.length > 0 ? JSON.parse(text) : undefined }
  }
  return {
    url,
    engine,
    post,
    async session(extra: JsonObject = {}) {
      const sessionId = randomUUID()
      const hello = await post(clientHello(sessionId, extra, { key: KEY }))
      if (!hello.body?.result) throw new Error(`handshake failed: ${JSON.stringify(hello.body)}`)
      return sessionId
    },
    async close() {
      await app.close()
      await engine.close()
    },
  }
}
