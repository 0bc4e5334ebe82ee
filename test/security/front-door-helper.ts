// What the front-door attack tests share: raw HTTP requests that may set any header (Host
// included, which fetch refuses to), the requests a browser page would forge, and the
// `server.auth: token` config with two tenants whose hooks say which tenant's ran.

import { randomUUID } from 'node:crypto'
import { request } from 'node:http'

/** An answer: status, headers and the body parsed as JSON when it is. */
export interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response fields
  json: any
}

/** Sends one request with exactly the headers given (and a Host unless one is given). */
export function send(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const url = new URL(path, base)
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
        headers: {
          ...(options.body === undefined
            ? {}
            : { 'content-length': String(Buffer.byteLength(options.body)) }),
          ...options.headers,
        },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => {
          text += chunk
        })
        res.on('end', () => {
          let json: unknown
          try {
            json = JSON.parse(text)
          } catch {
            json = undefined
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json })
        })
      },
    )
    req.once('error', reject)
    req.end(options.body)
  })
}

/** An AOS tool call; the tool name is also the agent id, so a test can look for its rows. */
export function toolCallBody(tool: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'steps/toolCallRequest',
    params: {
      toolCallRequest: { executionId: randomUUID(), toolId: tool, inputs: [{ name: 'cmd', value: 'ls' }] },
      context: { agent: { id: tool, name: 'agent' }, session: { id: 's-front-door' } },
    },
  })
}

/** `Authorization` and JSON content type for a token. */
export function bearer(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...extra }
}

/** A config with token auth, an extra allowed Host and one deny hook per tenant naming it. */
export const TWO_TENANTS_YAML = `server:
  auth: token
  allowedHosts: [warden.test]
hooks:
  - name: acme-rule
    event: tool.pre
    matcher: "^probe"
    scope: { tenant: acme }
    handler: { type: deny, reason: "acme's own rule" }
  - name: globex-rule
    event: tool.pre
    matcher: "^probe"
    scope: { tenant: globex }
    handler: { type: deny, reason: "globex's own rule" }
`
