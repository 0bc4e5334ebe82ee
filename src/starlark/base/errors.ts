// StarlarkError: the one error type the interpreter throws, for syntax errors, run-time
// errors and exhausted limits, carrying the source position and a short call stack.

/** What kind of failure a {@link StarlarkError} reports. */
export type StarlarkErrorKind = 'syntax' | 'runtime' | 'limit'

/** One frame of the Starlark call stack: where a call was made from. */
export interface StarlarkFrame {
  file: string
  line: number
  col: number
}

/**
 * An error raised while compiling or running Starlark code.
 *
 * `reason` is the bare message ("key "x" not in dict"); `message` and `stack` are the
 * formatted form with position, enclosing function and call stack, e.g.
 * `guard.star:3:12: in handle: key "x" not in dict\n  called from guard.star:9:1`.
 */
export class StarlarkError extends Error {
  readonly kind: StarlarkErrorKind
  /** The message without position or call stack. */
  readonly reason: string
  file = ''
  /** 1-based line of the failing expression; 0 while the position is not yet known. */
  line = 0
  col = 0
  /** Name of the Starlark function the error happened in, if any. */
  functionName: string | undefined
  /** Call sites the error propagated through, innermost first. */
  readonly calledFrom: StarlarkFrame[] = []

  constructor(kind: StarlarkErrorKind, reason: string) {
    super(reason)
    this.name = 'StarlarkError'
    this.kind = kind
    this.reason = reason
  }

  /** Whether the error already carries a source position. */
  get positioned(): boolean {
    return this.line > 0
  }

  /** Sets the position once (the innermost position wins) and refreshes the message. */
  at(file: string, line: number, col: number): this {
    if (this.line === 0) {
      this.file = file
      this.line = line
      this.col = col
      this.refresh()
    }
    return this
  }

  /** Records the enclosing function's name once. */
  inFunction(name: string): this {
    if (this.functionName === undefined && this.line > 0) {
      this.functionName = name
      this.refresh()
    }
    return this
  }

  /** Adds a call site the error propagated through. */
  calledAt(file: string, line: number, col: number): this {
    if (this.calledFrom.length < 20) this.calledFrom.push({ file, line, col })
    this.refresh()
    return this
  }

  private refresh(): void {
    let text = this.line > 0 ? `${this.file}:${this.line}:${this.col}: ` : ''
    if (this.functionName !== undefined) text += `in ${this.functionName}: `
    text += this.reason
    for (const frame of this.calledFrom) text += `\n  called from ${frame.file}:${frame.line}:${frame.col}`
    this.message = text
    this.stack = text
  }
}

/** Creates a run-time error without position; the compiled code adds it as it propagates. */
export function runtimeError(reason: string): StarlarkError {
  return new StarlarkError('runtime', reason)
}

/** Creates a limit error naming the exhausted limit. */
export function limitError(reason: string): StarlarkError {
  return new StarlarkError('limit', reason)
}

/** Creates a syntax error at a position. */
export function syntaxError(reason: string, file: string, line: number, col: number): StarlarkError {
  return new StarlarkError('syntax', reason).at(file, line, col)
}

/**
 * Turns anything thrown while running Starlark code into a StarlarkError: a JS stack
 * overflow becomes a limit error, any other JS error a run-time error.
 */
export function asStarlarkError(error: unknown): StarlarkError {
  if (error instanceof StarlarkError) return error
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return limitError('call stack exhausted: the program nests too deeply (limit maxCallDepth)')
  }
  const message = error instanceof Error ? error.message : String(error)
  return runtimeError(message)
}
