// `warden acs --stdio`: the ACS v0.1 Guardian over stdin/stdout with Content-Length framing,
// for agents that start their Guardian as a child process. The hooks and the `acs:` section
// come from warden.yaml, as for `warden serve`.

import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import {
  createAcsService,
  encodeFrame,
  type FrameError,
  FrameReader,
  resolveAcsSettings,
} from '../protocols/acs/index.js'
import { createSecretBox } from '../secrets/index.js'
import { buildEngine, loadConfig, type WardenConfig } from '../sources/index.js'
import { parseArgs } from './args.js'
import type { CliIo } from './io.js'

const HELP = `usage: warden acs --stdio [--config warden.yaml]

Serves ACS v0.1 (handshake/hello, steps/*, protocols/MCP/*, agbom/*, system/ping) on
stdin/stdout, one JSON-RPC message per "Content-Length: N\\r\\n\\r\\n" frame. The hooks and
the acs: section (keys, skew window, handshake) come from the config.

example:
  warden acs --stdio --config examples/warden.yaml
`

/** The largest frame accepted, in bytes. */
const MAX_FRAME = 1024 * 1024

/** Where frames are read from and written to (process stdio, or streams in tests). */
export interface FrameStreams {
  input: AsyncIterable<Uint8Array>
  write(bytes: Uint8Array): void
}

/** Answers a framing error -32700 (the stream cannot be read on) and says why: exit 1. */
function framingFailed(error: FrameError, write: (bytes: Uint8Array) => void, io: CliIo): number {
  write(
    encodeFrame({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32700,
        message: error.message,
        data: { reason: 'parse_error', message: error.message },
      },
    }),
  )
  io.stderr(`warden acs: ${error.message}\n`)
  return 1
}

/** Runs the command; exits when stdin ends (0) or on a framing error (1). */
export async function run(args: string[], io: CliIo, streams?: FrameStreams): Promise<number> {
  let values: { stdio?: boolean; config?: string; help?: boolean }
  try {
    values = parseArgs({
      args,
      options: {
        stdio: { type: 'boolean' },
        config: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
    }).values
  } catch (error) {
    io.stderr(`warden acs: ${(error as Error).message}\n\n${HELP}`)
    return 1
  }
  if (values.help) {
    io.stdout(HELP)
    return 0
  }
  if (!values.stdio) {
    io.stderr(`warden acs: --stdio is required (HTTP is served by "warden serve" on POST /acs)\n\n${HELP}`)
    return 1
  }
  let config: WardenConfig | undefined
  let service: ReturnType<typeof createAcsService>
  let engine: ReturnType<typeof buildEngine>
  try {
    const path = values.config ?? (existsSync(resolve(io.cwd, 'warden.yaml')) ? 'warden.yaml' : undefined)
    if (path) config = await loadConfig(resolve(io.cwd, path))
    const raw = config?.raw.acs
    const sealed = JSON.stringify(raw ?? {}).includes('wsec:v1:')
    const settings = resolveAcsSettings(raw, sealed ? createSecretBox({ env: io.env }) : undefined, io.env)
    engine = buildEngine(config, { env: io.env })
    service = createAcsService({
      engine,
      settings,
      transport: 'stdio',
      onInternalError: (e) => io.stderr(`warden acs: internal error: ${(e as Error).message}\n`),
    })
  } catch (error) {
    io.stderr(`warden acs: ${(error as Error).message}\n`)
    return 1
  }
  const input = streams?.input ?? (process.stdin as AsyncIterable<Uint8Array>)
  const write = streams?.write ?? ((bytes: Uint8Array) => process.stdout.write(bytes))
  const reader = new FrameReader(MAX_FRAME)
  try {
    for await (const chunk of input) {
      // Frames are answered in order, one at a time, as the stdio transport expects; every
      // well-formed frame before a bad one is answered before the stream is given up.
      for (const body of reader.push(chunk)) write(encodeFrame(await service.handleBody(body)))
      if (reader.failure) return framingFailed(reader.failure, write, io)
    }
    return 0
  } finally {
    await engine.close()
  }
}
