// The A2A gateway as the attack tests meet it: a real `warden a2a` server on loopback in front
// of the official @a2a-js/sdk agent (test/gateway/a2a-peer.ts), with token auth pinning two
// tenants (token-a → tA, token-b → tB), the decisions it records, and raw JSON-RPC and
// HTTP+JSON calls as an attacker would send them.

import type { Approver, DecisionRecord, HookDefinition, JsonObject } from '../../src/core/index.js'
import { type A2aGateway, type A2aLimits, startA2aGateway } from '../../src/gateway/index.js'
import { buildEngine } from '../../src/sources/index.js'
import { type PeerAgent, startPeerAgent } from '../gateway/a2a-peer.js'

/** The tokens and the tenant each is pinned to. */
export const TENANT_TOKENS: Record<string, string> = { 'token-a': 'tA', 'token-b': 'tB' }

/** A gateway, its upstream agent and what it recorded. */
export interface TenantGateway {
  peer: PeerAgent
  gateway: A2aGateway
  records: DecisionRecord[]
  logs: string[]
  close(): Promise<void>
}

/** Starts the SDK agent and a gateway with two tenants in front of it. */
export async function startTenantGateway(
  options: {
    hooks?: HookDefinition[]
    limits?: Partial<A2aLimits>
    approver?: Approver
    pushes?: boolean
    networkAllow?: string[]
  } = {},
): Promise<TenantGateway> {
  const peer = await startPeerAgent('peer-agent', { pushes: options.pushes ?? false })
  const records: DecisionRecord[] = []
  const logs: string[] = []
  const engine = buildEngine(undefined, {
    extraHooks: options.hooks ?? [],
    recorder: { record: (record) => void records.push(record) },
    ...(options.approver ? { approver: options.approver } : {}),
  })
  const gateway = await startA2aGateway({
    engine,
    upstream: peer.url,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.networkAllow ? { networkAllow: options.networkAllow } : {}),
    log: (line) => void logs.push(line),
    authenticate: async (authorization) => {
      const tenant = TENANT_TOKENS[(authorization ?? '').replace(/^Bearer /, '')]
      return tenant ? { principal: { tenant } } : { error: 'an access token is required' }
    },
  })
  return {
    peer,
    gateway,
    records,
    logs,
    async close() {
      await gateway.close()
      await peer.close()
      await engine.close()
    },
  }
}

/** A raw answer: HTTP status, and the body as JSON (or text when it is not JSON). */
export interface Answer {
  status: number
  body: JsonObject
  text: string
}

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text()
  let body: JsonObject = {}
  try {
    body = JSON.parse(text) as JsonObject
  } catch {
    // an event stream or an empty body: the text says it
  }
  return { status: response.status, body, text }
}

/** One JSON-RPC call to the gateway's JSON-RPC interface, as token `token`. */
export async function rpc(
  gateway: A2aGateway,
  token: string,
  method: string,
  params: JsonObject,
  signal?: AbortSignal,
): Promise<Answer> {
  const response = await fetch(new URL('/a2a/jsonrpc', gateway.url), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'a2a-version': '1.0',
      authorization: `Bearer ${token}`,
      accept:
        method.includes('Streaming') || method === 'SubscribeToTask'
          ? 'text/event-stream'
          : 'application/json',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    ...(signal ? { signal } : {}),
  })
  return answerOf(response)
}

/** One HTTP+JSON call under the gateway's REST interface (`path` below /a2a/rest). */
export async function rest(
  gateway: A2aGateway,
  token: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: JsonObject,
): Promise<Answer> {
  const response = await fetch(new URL(`/a2a/rest${path}`, gateway.url), {
    method,
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${token}` },
    ...(body ? { body: JSON.stringify(body) } : {}),
  })
  return answerOf(response)
}

/** A user message in the current spec's JSON. */
export function message(text: string, extra: JsonObject = {}): JsonObject {
  return { messageId: globalThis.crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra }
}

/** The id of the task a `stream:1:TEXT` send created, sent as token `token`. */
export async function createTask(gateway: A2aGateway, token: string): Promise<string> {
  const sent = await rpc(gateway, token, 'SendMessage', { message: message('stream:1:work') })
  const result = sent.body.result as JsonObject | undefined
  const task = (result?.task ?? result) as JsonObject | undefined
  if (typeof task?.id !== 'string') throw new Error(`no task was created: ${sent.text}`)
  return task.id
}
