// §3 stdio transport: `warden acs --stdio` as a real child process, Content-Length framed
// UTF-8 JSON-RPC, a command hook from warden.yaml (the same hook AOS and Claude Code use), keys from an environment variable (`env:`).

import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  acsRequest,
  clientHello,
  encodeFrame,
  FrameReader,
  responseSigned,
} from '../../src/protocols/acs/index.js'
import { runCli } from '../helpers/cli.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-acs-stdio-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const CONFIG = `acs:
  keys:
    - id: k1
      secret: env:ACS_TEST_KEY
hooks:
  - name: no-rm
    event: tool.pre
    matcher: shell
    handler: { type: command, command: ./deny.sh }
`

describe('§3 stdio transport with Content-Length framing', () => {
  it('answers a handshake, a signed hook request and a ping, in order, signed', async () => {
    writeFileSync(join(dir, 'warden.yaml'), CONFIG)
    writeFileSync(join(dir, 'deny.sh'), '#!/bin/sh\ncat >/dev/null\necho "rm is not allowed" >&2\nexit 2\n', {
      mode: 0o755,
    })
    const key = { id: 'k1', material: Buffer.from('stdio secret', 'utf8') }
    const sessionId = randomUUID()
    const frames = [
      clientHello(sessionId, {}, { key }),
      acsRequest(
        'steps/toolCallRequest',
        { tool: { id: 'shell' }, arguments: { cmd: 'rm -rf /' } },
        { sessionId, key },
      ),
      { jsonrpc: '2.0', id: 'p', method: 'system/ping', params: {} },
    ]
    const stdin = Buffer.concat(frames.map((f) => encodeFrame(f))).toString('utf8')
    const run = await runCli(['acs', '--stdio', '--config', join(dir, 'warden.yaml')], {
      stdin,
      env: { ...process.env, ACS_TEST_KEY: 'stdio secret' },
    })
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const replies = new FrameReader(1 << 20)
      .push(Buffer.from(run.stdout, 'utf8'))
      .map((b) => JSON.parse(b.toString('utf8')))
    expect(replies).toHaveLength(3)
    expect(replies[0].result.negotiated_version).toBe('0.1.0')
    expect(replies[0].result.selected_transport).toBe('stdio')
    expect(replies[1].result.decision).toBe('deny')
    expect(replies[1].result.reasoning).toBe('rm is not allowed')
    expect(responseSigned(replies[1], key, sessionId)).toBe(true)
    expect(replies[2].result.payload.status).toBe('ok')
  })

  it('answers the well-formed frames sent with a bad one, then -32700 for the bad one, and exits 1', async () => {
    const ping = (id: string) => encodeFrame({ jsonrpc: '2.0', id, method: 'system/ping', params: {} })
    const stdin = Buffer.concat([ping('p1'), ping('p2'), Buffer.from('Content-Length: x\r\n\r\n{}\n')])
    const run = await runCli(['acs', '--stdio', '--config', join(dir, 'warden.yaml')], {
      stdin: stdin.toString('utf8'),
      env: { ...process.env, ACS_TEST_KEY: 'x' },
    })
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/Content-Length/)
    const replies = new FrameReader(1 << 20)
      .push(Buffer.from(run.stdout, 'utf8'))
      .map((b) => JSON.parse(b.toString('utf8')))
    expect(replies.map((r) => r.id)).toEqual(['p1', 'p2', null])
    expect(replies[0].result.payload.status).toBe('ok')
    expect(replies[2].error.code).toBe(-32700)
  })
})
