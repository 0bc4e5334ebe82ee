// The store's local errors: a string code a program can switch on and a message that says
// what was wrong and what to do.

/** Why a store operation failed. */
export type StoreErrorCode =
  | 'invalid-db-url'
  | 'store-unavailable'
  | 'store-migration'
  | 'secrets-unavailable'
  | 'invalid-hook'
  | 'unknown-hook'
  | 'invalid-query'

/** A store error with a machine-readable code. */
export class StoreError extends Error {
  override readonly name = 'StoreError'
  constructor(
    readonly code: StoreErrorCode,
    message: string,
  ) {
    super(message)
  }
}
