// Which API a request path speaks. Checked: `POST …/v1/messages` (Anthropic Messages),
// `POST …/chat/completions` (OpenAI Chat Completions), `POST …/responses` (OpenAI
// Responses), and `GET …/responses/{id}` (a stored answer, checked as one). Passed as they
// are: other `GET`s (model lists) and `POST …/messages/count_tokens`
// (no answer comes from the model). Any other `POST` is refused: it could reach the model
// around the checks.

import { anthropicApi } from './anthropic.js'
import type { ApiErrorInfo, LlmApi } from './api.js'
import { chatApi } from './chat.js'
import { responsesApi } from './responses.js'

/** What to do with a request. */
export type Route =
  | { kind: 'checked'; api: LlmApi }
  | { kind: 'unchecked'; api?: LlmApi }
  /** A stored answer fetched by id: checked as an answer. */
  | { kind: 'stored'; api: LlmApi }
  | { kind: 'refused'; api?: LlmApi; error: ApiErrorInfo }

/** The route of a request. */
export function apiForPath(method: string, path: string): Route {
  const api = apiOf(path)
  if (method === 'GET' && /\/responses\/[^/]+$/.test(path)) return { kind: 'stored', api: responsesApi }
  if (method === 'GET') return api ? { kind: 'unchecked', api } : { kind: 'unchecked' }
  if (path.endsWith('/messages/count_tokens')) return { kind: 'unchecked', api: anthropicApi }
  if (path.endsWith('/v1/messages') || path === '/messages') return { kind: 'checked', api: anthropicApi }
  if (path.endsWith('/chat/completions')) return { kind: 'checked', api: chatApi }
  if (path.endsWith('/responses')) return { kind: 'checked', api: responsesApi }
  const error: ApiErrorInfo = {
    status: 404,
    code: 'not_found',
    message: `the gateway does not serve POST ${path.slice(0, 100)}: it checks /v1/messages (Anthropic Messages), /v1/chat/completions and /v1/responses (OpenAI)`,
  }
  return api ? { kind: 'refused', api, error } : { kind: 'refused', error }
}

/** The API whose error shape answers a request on `path` (OpenAI's when unknown). */
export function errorApiForPath(path: string): LlmApi {
  return apiOf(path) ?? chatApi
}

function apiOf(path: string): LlmApi | undefined {
  const bare = path.split('?')[0] ?? ''
  if (bare.includes('/messages')) return anthropicApi
  if (bare.includes('/responses')) return responsesApi
  if (bare.includes('/chat/completions')) return chatApi
  return undefined
}
