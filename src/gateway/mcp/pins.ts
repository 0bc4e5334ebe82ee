// Tool pinning: the name, description and input schema of every tool a server lists are
// recorded on first sight in a pin file; when the server later lists a pinned tool
// differently, calls to that tool are denied until the pin is updated. This defends
// against a server that rewrites its tool descriptions after they were approved.

import { createHash } from 'node:crypto'
import { readFile, rename, writeFile } from 'node:fs/promises'
import { z } from 'zod'
import { formatZodError, type Json, type JsonObject, WardenError } from '../../core/index.js'

/** What is recorded for one tool. */
export interface ToolPin {
  description?: string
  inputSchema?: Json
  /** SHA-256 over name, description and input schema, as canonical JSON. */
  digest: string
  pinnedAt: string
}

/** A tool whose listing differs from its pin. */
export interface PinMismatch {
  name: string
  /** Which of `description` and `inputSchema` differ. */
  fields: string[]
}

/** What one tools/list taught the pins. */
export interface PinObservation {
  added: string[]
  changed: PinMismatch[]
}

const MAX_PIN_FILE_BYTES = 16 * 1024 * 1024

const pinFileSchema = z
  .object({
    version: z.literal(1, { error: 'must be 1' }),
    tools: z.record(
      z.string(),
      z.object({
        description: z.string().optional(),
        inputSchema: z.unknown().optional(),
        digest: z.string().regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 hex digest'),
        pinnedAt: z.string(),
      }),
    ),
  })
  .strict()

/** The pins of one server, kept in a JSON file. */
export class ToolPins {
  private readonly pins: Map<string, ToolPin>
  private readonly mismatches = new Map<string, PinMismatch>()

  private constructor(
    readonly path: string,
    pins: Record<string, ToolPin>,
  ) {
    this.pins = new Map(Object.entries(pins))
  }

  /**
   * Loads a pin file; a missing file is an empty set of pins.
   * @throws WardenError `invalid-config` when the file cannot be read or is malformed.
   */
  static async load(path: string): Promise<ToolPins> {
    let text: string
    try {
      text = await readFile(path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new ToolPins(path, {})
      throw new WardenError(
        'invalid-config',
        `cannot read pin file ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      )
    }
    if (text.length > MAX_PIN_FILE_BYTES) {
      throw new WardenError('invalid-config', `pin file ${path} is larger than ${MAX_PIN_FILE_BYTES} bytes`)
    }
    let data: unknown
    try {
      data = JSON.parse(text)
    } catch (error) {
      throw new WardenError(
        'invalid-config',
        `pin file ${path} is not valid JSON: ${(error as Error).message}`,
      )
    }
    const parsed = pinFileSchema.safeParse(data)
    if (!parsed.success)
      throw new WardenError('invalid-config', formatZodError(parsed.error, `pin file ${path}`))
    return new ToolPins(path, parsed.data.tools as Record<string, ToolPin>)
  }

  /** The pinned tool names. */
  names(): string[] {
    return [...this.pins.keys()].sort()
  }

  /** The tools whose latest listing differs from their pin. */
  mismatched(): PinMismatch[] {
    return [...this.mismatches.values()]
  }

  /**
   * Compares a tools/list answer with the pins: unknown tools are pinned, pinned tools
   * that differ are marked (and their calls denied until the pin is updated).
   */
  observe(tools: readonly JsonObject[]): PinObservation {
    const observation: PinObservation = { added: [], changed: [] }
    for (const tool of tools) {
      if (typeof tool.name !== 'string') continue
      const seen = pinOf(tool)
      const pinned = this.pins.get(tool.name)
      if (!pinned) {
        this.pins.set(tool.name, seen)
        observation.added.push(tool.name)
        continue
      }
      if (pinned.digest === seen.digest) {
        this.mismatches.delete(tool.name)
        continue
      }
      const fields: string[] = []
      if (pinned.description !== seen.description) fields.push('description')
      if (canonicalJson(pinned.inputSchema ?? null) !== canonicalJson(seen.inputSchema ?? null))
        fields.push('inputSchema')
      const mismatch = { name: tool.name, fields: fields.length > 0 ? fields : ['digest'] }
      this.mismatches.set(tool.name, mismatch)
      observation.changed.push(mismatch)
    }
    return observation
  }

  /** Replaces every pin with the given listing (`warden mcp pin --update`). */
  replaceAll(tools: readonly JsonObject[]): void {
    this.pins.clear()
    this.mismatches.clear()
    for (const tool of tools) if (typeof tool.name === 'string') this.pins.set(tool.name, pinOf(tool))
  }

  /** Why a call to this tool is denied, or undefined when its pin holds. */
  denialFor(name: string): string | undefined {
    const mismatch = this.mismatches.get(name)
    if (!mismatch) return undefined
    return `tool "${name}" changed since it was pinned (${mismatch.fields.join(' and ')} differ${mismatch.fields.length === 1 ? 's' : ''}); review the change and run "warden mcp pin --update --pin ${this.path}" to accept it`
  }

  /** Writes the pins to their file (atomically, through a temporary file). */
  async save(): Promise<void> {
    const tools: Record<string, ToolPin> = {}
    for (const name of this.names()) tools[name] = this.pins.get(name) as ToolPin
    const temporary = `${this.path}.${process.pid}.tmp`
    await writeFile(temporary, `${JSON.stringify({ version: 1, tools }, null, 2)}\n`, 'utf8')
    await rename(temporary, this.path)
  }
}

function pinOf(tool: JsonObject): ToolPin {
  const pin: ToolPin = { digest: toolDigest(tool), pinnedAt: new Date().toISOString() }
  if (typeof tool.description === 'string') pin.description = tool.description
  if (tool.inputSchema !== undefined) pin.inputSchema = tool.inputSchema
  return pin
}

/** The digest of a listed tool: SHA-256 over its name, description and input schema. */
export function toolDigest(tool: JsonObject): string {
  const subject = {
    name: tool.name ?? null,
    description: tool.description ?? null,
    inputSchema: tool.inputSchema ?? null,
  }
  return createHash('sha256').update(canonicalJson(subject)).digest('hex')
}

/** JSON with object keys sorted, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
    return `{${entries.join(',')}}`
  }
  return JSON.stringify(value ?? null)
}
