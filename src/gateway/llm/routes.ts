// Which API a request path speaks. Checked: `POST …/v1/messages` (Anthropic Messages),
// `POST …/chat/completions` (OpenAI Chat Completions), `POST …/responses` (OpenAI
// Responses), and `GET …/chat/completions/{id}` and `GET …/responses/{id}` (stored answers,
// checked as answers; a Responses answer made with `background: true` is delivered so). Passed as they are: `GET …/models` (model lists) and `POST
// …/messages/count_tokens` (no answer comes from the model). Any other `GET` of a model
// API's path is refused (it could return model text unchecked: stored completions' lists
// and messages, message batch results), as is any other `POST`: it could reach the model
// around the checks.

import { anthropicApi } from './anthropic.js'
import type { ApiErrorInfo, LlmApi } from './api.js'
import { chatApi } from './chat.js'
import { responsesApi } from './responses.js'

/** What to do with a request. */
export type Route =
  | { kind: 'checked'; api: LlmApi }
  | { kind: 'unchecked'; api?: LlmApi }
  /** A stored answer read back: checked as an answer. */
  | { kind: 'stored'; api: LlmApi }
  | { kind: 'refused'; api?: LlmApi; error: ApiErrorInfo }

/** The route of a request. */
export function apiForPath(method: string, path: string): Route {
  const api = apiOf(path)
  if (method === 'GET') return getRoute(path, api)
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

const MODEL_LIST = /\/models(\/[A-Za-z0-9._:@-]+)?$/
const STORED_CHAT = /\/chat\/completions\/[A-Za-z0-9_-]+$/
const STORED_RESPONSE = /\/responses\/[A-Za-z0-9_-]+$/

function getRoute(path: string, api: LlmApi | undefined): Route {
  const bare = path.split('?')[0] ?? ''
  if (STORED_CHAT.test(bare)) return { kind: 'stored', api: chatApi }
  if (STORED_RESPONSE.test(bare)) return { kind: 'stored', api: responsesApi }
  if (MODEL_LIST.test(bare)) return { kind: 'unchecked' }
  const error: ApiErrorInfo = {
    status: 404,
    code: 'not_found',
    message: `the gateway does not serve GET ${bare.slice(0, 100)}: it could return model text unchecked (model lists pass; stored answers are read one by one: GET /v1/chat/completions/{id}, GET /v1/responses/{id})`,
  }
  return { kind: 'refused', api: api ?? chatApi, error }
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
