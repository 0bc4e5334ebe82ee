// A small local server speaking the OpenAI Chat Completions API with scripted answers, so
// the LLM judge runs against a real HTTP endpoint without a model.

import type { ServerResponse } from 'node:http'
import { type Listener, listen } from '../net/helpers.js'

/** One request the fake model received. */
export interface ChatRequest {
  model: string
  messages: { role: string; content: string }[]
  tools: { function: { name: string } }[]
  tool_choice: unknown
  authorization: string | undefined
}

/** What the fake model answers to a request. */
export type Script = (request: ChatRequest, res: ServerResponse) => void

/** A Chat Completions answer calling `decide` with the given arguments. */
export function decideAnswer(args: Record<string, unknown> | string, tokens = 50, name = 'decide') {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        finish_reason: 'tool_calls',
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
            },
          ],
        },
      },
    ],
    usage: { prompt_tokens: tokens - 10, completion_tokens: 10, total_tokens: tokens },
  }
}

/** A Chat Completions answer in free text. */
export function textAnswer(text: string) {
  return {
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: text } }],
    usage: { total_tokens: 20 },
  }
}

/** Sends a JSON answer. */
export function reply(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

/** The fake model: `script` may be swapped by each test; `requests` records what arrived. */
export interface FakeLlm {
  listener: Listener
  baseUrl: string
  requests: ChatRequest[]
  script: Script
  close(): Promise<void>
}

/** Starts the fake model on 127.0.0.1. */
export async function startFakeLlm(): Promise<FakeLlm> {
  const fake = {
    requests: [] as ChatRequest[],
    script: ((_r, res) =>
      reply(res, decideAnswer({ decision: 'allow', reason: 'fine', injection_detected: false }))) as Script,
  } as FakeLlm
  fake.listener = await listen('127.0.0.1', (req, res, body) => {
    if (req.url !== '/v1/chat/completions' || req.method !== 'POST')
      return reply(res, { error: 'not found' }, 404)
    const request = { ...JSON.parse(body), authorization: req.headers.authorization } as ChatRequest
    fake.requests.push(request)
    fake.script(request, res)
  })
  fake.baseUrl = `http://127.0.0.1:${fake.listener.port}/v1`
  fake.close = () => fake.listener.close()
  return fake
}
