// A scripted OpenAI Responses server on loopback: each call gets the next scripted reply, a
// whole response (any output items) or a stream (any list of events, each sent as an SSE
// frame with its type), so tests can send the shapes a real model may send — local shell,
// custom tool and apply_patch calls, MCP calls, logprobs, refusals, unknown types. Requests
// (path, method, body) are kept.

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One scripted reply. */
export type Reply =
  | { output: unknown[]; extra?: Record<string, unknown> }
  | { events: Record<string, unknown>[] }
  | { status: number; body: unknown }

export interface ResponsesServer {
  url: string
  requests: { method: string; path: string; body: Record<string, unknown> }[]
  script(replies: Reply[]): void
  close(): Promise<void>
}

/** A whole response holding `output`. */
export function responseOf(output: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'resp_1',
    object: 'response',
    created_at: 1,
    status: 'completed',
    model: 'gpt-test',
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
    ...extra,
  }
}

/** A message output item with these output_text parts. */
export function message(...texts: string[]): Record<string, unknown> {
  return {
    type: 'message',
    id: 'msg_1',
    role: 'assistant',
    status: 'completed',
    content: texts.map((text) => ({ type: 'output_text', text, annotations: [] })),
  }
}

/** The events of a streamed answer: created, the given events (numbered), completed with `output`. */
export function streamOf(events: Record<string, unknown>[], output: unknown[]): Record<string, unknown>[] {
  const all = [
    { type: 'response.created', response: { ...responseOf([]), status: 'in_progress' } },
    ...events,
    { type: 'response.completed', response: responseOf(output) },
  ]
  return all.map((event, i) => ({ ...event, sequence_number: i }))
}

/** Starts the server. */
export async function startResponsesServer(): Promise<ResponsesServer> {
  let replies: Reply[] = [{ output: [message('ok')] }]
  let next = 0
  const requests: ResponsesServer['requests'] = []
  const server: Server = createServer((req, res) => {
    let text = ''
    req.setEncoding('utf8')
    req.on('data', (c: string) => {
      text += c
    })
    req.on('end', () => {
      requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', body: text ? JSON.parse(text) : {} })
      const reply = replies[Math.min(next++, replies.length - 1)] as Reply
      if ('status' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(reply.body))
      } else if ('events' in reply) {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        for (const event of reply.events)
          res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`)
        res.end()
      } else {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(responseOf(reply.output, reply.extra)))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script(list) {
      replies = list
      next = 0
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
