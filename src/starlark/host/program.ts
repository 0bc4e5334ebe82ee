// Program and Module: a compiled file, and the result of running it once with host globals.
// Also the compiled-expression form used for hook `when:` conditions.

import {
  asStarlarkError,
  DEFAULT_LIMITS,
  type Limits,
  resolveLimits,
  runtimeError,
  StarlarkError,
  Thread,
} from '../base/index.js'
import { UNIVERSE } from '../builtins/index.js'
import { type CompiledModule, Compiler } from '../compiler/index.js'
import { parseExpression, parseFile } from '../parser/index.js'
import {
  Builtin,
  callValue,
  Frame,
  freeze,
  type Kwargs,
  StarFunction,
  truth,
  type Value,
} from '../values/index.js'
import { fromJs, toJs } from './interop.js'

/** Options for compiling source text. */
export interface CompileOptions {
  /** Deepest expression/block nesting accepted (default 200). */
  maxNestingDepth?: number
}

/** Options for one execution (a module run, a call, an expression evaluation). */
export interface ExecutionOptions {
  limits?: Partial<Limits>
  /** Receives the output of `print`; print is a no-op without it. */
  print?: (message: string) => void
  /** Anything the host wants its builtins to see as `thread.hostData`. */
  hostData?: unknown
}

/** Options for {@link Program.run}. */
export interface RunOptions extends ExecutionOptions {
  /** Predeclared names: host values (converted with fromJs), builtins and modules. */
  globals?: Record<string, unknown>
}

/** A parameter of a Starlark function, for host introspection. */
export interface ParamInfo {
  name: string
  kind: 'positional' | 'keyword-only' | 'varargs' | 'kwargs'
  hasDefault: boolean
}

function fillPredeclared(
  compiled: CompiledModule,
  globals: (Value | undefined)[],
  hostGlobals: Record<string, unknown> | undefined,
): void {
  for (const use of compiled.predeclared) {
    let value: Value | undefined
    if (hostGlobals !== undefined && Object.hasOwn(hostGlobals, use.name))
      value = fromJs(hostGlobals[use.name])
    else value = UNIVERSE.get(use.name)
    if (value === undefined) {
      throw runtimeError(`name ${use.name} is not defined`).at(compiled.file, use.line, use.col)
    }
    globals[use.slot] = value
  }
}

function newThread(base: Limits, options: ExecutionOptions | undefined): Thread {
  const limits = options?.limits === undefined ? base : resolveLimits({ ...base, ...options.limits })
  return new Thread(limits, options?.print, options?.hostData)
}

/** Describes the parameters of a Starlark function. */
export function functionParams(fn: StarFunction): ParamInfo[] {
  const code = fn.code
  return code.paramNames.map((name, i) => {
    const kind =
      i === code.varargsSlot
        ? 'varargs'
        : i === code.kwargsSlot
          ? 'kwargs'
          : i < code.numPositional
            ? 'positional'
            : 'keyword-only'
    return { name, kind, hasDefault: fn.defaults[i] !== undefined }
  })
}

/** A module after its body has run: frozen globals the host can read and call. */
export class Module {
  private readonly slots = new Map<string, number>()

  constructor(
    readonly filename: string,
    globalNames: string[],
    private readonly globals: (Value | undefined)[],
    private readonly limits: Limits,
    private readonly defaults: ExecutionOptions,
  ) {
    globalNames.forEach((name, slot) => {
      this.slots.set(name, slot)
    })
  }

  /** Names of the globals the module defined (in definition order). */
  names(): string[] {
    return Array.from(this.slots.keys()).filter((name) => this.getValue(name) !== undefined)
  }

  has(name: string): boolean {
    return this.getValue(name) !== undefined
  }

  /** A global as a Starlark value, or undefined when the module did not define it. */
  getValue(name: string): Value | undefined {
    const slot = this.slots.get(name)
    return slot === undefined ? undefined : this.globals[slot]
  }

  /** A global converted to a JS value (see toJs), or undefined when not defined. */
  get(name: string): unknown {
    const value = this.getValue(name)
    return value === undefined ? undefined : toJs(value)
  }

  /** The Starlark function bound to a global name, if that global is a function. */
  getFunction(name: string): StarFunction | undefined {
    const value = this.getValue(name)
    return value instanceof StarFunction ? value : undefined
  }

  /** Parameters of the function `name`, or undefined when it is not a Starlark function. */
  functionParams(name: string): ParamInfo[] | undefined {
    const fn = this.getFunction(name)
    return fn === undefined ? undefined : functionParams(fn)
  }

  /** Number of positional parameters of function `name` (undefined when not a function). */
  functionArity(name: string): number | undefined {
    return this.getFunction(name)?.code.numPositional
  }

  /**
   * Calls a function (by global name or as a function value) with JS arguments and returns
   * the JS result (see toJs). Opaque host values come back as the same objects.
   */
  call(
    fn: string | Value,
    args: unknown[] = [],
    kwargs?: Record<string, unknown>,
    options?: ExecutionOptions,
  ): unknown {
    const starArgs: Value[] = new Array(args.length)
    for (let i = 0; i < args.length; i++) starArgs[i] = fromJs(args[i])
    let starKwargs: Kwargs | null = null
    if (kwargs !== undefined) {
      starKwargs = new Map()
      for (const key of Object.keys(kwargs)) starKwargs.set(key, fromJs(kwargs[key]))
    }
    return toJs(this.callValue(fn, starArgs, starKwargs, options))
  }

  /** Like {@link call} with Starlark values in and out (no conversion). */
  callValue(
    fn: string | Value,
    args: Value[],
    kwargs: Kwargs | null = null,
    options?: ExecutionOptions,
  ): Value {
    const callee = typeof fn === 'string' ? this.getValue(fn) : fn
    if (callee === undefined) throw runtimeError(`${this.filename}: no global named ${fn as string}`)
    if (!(callee instanceof StarFunction) && !(callee instanceof Builtin)) {
      throw runtimeError(`${this.filename}: ${typeof fn === 'string' ? fn : 'value'} is not a function`)
    }
    const thread = newThread(
      this.limits,
      options === undefined ? this.defaults : { ...this.defaults, ...options },
    )
    try {
      return callValue(callee, args, kwargs, thread)
    } catch (error) {
      throw asStarlarkError(error)
    }
  }
}

/** A compiled Starlark file; run it to get a {@link Module}. */
export class Program {
  constructor(private readonly compiled: CompiledModule) {}

  get filename(): string {
    return this.compiled.file
  }

  /** Names the program uses but does not define (host globals or universe builtins). */
  get predeclaredNames(): string[] {
    return this.compiled.predeclared.map((p) => p.name)
  }

  /** Executes the module body with the given host globals, then freezes its globals. */
  run(options: RunOptions = {}): Module {
    const compiled = this.compiled
    const limits = resolveLimits(options.limits)
    const globals: (Value | undefined)[] = new Array(compiled.numGlobals).fill(undefined)
    fillPredeclared(compiled, globals, options.globals)
    const thread = new Thread(limits, options.print, options.hostData)
    const frame = new Frame(new Array(compiled.numSlots).fill(undefined), globals, thread, null)
    try {
      compiled.body(frame)
    } catch (error) {
      throw asStarlarkError(error)
    }
    for (let i = 0; i < compiled.globalNames.length; i++) {
      const value = globals[i]
      if (value !== undefined) freeze(value)
    }
    const { print, hostData } = options
    return new Module(compiled.file, compiled.globalNames, globals, limits, { print, hostData })
  }
}

/** Parses and compiles a Starlark file; throws a syntax StarlarkError with position. */
export function compile(source: string, filename: string, options: CompileOptions = {}): Program {
  try {
    const file = parseFile(source, filename, options.maxNestingDepth ?? DEFAULT_LIMITS.maxNestingDepth)
    return new Program(new Compiler(filename).compileModule(file.body))
  } catch (error) {
    if (error instanceof StarlarkError) throw error
    throw asStarlarkError(error)
  }
}

/** A compiled expression, evaluated against variables many times. */
export class CompiledExpression {
  private readonly defaultLimits: Limits

  constructor(
    private readonly compiled: CompiledModule,
    limits?: Partial<Limits>,
  ) {
    this.defaultLimits = resolveLimits(limits)
  }

  /** Names the expression reads (its free variables and builtins). */
  get names(): string[] {
    return this.compiled.predeclared.map((p) => p.name)
  }

  /**
   * Checks, before any evaluation, that each free name is one of `known` or a builtin.
   * @throws StarlarkError "name X is not defined" at the first use of an unknown name.
   */
  requireNames(known: readonly string[]): void {
    for (const use of this.compiled.predeclared) {
      if (known.includes(use.name) || UNIVERSE.has(use.name)) continue
      throw runtimeError(`name ${use.name} is not defined`).at(this.compiled.file, use.line, use.col)
    }
  }

  /** Evaluates to a Starlark value; `vars` supply the free names (converted with fromJs). */
  evaluateValue(vars: Record<string, unknown> = {}, options?: ExecutionOptions): Value {
    const compiled = this.compiled
    const globals: (Value | undefined)[] = new Array(compiled.numGlobals)
    fillPredeclared(compiled, globals, vars)
    const thread = newThread(this.defaultLimits, options)
    const frame = new Frame(new Array(compiled.numSlots).fill(undefined), globals, thread, null)
    try {
      compiled.body(frame)
    } catch (error) {
      throw asStarlarkError(error)
    }
    return frame.ret
  }

  /** Evaluates and converts the result to JS (see toJs). */
  evaluate(vars: Record<string, unknown> = {}, options?: ExecutionOptions): unknown {
    return toJs(this.evaluateValue(vars, options))
  }

  /** Evaluates and returns the Starlark truth value of the result (for `when:` conditions). */
  test(vars: Record<string, unknown> = {}, options?: ExecutionOptions): boolean {
    return truth(this.evaluateValue(vars, options))
  }
}

/** Compiles a single Starlark expression such as a hook's `when:` condition. */
export function compileExpression(
  source: string,
  filename: string,
  options: CompileOptions & { limits?: Partial<Limits> } = {},
): CompiledExpression {
  try {
    const expr = parseExpression(source, filename, options.maxNestingDepth ?? DEFAULT_LIMITS.maxNestingDepth)
    return new CompiledExpression(new Compiler(filename).compileExpressionModule(expr), options.limits)
  } catch (error) {
    throw asStarlarkError(error)
  }
}

/** Compiles and evaluates an expression once; returns the JS value of the result. */
export function evalExpression(
  source: string,
  filename: string,
  vars: Record<string, unknown> = {},
  options?: ExecutionOptions,
): unknown {
  return compileExpression(source, filename).evaluate(vars, options)
}
