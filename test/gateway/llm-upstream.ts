// A local model server on loopback speaking Anthropic Messages, OpenAI Chat Completions and
// OpenAI Responses, streamed (SSE) and not, scripted per test: each call takes the next
// scripted answer (the last repeats). An answer is text cut into the given chunks, tool
// calls, an API error, a delay, garbage, or a stream that stops sending. Every request is
// kept (path, headers, body), and so is whether a streamed answer was cut by its client.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One scripted answer. */
export interface Answer {
  /** The text, as the chunks it streams in. */
  text?: string[]
  tools?: { name: string; input: Record<string, unknown> }[]
  /** Answer this status with the API's error body instead, and these headers. */
  error?: { status: number; message: string; headers?: Record<string, string> }
  /** Wait before answering, in ms. */
  delayMs?: number
  /** Stream this raw text instead of the answer's events (after a first valid event). */
  garbage?: string
  /** Stream the first text chunk, then send nothing more (until the client leaves). */
  stall?: boolean
  /** Extra response headers. */
  headers?: Record<string, string>
  /** Answer a whole JSON answer even to a streamed request. */
  json?: boolean
  /** Stream one event every this many ms (as a model produces tokens), instead of all at once. */
  paceMs?: number
}

/** A request the server received. */
export interface Received {
  path: string
  headers: IncomingMessage['headers']
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary request fields
  body: any
}

/** The running server. */
export interface ModelServer {
  /** Base URL, no path. */
  url: string
  requests: Received[]
  /** How many streamed answers were cut by their client before they ended. */
  cut(): number
  /** Replaces the script (and starts it over). */
  script(answers: Answer[]): void
  close(): Promise<void>
}

let sequence = 0

/** Starts the server. */
export async function startModelServer(initial: Answer[] = [{ text: ['ok'] }]): Promise<ModelServer> {
  let answers = initial
  let next = 0
  let cut = 0
  const requests: Received[] = []
  const server: Server = createServer((req, res) => {
    let text = ''
    req.setEncoding('utf8')
    req.on('data', (c: string) => {
      text += c
    })
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/'
      const body = text ? JSON.parse(text) : {}
      requests.push({ path, headers: req.headers, body })
      const answer = answers[Math.min(next++, answers.length - 1)] ?? { text: ['ok'] }
      const go = () => respond(path, body, answer, res, () => cut++)
      if (answer.delayMs) setTimeout(go, answer.delayMs)
      else go()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    cut: () => cut,
    script(list) {
      answers = list
      next = 0
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

type Api = 'anthropic' | 'chat' | 'responses'

// biome-ignore lint/suspicious/noExplicitAny: the request is whatever the client sent
function respond(path: string, body: any, answer: Answer, res: ServerResponse, onCut: () => void): void {
  const api: Api = path.endsWith('/messages')
    ? 'anthropic'
    : path.endsWith('/responses')
      ? 'responses'
      : 'chat'
  if (answer.error) {
    const error =
      api === 'anthropic'
        ? { type: 'error', error: { type: 'rate_limit_error', message: answer.error.message } }
        : { error: { message: answer.error.message, type: 'rate_limit_exceeded', code: null, param: null } }
    res.writeHead(answer.error.status, { 'content-type': 'application/json', ...answer.error.headers })
    res.end(JSON.stringify(error))
    return
  }
  const id = ++sequence
  const model = String(body.model ?? 'test-model')
  if (!body.stream || answer.json) {
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_${id}`, ...answer.headers })
    res.end(JSON.stringify(whole(api, answer, id, model)))
    return
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': `req_${id}`, ...answer.headers })
  res.on('close', () => {
    if (!res.writableFinished) onCut()
  })
  const events = streamed(api, answer, id, model)
  if (answer.garbage !== undefined) {
    res.write(events[0])
    res.end(answer.garbage)
    return
  }
  if (answer.stall) {
    const firstText = events.findIndex((e) => e.includes('delta'))
    for (const event of events.slice(0, firstText + 1)) res.write(event)
    return
  }
  if (answer.paceMs) {
    let at = 0
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer)
      res.write(events[at++])
      if (at < events.length) return
      clearInterval(timer)
      res.end()
    }, answer.paceMs)
    return
  }
  for (const event of events) res.write(event)
  res.end()
}

function whole(api: Api, answer: Answer, id: number, model: string): unknown {
  const text = (answer.text ?? []).join('')
  const tools = (answer.tools ?? []).map((t, i) => ({ ...t, id: `call_${id}_${i}` }))
  if (api === 'anthropic') {
    const content: unknown[] = []
    if (text) content.push({ type: 'text', text })
    for (const t of tools) content.push({ type: 'tool_use', id: t.id, name: t.name, input: t.input })
    return {
      id: `msg_${id}`,
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: tools.length ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5 },
    }
  }
  if (api === 'chat') {
    const message: Record<string, unknown> = { role: 'assistant', content: text || null, refusal: null }
    if (tools.length)
      message.tool_calls = tools.map((t) => ({
        id: t.id,
        type: 'function',
        function: { name: t.name, arguments: JSON.stringify(t.input) },
      }))
    return {
      id: `chatcmpl_${id}`,
      object: 'chat.completion',
      created: 1,
      model,
      choices: [{ index: 0, message, finish_reason: tools.length ? 'tool_calls' : 'stop', logprobs: null }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    }
  }
  const output: unknown[] = []
  if (text)
    output.push({
      type: 'message',
      id: `msg_${id}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text, annotations: [] }],
    })
  for (const t of tools)
    output.push({
      type: 'function_call',
      id: `fc_${t.id}`,
      call_id: t.id,
      name: t.name,
      arguments: JSON.stringify(t.input),
      status: 'completed',
    })
  return {
    id: `resp_${id}`,
    object: 'response',
    created_at: 1,
    status: 'completed',
    model,
    output,
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
  }
}

function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`
}

function streamed(api: Api, answer: Answer, id: number, model: string): string[] {
  const chunks = answer.text ?? []
  const message = whole(api, answer, id, model) as Record<string, unknown>
  if (api === 'anthropic') {
    const out = [
      sse(
        { type: 'message_start', message: { ...message, content: [], stop_reason: null } },
        'message_start',
      ),
    ]
    let index = 0
    if (chunks.length) {
      out.push(
        sse(
          { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
          'content_block_start',
        ),
      )
      for (const text of chunks)
        out.push(
          sse(
            { type: 'content_block_delta', index, delta: { type: 'text_delta', text } },
            'content_block_delta',
          ),
        )
      out.push(sse({ type: 'content_block_stop', index }, 'content_block_stop'))
      index++
    }
    for (const block of (
      message.content as { type: string; id: string; name: string; input: unknown }[]
    ).filter((b) => b.type === 'tool_use')) {
      out.push(
        sse(
          {
            type: 'content_block_start',
            index,
            content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
          },
          'content_block_start',
        ),
      )
      const json = JSON.stringify(block.input)
      for (const part of [json.slice(0, 5), json.slice(5)])
        out.push(
          sse(
            { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } },
            'content_block_delta',
          ),
        )
      out.push(sse({ type: 'content_block_stop', index }, 'content_block_stop'))
      index++
    }
    out.push(
      sse(
        {
          type: 'message_delta',
          delta: { stop_reason: message.stop_reason, stop_sequence: null },
          usage: { output_tokens: 5 },
        },
        'message_delta',
      ),
    )
    out.push(sse({ type: 'message_stop' }, 'message_stop'))
    return out
  }
  if (api === 'chat') {
    const base = { id: `chatcmpl_${id}`, object: 'chat.completion.chunk', created: 1, model }
    const chunk = (delta: unknown, finish: string | null = null) =>
      sse({ ...base, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] })
    const out = [chunk({ role: 'assistant', content: '' })]
    for (const text of chunks) out.push(chunk({ content: text }))
    ;(answer.tools ?? []).forEach((t, i) => {
      const args = JSON.stringify(t.input)
      out.push(
        chunk({
          tool_calls: [
            { index: i, id: `call_${id}_${i}`, type: 'function', function: { name: t.name, arguments: '' } },
          ],
        }),
      )
      for (const part of [args.slice(0, 5), args.slice(5)])
        out.push(chunk({ tool_calls: [{ index: i, function: { arguments: part } }] }))
    })
    out.push(chunk({}, answer.tools?.length ? 'tool_calls' : 'stop'))
    out.push('data: [DONE]\n\n')
    return out
  }
  let seq = 0
  const ev = (data: Record<string, unknown>) => sse({ ...data, sequence_number: seq++ }, data.type as string)
  const response = { ...message, status: 'in_progress', output: [] }
  const out = [ev({ type: 'response.created', response }), ev({ type: 'response.in_progress', response })]
  const items = message.output as Record<string, unknown>[]
  items.forEach((item, at) => {
    if (item.type === 'message') {
      out.push(
        ev({
          type: 'response.output_item.added',
          output_index: at,
          item: { ...item, content: [], status: 'in_progress' },
        }),
      )
      out.push(
        ev({
          type: 'response.content_part.added',
          output_index: at,
          content_index: 0,
          item_id: item.id,
          part: { type: 'output_text', text: '', annotations: [] },
        }),
      )
      for (const delta of chunks)
        out.push(
          ev({
            type: 'response.output_text.delta',
            output_index: at,
            content_index: 0,
            item_id: item.id,
            delta,
          }),
        )
      const text = chunks.join('')
      out.push(
        ev({ type: 'response.output_text.done', output_index: at, content_index: 0, item_id: item.id, text }),
      )
      out.push(
        ev({
          type: 'response.content_part.done',
          output_index: at,
          content_index: 0,
          item_id: item.id,
          part: { type: 'output_text', text, annotations: [] },
        }),
      )
      out.push(ev({ type: 'response.output_item.done', output_index: at, item }))
    } else {
      out.push(
        ev({
          type: 'response.output_item.added',
          output_index: at,
          item: { ...item, arguments: '', status: 'in_progress' },
        }),
      )
      const args = String(item.arguments)
      for (const delta of [args.slice(0, 5), args.slice(5)])
        out.push(
          ev({ type: 'response.function_call_arguments.delta', output_index: at, item_id: item.id, delta }),
        )
      out.push(
        ev({
          type: 'response.function_call_arguments.done',
          output_index: at,
          item_id: item.id,
          arguments: args,
        }),
      )
      out.push(ev({ type: 'response.output_item.done', output_index: at, item }))
    }
  })
  out.push(ev({ type: 'response.completed', response: message }))
  return out
}
