// Test helpers for the outbound client: loopback listeners that count what reaches them,
// and an offline resolver whose answers the test scripts (never a real DNS lookup).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ResolvedAddress, Resolver } from '../../src/net/index.js'

/** A listener on one loopback address that counts requests and answers with `handle`. */
export interface Listener {
  server: Server
  port: number
  host: string
  count: number
  /** Bodies and headers of the requests received. */
  received: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[]
  close(): Promise<void>
}

type Handle = (req: IncomingMessage, res: ServerResponse, body: string) => void

/** Starts a counting listener on `host` (a loopback address), on `port` or a free one. */
export async function listen(
  host: string,
  handle: Handle = (_q, r) => r.end('ok'),
  port = 0,
): Promise<Listener> {
  const server = createServer()
  const listener: Listener = {
    server,
    port: 0,
    host,
    count: 0,
    received: [],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  server.on('request', (req, res) => {
    listener.count++
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      listener.received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body })
      handle(req, res, body)
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve())
  })
  listener.port = (server.address() as AddressInfo).port
  return listener
}

/** A scripted resolver: names map to fixed answers or to a list consumed one call at a time. */
export function scriptedResolver(
  table: Record<string, string[] | string[][]>,
): Resolver & { calls: string[] } {
  const calls: string[] = []
  const seen = new Map<string, number>()
  const resolver = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname)
    const entry = table[hostname.toLowerCase().replace(/\.$/, '')]
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
    let answer: string[]
    if (Array.isArray(entry[0])) {
      const n = seen.get(hostname) ?? 0
      seen.set(hostname, n + 1)
      const answers = entry as string[][]
      answer = answers[Math.min(n, answers.length - 1)] as string[]
    } else {
      answer = entry as string[]
    }
    return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  }
  return Object.assign(resolver, { calls })
}
