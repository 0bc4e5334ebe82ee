// A local model server speaking the Anthropic Messages API on loopback (JSON and SSE
// streaming), scripted per test: each turn of the agent loop gets the next scripted
// answer (a text or a tool call), and every request is kept so the test can read what the
// model was told (tool results, reminders, denials).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One scripted model answer: a final text, or a tool call (with optional text first). */
export type ScriptedTurn =
  | { text: string }
  | { tool: { name: string; input: Record<string, unknown> }; text?: string }

/** A request the server received. */
export interface ReceivedRequest {
  path: string
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary request fields
  body: any
}

/** The running server. */
export interface AnthropicServer {
  /** Base URL (no `/v1`), for ANTHROPIC_BASE_URL. */
  url: string
  /** Every `/v1/messages` request that carried tools (the agent loop's turns). */
  turns: ReceivedRequest[]
  /** Every request, side calls included. */
  all: ReceivedRequest[]
  close(): Promise<void>
}

let toolSequence = 0

/** Options of the scripted servers. */
export interface ScriptOptions {
  /**
   * Pick each turn by how many tool results the conversation already holds, so that every
   * conversation replays the script from its start (benchmarks run one many times).
   */
  perConversation?: boolean
}

/**
 * Starts the server. Requests to `/v1/messages` that offer tools take the next scripted
 * turn (the last one repeats); side calls without tools (titles, summaries) get "ok".
 */
export async function startAnthropicServer(
  script: ScriptedTurn[],
  options: ScriptOptions = {},
): Promise<AnthropicServer> {
  const turns: ReceivedRequest[] = []
  const all: ReceivedRequest[] = []
  let next = 0
  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      res.statusCode = 500
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(error) } }))
    })
  })
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req)
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    // biome-ignore lint/suspicious/noExplicitAny: the request is whatever the SDK sent
    const body: any = text.length > 0 ? safeJson(text) : undefined
    all.push({ path, body })
    if (req.method === 'HEAD' || req.method === 'GET') {
      res.statusCode = 200
      res.end('{}')
      return
    }
    if (path.endsWith('/count_tokens')) {
      json(res, { input_tokens: 10 })
      return
    }
    if (!path.endsWith('/v1/messages')) {
      res.statusCode = 404
      res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: path } }))
      return
    }
    const agentTurn = Array.isArray(body?.tools) && body.tools.length > 0
    let turn: ScriptedTurn = { text: 'ok' }
    if (agentTurn) {
      turns.push({ path, body })
      const at = options.perConversation ? toolResults({ path, body }).length : next++
      turn = script[Math.min(at, script.length - 1)] ?? { text: 'done' }
    }
    const message = toMessage(turn, String(body?.model ?? 'claude-test'))
    if (body?.stream) stream(res, message)
    else json(res, message)
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    turns,
    all,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }

function toMessage(turn: ScriptedTurn, model: string) {
  const content: Block[] = []
  if (turn.text) content.push({ type: 'text', text: turn.text })
  if ('tool' in turn) content.push({ type: 'tool_use', id: `toolu_${++toolSequence}`, ...turn.tool })
  return {
    id: `msg_${Date.now()}_${toolSequence}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: 'tool' in turn ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  }
}

/** Writes the message as the Messages API's server-sent events. */
function stream(res: ServerResponse, message: ReturnType<typeof toMessage>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  const send = (event: string, data: unknown) =>
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  send('message_start', {
    type: 'message_start',
    message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 0 } },
  })
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      })
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: block.text },
      })
    } else {
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      })
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      })
    }
    send('content_block_stop', { type: 'content_block_stop', index })
  })
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: message.usage.output_tokens },
  })
  send('message_stop', { type: 'message_stop' })
  res.end()
}

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

function readBody(req: IncomingMessage): Promise<string> {
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

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** The text of every tool_result block the model was sent in a turn's last user message. */
export function toolResults(request: ReceivedRequest): string[] {
  const messages = (request.body?.messages ?? []) as { role: string; content: unknown }[]
  const out: string[] = []
  for (const message of messages) {
    if (message.role !== 'user' || !Array.isArray(message.content)) continue
    for (const block of message.content as { type: string; content?: unknown }[]) {
      if (block.type !== 'tool_result') continue
      out.push(typeof block.content === 'string' ? block.content : JSON.stringify(block.content))
    }
  }
  return out
}

/** Everything the model was sent in a request, as one string (for "was told" checks). */
export function transcript(request: ReceivedRequest): string {
  return JSON.stringify({ system: request.body?.system, messages: request.body?.messages })
}
