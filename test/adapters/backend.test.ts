// The adapters' backend: a real Warden Guardian on loopback answers allow / deny / modify
// with context over `/aos`, and every way the remote can fail — unreachable, slow, HTTP
// error, garbage — and an engine that throws become a deny naming the cause.

import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { failClosed, remoteWarden, toBackend } from '../../src/adapters/backend.js'
import { pendingAsk, systemReminder } from '../../src/adapters/decisions.js'
import { createEngine } from '../../src/index.js'
import { startGuardian, type TestGuardian } from '../server/aos-helper.js'

const toolPre = (cmd: string) => ({ event: 'tool.pre', payload: { tool: { name: 'exec', input: { cmd } } } })

let guardian: TestGuardian | undefined
let fake: Server | undefined
afterEach(async () => {
  await guardian?.close()
  fake?.closeAllConnections()
  fake?.close()
  guardian = undefined
  fake = undefined
})

async function fakeServer(answer: (res: import('node:http').ServerResponse) => void): Promise<string> {
  fake = createServer((req, res) => {
    req.resume()
    req.on('end', () => answer(res))
  })
  await new Promise<void>((resolve) => fake?.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(fake.address() as AddressInfo).port}`
}

describe('remote Warden backend', () => {
  it('carries deny, modify and added context from a real Guardian', async () => {
    guardian = await startGuardian({
      hooks: [
        {
          name: 'no-rm',
          event: 'tool.pre',
          if: "tool_input.cmd.contains('rm')",
          handler: { type: 'deny', reason: 'rm is not allowed' },
        },
        {
          name: 'dry',
          event: 'tool.pre',
          if: "tool_input.cmd == 'deploy'",
          handler: {
            type: 'fn',
            fn: () => ({
              decision: 'modify',
              updatedInput: { cmd: 'deploy --dry-run' },
              additionalContext: 'deploys are dry today',
            }),
          },
        },
      ],
    })
    const remote = remoteWarden(guardian.url)
    const denied = await remote.dispatch(toolPre('rm -rf /'))
    expect(denied).toMatchObject({ decision: 'deny', reason: 'rm is not allowed' })
    const modified = await remote.dispatch(toolPre('deploy'))
    expect(modified.decision).toBe('modify')
    expect(modified.payload).toMatchObject({ tool: { name: 'exec', input: { cmd: 'deploy --dry-run' } } })
    expect(modified.additionalContext).toEqual(['deploys are dry today'])
    expect((await remote.dispatch(toolPre('ls'))).decision).toBe('allow')
  })

  it('does not send events AOS has no method for, and says so', async () => {
    const decision = await remoteWarden('http://127.0.0.1:9').dispatch({
      event: 'session.start',
      payload: { session: {} },
    })
    expect(decision).toMatchObject({ decision: 'allow', reasonCode: ['not-sent'] })
  })

  it('denies when the remote is unreachable, slow, failing or answers garbage', async () => {
    const closed = await fakeServer(() => undefined)
    fake?.close()
    expect((await remoteWarden(closed).dispatch(toolPre('ls'))).reason).toMatch(
      /could not be reached \(ECONNREFUSED\)/,
    )
    const slow = await fakeServer(() => undefined)
    const late = await remoteWarden(slow, { timeoutMs: 200 }).dispatch(toolPre('ls'))
    expect(late).toMatchObject({ decision: 'deny', reasonCode: ['warden-unavailable'] })
    expect(late.reason).toContain('did not answer within 200 ms')
    fake?.closeAllConnections()
    fake?.close()
    const failing = await fakeServer((res) => {
      res.statusCode = 500
      res.end('boom')
    })
    expect((await remoteWarden(failing).dispatch(toolPre('ls'))).reason).toContain('answered HTTP 500')
    fake?.closeAllConnections()
    fake?.close()
    const garbage = await fakeServer((res) => res.end('{"jsonrpc":"2.0","id":"nope","result":{}}'))
    expect((await remoteWarden(garbage).dispatch(toolPre('ls'))).reason).toContain('gave an unusable answer')
  })
})

describe('engine backend', () => {
  it('turns a throwing or answer-less backend into a deny', async () => {
    const throwing = failClosed({
      dispatch: () => {
        throw new Error('engine exploded')
      },
    })
    expect((await throwing.dispatch(toolPre('ls'))).reason).toBe(
      'Warden failed (engine exploded), so the action is denied',
    )
    const silent = failClosed({ dispatch: async () => undefined as never })
    expect((await silent.dispatch(toolPre('ls'))).decision).toBe('deny')
    expect(() => toBackend({} as never)).toThrow('a Warden source must be')
  })

  it('reports a held ask without an approver as pending, and renders reminders', async () => {
    const engine = createEngine({
      hooks: [{ name: 'confirm', event: 'tool.pre', handler: { type: 'ask', reason: 'needs a human' } }],
    })
    const decision = await toBackend(engine).dispatch(toolPre('ls'))
    expect(decision.decision).toBe('deny')
    expect(pendingAsk(decision)).toBe('needs a human')
    expect(systemReminder(decision)).toContain(
      'hook confirm asked a human to approve the action: needs a human',
    )
  })
})
