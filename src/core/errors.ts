// Local errors: a string code a program can switch on and a message that says what was
// wrong and what to do. Errors that cross the wire (JSON-RPC codes) live with the protocols.

/** The string codes of Warden's local errors. */
export type WardenErrorCode =
  | 'unknown-event'
  | 'invalid-hook'
  | 'invalid-event'
  | 'duplicate-hook'
  | 'unknown-hook'
  | 'unknown-handler'
  | 'invalid-config'
  | 'invalid-regex'
  | 'invalid-expression'
  | 'engine-closed'

/** A local error with a machine-readable code. */
export class WardenError extends Error {
  override readonly name = 'WardenError'
  constructor(
    readonly code: WardenErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message)
  }
}

/** The message of any thrown value, never throwing itself. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message
  if (typeof error === 'string') return error
  try {
    return JSON.stringify(error) ?? String(error)
  } catch {
    return String(error)
  }
}

/**
 * A word with its indefinite article, for messages built around a value: "an approver",
 * "an IPv4-mapped", "an unspecified", "a viewer", "a unique-local", "a URL".
 */
export function withArticle(word: string): string {
  const vowelSound = /^[aeiou]/i.test(word) && !/^(uni|use|usu|uti|one|eu|U[A-Z])/.test(word)
  const letterName = /^[FHLMNRSX][A-Z0-9]/.test(word)
  return `${vowelSound || letterName ? 'an' : 'a'} ${word}`
}
