// A local model server speaking OpenAI's Chat Completions (JSON and SSE streaming) and
// Responses APIs on loopback, scripted per test: each model call takes the next scripted
// turn (the last repeats), and every request is kept so tests can read what the model
// was told next.

import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ScriptedTurn, ScriptOptions } from './anthropic.js'

export type { ScriptedTurn, ScriptOptions } from './anthropic.js'

/** The running server. */
export interface OpenAiServer {
  /** Base URL including `/v1`. */
  url: string
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary request fields
  requests: { path: string; body: any }[]
  close(): Promise<void>
}

let sequence = 0

/** Starts the server with a script of model turns. */
export async function startOpenAiServer(
  script: ScriptedTurn[],
  options: ScriptOptions = {},
): Promise<OpenAiServer> {
  const requests: OpenAiServer['requests'] = []
  let next = 0
  const server: Server = createServer((req, res) => {
    void read(req).then((text) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/'
      const body = text ? JSON.parse(text) : {}
      requests.push({ path, body })
      const at = options.perConversation ? toolResults(body) : next++
      const turn = script[Math.min(at, script.length - 1)] ?? { text: 'done' }
      const callId = `call_${++sequence}`
      if (path.endsWith('/chat/completions')) {
        if (body.stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' })
          for (const chunk of chatChunks(turn, callId, body.model))
            res.write(`data: ${JSON.stringify(chunk)}\n\n`)
          res.end('data: [DONE]\n\n')
          return
        }
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify(chatCompletion(turn, callId, body.model)))
        return
      }
      if (path.endsWith('/responses')) {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify(response(turn, callId, body.model)))
        return
      }
      res.writeHead(404, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: `no route ${path}` } }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Tool results in a Chat Completions (`role: tool`) or Responses (`function_call_output`) request. */
// biome-ignore lint/suspicious/noExplicitAny: the request is whatever the SDK sent
function toolResults(body: any): number {
  const items: unknown = body?.messages ?? body?.input
  if (!Array.isArray(items)) return 0
  return items.filter(
    (item: { role?: unknown; type?: unknown }) =>
      item?.role === 'tool' || item?.type === 'function_call_output',
  ).length
}

const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }

function chatCompletion(turn: ScriptedTurn, callId: string, model: string) {
  const message: Record<string, unknown> = { role: 'assistant', content: turn.text ?? null }
  if ('tool' in turn) {
    message.tool_calls = [
      {
        id: callId,
        type: 'function',
        function: { name: turn.tool.name, arguments: JSON.stringify(turn.tool.input) },
      },
    ]
  }
  return {
    id: `chatcmpl-${sequence}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: 'tool' in turn ? 'tool_calls' : 'stop' }],
    usage,
  }
}

/** The turn as chat.completion.chunk objects: text in a few pieces, then the tool call. */
function chatChunks(turn: ScriptedTurn, callId: string, model: string) {
  const base = {
    id: `chatcmpl-${sequence}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
  }
  const chunks: unknown[] = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
  ]
  const words = (turn.text ?? '').split(/(?<= )/)
  for (const word of words) {
    if (word) chunks.push({ ...base, choices: [{ index: 0, delta: { content: word }, finish_reason: null }] })
  }
  if ('tool' in turn) {
    chunks.push({
      ...base,
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              {
                index: 0,
                id: callId,
                type: 'function',
                function: { name: turn.tool.name, arguments: JSON.stringify(turn.tool.input) },
              },
            ],
          },
          finish_reason: null,
        },
      ],
    })
  }
  chunks.push({
    ...base,
    choices: [{ index: 0, delta: {}, finish_reason: 'tool' in turn ? 'tool_calls' : 'stop' }],
    usage,
  })
  return chunks
}

function response(turn: ScriptedTurn, callId: string, model: string) {
  const output: unknown[] = []
  if (turn.text) {
    output.push({
      type: 'message',
      id: `msg_${sequence}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: turn.text, annotations: [] }],
    })
  }
  if ('tool' in turn) {
    output.push({
      type: 'function_call',
      id: `fc_${sequence}`,
      call_id: callId,
      name: turn.tool.name,
      arguments: JSON.stringify(turn.tool.input),
      status: 'completed',
    })
  }
  return {
    id: `resp_${sequence}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    model,
    output,
    usage: {
      input_tokens: 10,
      output_tokens: 5,
      total_tokens: 15,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    },
  }
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      text += chunk
    })
    req.on('end', () => resolve(text))
    req.on('error', reject)
  })
}
