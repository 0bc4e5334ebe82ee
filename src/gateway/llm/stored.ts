// Stored answers read back with GET: `GET …/chat/completions/{id}` returns a completion the
// model made earlier (`store: true`), so it is checked as an answer (`agent.response`,
// `tool.pre`) before the agent sees it, exactly as it would have been when it was made.
// An upstream error passes as it came; a body Warden cannot read is refused.

import type { IncomingMessage, ServerResponse } from 'node:http'
import type { JsonObject } from '../../core/index.js'
import { isObject, type LlmApi } from './api.js'
import { type CallDeps, passedHeaders, upstreamHeaders, upstreamUrl, writeApiError } from './call.js'
import type { CallScope } from './checks.js'

/** Fetches a stored answer and sends it checked (or the refusal). Throws only what the upstream throws. */
export async function answerStored(
  deps: CallDeps,
  api: LlmApi,
  req: IncomingMessage,
  res: ServerResponse,
  scope: CallScope,
  drop: readonly string[],
): Promise<void> {
  const answer = await deps.upstream.call({
    url: upstreamUrl(deps.base, req.url ?? '/'),
    method: 'GET',
    headers: upstreamHeaders(req.headers, api, deps.apiKey, drop),
  })
  if (answer.status < 200 || answer.status >= 300) {
    res.writeHead(answer.status, passedHeaders(answer.headers)).end(answer.text)
    return
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(answer.text)
  } catch {
    parsed = undefined
  }
  if (!isObject(parsed)) {
    return writeApiError(res, api, {
      status: 502,
      code: 'upstream_garbage',
      message: `the model API answered ${answer.status} with a stored answer that is not a JSON object`,
    })
  }
  const result = await deps.checks.answer(api, parsed as JsonObject, scope)
  if (!result.ok) return writeApiError(res, api, result.error)
  const out = result.changed ? JSON.stringify(result.body) : answer.text
  res
    .writeHead(answer.status, { ...passedHeaders(answer.headers), 'content-type': 'application/json' })
    .end(out)
}
