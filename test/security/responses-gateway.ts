// The gateway the OpenAI Responses attack tests run against: a real `warden llm` server
// (in process) before a scripted loopback Responses model, with hooks that deny a user
// message, deny `rm -rf` in any tool input, redact passwords in tool results and keys in
// answers, and note what each hook saw; the official `openai` client pointed at it.

import OpenAI from 'openai'
import {
  deny,
  type Engine,
  type HookCall,
  type HookDefinition,
  type JsonObject,
  modify,
} from '../../src/core/index.js'
import {
  type LlmGateway,
  RESPONSES_TABLES,
  startLlmGateway,
  unknownTypePolicy,
} from '../../src/gateway/index.js'
import { buildEngine } from '../../src/sources/index.js'
import { type ResponsesServer, startResponsesServer } from '../gateway/responses-upstream.js'

export const SECRET = 'sk-live0123456789'
export const seen: { event: string; payload: JsonObject }[] = []

export const HOOKS: HookDefinition[] = [
  {
    name: 'no-forbidden',
    event: 'user.message',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        seen.push({ event: 'user.message', payload: event.payload })
        return String((event.payload.message as JsonObject).text).includes('forbidden')
          ? deny('that topic is off limits')
          : undefined
      },
    },
  },
  {
    name: 'no-rm-rf',
    event: 'tool.pre',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        seen.push({ event: 'tool.pre', payload: event.payload })
        return JSON.stringify((event.payload.tool as JsonObject).input).includes('rm -rf')
          ? deny('rm -rf is never allowed')
          : undefined
      },
    },
  },
  {
    name: 'redact-passwords',
    event: 'tool.post',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        const tool = event.payload.tool as JsonObject
        return JSON.stringify(tool.output).includes('password=')
          ? modify({ tool: { ...tool, output: 'password=[REDACTED]' } })
          : undefined
      },
    },
  },
  {
    name: 'report',
    event: 'model.post',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        seen.push({ event: 'model.post', payload: event.payload })
        return undefined
      },
    },
  },
  {
    name: 'redact-keys',
    event: 'agent.response',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        const message = event.payload.message as JsonObject
        const text = String(message.text)
        if (text.includes('TOP SECRET')) return deny('the answer discloses a secret')
        const redacted = text.replace(/sk-[A-Za-z0-9]{8,}/g, '[REDACTED]')
        return redacted === text ? undefined : modify({ message: { ...message, text: redacted } })
      },
    },
  },
]

/** A running gateway with its upstream, engine and client. */
export interface ResponsesGateway {
  upstream: ResponsesServer
  gateway: LlmGateway
  engine: Engine
  client: OpenAI
  /** Keys the operator's setting let through, as reported. */
  letThrough: string[]
  /** A streamed call through the gateway, its raw SSE text. */
  rawStream(body: Record<string, unknown>): Promise<string>
  close(): Promise<void>
}

/** Starts the upstream, the engine and the gateway (tool_search_call output let through). */
export async function startResponsesGateway(): Promise<ResponsesGateway> {
  const letThrough: string[] = []
  const upstream = await startResponsesServer()
  const engine = buildEngine(undefined, { extraHooks: HOOKS })
  const gateway = await startLlmGateway({
    engine,
    upstream: new URL(upstream.url),
    limits: { checkEveryChars: 4, holdBackChars: 24, maxTextChars: 4096 },
    unknownTypes: unknownTypePolicy(
      'llm.allowUnknownTypes',
      ['openai.responses/output/tool_search_call'],
      RESPONSES_TABLES,
      (key) => letThrough.push(key),
    ),
  })
  const client = new OpenAI({ baseURL: new URL('/v1', gateway.url).href, apiKey: 'sk-agent', maxRetries: 0 })
  return {
    upstream,
    gateway,
    engine,
    client,
    letThrough,
    async rawStream(body) {
      const response = await fetch(new URL('/v1/responses', gateway.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-agent' },
        body: JSON.stringify({ model: 'gpt-test', stream: true, ...body }),
      })
      return response.text()
    },
    async close() {
      await gateway.close()
      await upstream.close()
      await engine.close()
    },
  }
}
