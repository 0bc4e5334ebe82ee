// OpenAI's error shape, shared by Chat Completions and Responses:
// `{error: {message, type, param, code}}`, the `type` following the status as OpenAI's own.

import type { JsonObject } from '../../core/index.js'
import type { ApiErrorInfo } from './api.js'

/** The OpenAI error type of a status. */
function errorType(status: number): string {
  if (status === 401) return 'authentication_error'
  if (status === 403) return 'permission_error'
  if (status === 404) return 'not_found_error'
  if (status === 429) return 'rate_limit_error'
  if (status >= 500) return 'server_error'
  return 'invalid_request_error'
}

/** An OpenAI error body. */
export function openAiErrorBody(error: ApiErrorInfo): JsonObject {
  return {
    error: {
      message: error.message,
      type: errorType(error.status),
      param: null,
      code: `warden_${error.code}`,
    },
  }
}
