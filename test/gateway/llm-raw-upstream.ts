// A loopback model server that answers exactly what a test scripts: a JSON body (with a
// status) or a list of server-sent events, so tests can send shapes the scripted model of
// llm-upstream.ts never makes (legacy function calls, server tool blocks, unknown fields).
// Every request is kept (method, path, body).

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One scripted answer: a JSON body, or SSE events (`{event?, data}`; data objects are JSON-encoded). */
export type RawAnswer =
  | { status?: number; json: unknown }
  | { events: Array<{ event?: string; data: unknown }> }

/** A request the server received. */
export interface RawRequest {
  method: string
  path: string
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary request fields
  body: any
}

/** The running server. */
export interface RawModelServer {
  url: string
  requests: RawRequest[]
  /** The answer to the next requests (until replaced). */
  answer(next: RawAnswer): void
  close(): Promise<void>
}

/** Starts the server on 127.0.0.1. */
export async function startRawModelServer(): Promise<RawModelServer> {
  let current: RawAnswer = { json: {} }
  const requests: RawRequest[] = []
  const server: Server = createServer((req, res) => {
    let text = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      text += chunk
    })
    req.on('end', () => {
      requests.push({
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        body: text ? JSON.parse(text) : undefined,
      })
      const answer = current
      if ('json' in answer) {
        res
          .writeHead(answer.status ?? 200, { 'content-type': 'application/json' })
          .end(JSON.stringify(answer.json))
        return
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      for (const { event, data } of answer.events) {
        const line = typeof data === 'string' ? data : JSON.stringify(data)
        res.write(`${event ? `event: ${event}\n` : ''}data: ${line}\n\n`)
      }
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer(next) {
      current = next
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
