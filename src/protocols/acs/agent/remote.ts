// Warden as an Observed Agent (§4, §6.4, §8.6, §10): consults a remote ACS Guardian for a
// `guardian` hook with `protocol: acs`. Per session it does the handshake once, signs every
// request (HMAC under the session key, or an ACS-Crypto key), sends the last chain head it
// was given and serializes the session's requests so that head stays exact, and checks
// every answer: JSON-RPC result, its signature (under the session key or the Guardian's
// public key), the request id echoed, a known disposition, a 64-hex chain_hash. Anything
// else is a decision failure, thrown with its cause for the handler's posture to apply.

import { randomUUID } from 'node:crypto'
import type { CheckedEvent, Json, JsonObject } from '../../../core/index.js'
import type { EnvelopeSigner } from '../core/index.js'
import type { VerifyingKey } from '../profiles/index.js'
import { acsRequest, type ClientKey, clientHello, responseSigned, responseVerifies } from './client.js'

/** How a remote Guardian is reached and trusted. */
export interface RemoteAcsGuardian {
  name: string
  url: string
  agentId: string
  /** The shared HMAC key material (signs requests unless `signer`, verifies HMAC answers). */
  key?: ClientKey
  /** An ACS-Crypto key the requests are signed with. */
  signer?: EnvelopeSigner
  /** The Guardian's public key: its answers must be signed with it. */
  guardianKey?: VerifyingKey
}

/** Posts one JSON body and gives back the HTTP status and text. */
export type AcsPost = (
  url: string,
  body: string,
  tenant: string | undefined,
) => Promise<{ status: number; text: string }>

/** The remote Guardian's answer, checked. */
export interface AcsAnswer {
  decision: 'allow' | 'deny' | 'modify' | 'ask' | 'defer'
  reasoning?: string
  reasonCodes: string[]
  chainHash?: string
}

const DISPOSITIONS = new Set(['allow', 'deny', 'modify', 'ask', 'defer'])
const MAX_SESSIONS = 10_000

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The ACS method and payload for an event, or undefined when ACS has none Warden sends. */
export function acsStepFor(event: CheckedEvent): { method: string; payload: JsonObject } | undefined {
  const payload = event.payload as JsonObject
  const tool = isObject(payload.tool) ? payload.tool : undefined
  const message = isObject(payload.message) ? payload.message : undefined
  switch (event.event) {
    case 'tool.pre': {
      const input = isObject(tool?.input) ? tool.input : {}
      const args: JsonObject = {}
      for (const [name, value] of Object.entries(input)) args[name] = { value: value ?? null }
      const step: JsonObject = { tool: { id: String(tool?.name ?? '') }, arguments: args }
      if (typeof tool?.id === 'string') step.execution_id = tool.id
      return { method: 'steps/toolCallRequest', payload: step }
    }
    case 'tool.post':
      return {
        method: 'steps/toolCallResult',
        payload: {
          tool: { id: String(tool?.name ?? '') },
          outputs: (tool?.output ?? null) as Json,
          exit_status: tool?.isError ? 'error' : 'success',
          ...(typeof tool?.id === 'string' ? { execution_id: tool.id } : {}),
        },
      }
    case 'user.message':
    case 'agent.response':
      return {
        method: event.event === 'user.message' ? 'steps/userMessage' : 'steps/agentResponse',
        payload: { message: String(message?.text ?? '') },
      }
    default:
      return undefined
  }
}

/** A session with one remote Guardian: its handshake, last chain head and request queue. */
interface Session {
  hello: Promise<void>
  head?: string
  queue: Promise<unknown>
}

function failure(guardian: RemoteAcsGuardian, what: string): Error {
  return new Error(`ACS Guardian ${guardian.name}: ${what}`)
}

/** Parses and checks a signed answer. @throws Error naming what is wrong. */
function checkedResult(
  guardian: RemoteAcsGuardian,
  sessionId: string,
  answer: { status: number; text: string },
): JsonObject {
  if (answer.status !== 200) throw failure(guardian, `answered HTTP ${answer.status}`)
  let body: unknown
  try {
    body = JSON.parse(answer.text)
  } catch {
    throw failure(guardian, 'answered something that is not JSON')
  }
  if (!isObject(body)) throw failure(guardian, 'answered something that is not a JSON-RPC response')
  if (isObject(body.error)) {
    const { code, message } = body.error
    throw failure(guardian, `answered error ${String(code)}: ${String(message).slice(0, 300)}`)
  }
  if (!isObject(body.result)) throw failure(guardian, 'answered without a result')
  const signature = body.result.signature
  if (!isObject(signature)) throw failure(guardian, 'answered unsigned: the answer is not trusted')
  const verified = guardian.guardianKey
    ? responseVerifies(body, guardian.guardianKey)
    : guardian.key !== undefined && responseSigned(body, guardian.key, sessionId)
  if (!verified) {
    throw failure(
      guardian,
      `the answer's ${String(signature.algorithm).slice(0, 40)} signature does not verify${guardian.guardianKey ? ` under the Guardian key ${guardian.guardianKey.id}` : ' under the session key'}: the answer is not trusted`,
    )
  }
  return body.result
}

/** Creates the Observed Agent side for remote ACS Guardians. */
export function createAcsRemote(post: AcsPost): {
  consult(guardian: RemoteAcsGuardian, event: CheckedEvent): Promise<AcsAnswer>
} {
  const sessions = new Map<string, Session>()
  const fallbackSession = randomUUID()

  /** How requests to the Guardian are signed: its ACS-Crypto key, else the shared key. */
  const signing = (guardian: RemoteAcsGuardian): { key?: ClientKey; signer?: EnvelopeSigner } =>
    guardian.signer ? { signer: guardian.signer } : guardian.key ? { key: guardian.key } : {}

  async function handshake(guardian: RemoteAcsGuardian, sessionId: string, tenant: string | undefined) {
    const offered = guardian.guardianKey ? [guardian.guardianKey.algorithm] : ['HMAC-SHA256']
    const hello = clientHello(
      sessionId,
      {
        signature_algorithms_supported: offered,
        methods_implemented: [
          'steps/toolCallRequest',
          'steps/toolCallResult',
          'steps/userMessage',
          'steps/agentResponse',
        ],
      },
      { agentId: guardian.agentId, ...signing(guardian) },
    )
    const result = checkedResult(guardian, sessionId, await post(guardian.url, JSON.stringify(hello), tenant))
    if (typeof result.negotiated_version !== 'string')
      throw failure(guardian, 'the handshake answer has no negotiated_version')
  }

  async function ask(
    guardian: RemoteAcsGuardian,
    session: Session,
    sessionId: string,
    step: { method: string; payload: JsonObject },
    tenant: string | undefined,
  ): Promise<AcsAnswer> {
    await session.hello
    const params: JsonObject = session.head ? { chain_hash: session.head } : {}
    const request = acsRequest(step.method, step.payload, {
      sessionId,
      agentId: guardian.agentId,
      nonce: true,
      params,
      ...signing(guardian),
    })
    const sentId = (request.params as JsonObject).request_id
    const result = checkedResult(
      guardian,
      sessionId,
      await post(guardian.url, JSON.stringify(request), tenant),
    )
    if (result.request_id !== sentId) throw failure(guardian, 'the answer is for another request_id')
    const decision = result.decision
    if (typeof decision !== 'string' || !DISPOSITIONS.has(decision))
      throw failure(guardian, `answered an unknown decision ${JSON.stringify(decision).slice(0, 40)}`)
    const chainHash = result.chain_hash
    if (typeof chainHash !== 'string' || !/^[0-9a-f]{64}$/.test(chainHash))
      throw failure(
        guardian,
        'the answer carries no chain_hash (64 hex): the session chain cannot be followed',
      )
    session.head = chainHash
    return {
      decision: decision as AcsAnswer['decision'],
      ...(typeof result.reasoning === 'string' ? { reasoning: result.reasoning } : {}),
      reasonCodes: Array.isArray(result.reason_codes) ? result.reason_codes.map(String) : [],
      chainHash,
    }
  }

  return {
    consult(guardian, event) {
      const step = acsStepFor(event)
      if (!step) return Promise.reject(failure(guardian, `ACS has no method Warden sends for ${event.event}`))
      const context = event.context as { session?: { id?: unknown }; tenantId?: unknown }
      const sessionId = typeof context.session?.id === 'string' ? context.session.id : fallbackSession
      const tenant = typeof context.tenantId === 'string' ? context.tenantId : undefined
      const key = `${guardian.url}\u0000${tenant ?? ''}\u0000${sessionId}`
      let session = sessions.get(key)
      if (!session) {
        const fresh: Session = { hello: handshake(guardian, sessionId, tenant), queue: Promise.resolve() }
        // A failed handshake is retried by the next event rather than kept.
        fresh.hello.catch(() => sessions.get(key) === fresh && sessions.delete(key))
        session = fresh
        sessions.set(key, session)
        if (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value as string)
      }
      const current = session
      // One request at a time per session, so the chain head sent is the one the Guardian holds.
      const answer = current.queue.then(() => ask(guardian, current, sessionId, step, tenant))
      current.queue = answer.catch(() => undefined)
      return answer
    },
  }
}
