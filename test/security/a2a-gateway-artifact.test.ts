// Issue 34 item 12, attacked against a real `warden a2a` with `stream.buffer: artifact` in
// front of the official SDK agent: the agent streams an artifact chunk carrying a secret,
// then restates the artifact with `append: false` and clean text. The held chunk must be
// checked before it is sent: the stream ends with the deny and the secret never reaches the
// client. A clean restated artifact still passes whole.

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deny, type HookCall, type JsonObject } from '../../src/core/index.js'
import { message, rpc, startTenantGateway, type TenantGateway } from './a2a-gateway-helper.js'

/** The artifact text of an a2a.response event (empty for other kinds). */
function artifactText(call: HookCall): string {
  const a2a = call.event.payload.a2a as JsonObject
  if (a2a.kind !== 'artifactUpdate') return ''
  const result = (a2a.payload as JsonObject).result as JsonObject
  const update = (result.artifactUpdate ?? result) as JsonObject
  return JSON.stringify((update.artifact as JsonObject).parts)
}

function events(text: string): JsonObject[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5)) as JsonObject)
}

describe('warden a2a with stream.buffer: artifact', () => {
  let setup: TenantGateway

  beforeAll(async () => {
    setup = await startTenantGateway({
      limits: { buffer: 'artifact' },
      hooks: [
        {
          name: 'no-keys-in-artifacts',
          event: 'a2a.response',
          handler: {
            type: 'fn',
            fn: (call: HookCall) =>
              artifactText(call).includes('sk-live-') ? deny('an artifact carries a key') : undefined,
          },
        },
      ],
    })
  }, 30_000)

  afterAll(async () => {
    await setup?.close()
  })

  it('checks the held chunks before a restating chunk (append: false) releases them', async () => {
    const answer = await rpc(setup.gateway, 'token-a', 'SendStreamingMessage', {
      message: message('restate:the key is sk-live-0123456789|nothing to see'),
    })
    const sent = events(answer.text)
    const artifacts = sent.filter((e) => JSON.stringify(e).includes('artifactUpdate'))
    expect(artifacts.map((e) => JSON.stringify(e)).join('\n')).not.toContain('sk-live-0123456789')
    const last = sent[sent.length - 1] as JsonObject
    expect(String((last.error as JsonObject | undefined)?.message)).toContain('an artifact carries a key')
  })

  it('passes a clean restated artifact, every chunk in order', async () => {
    const answer = await rpc(setup.gateway, 'token-a', 'SendStreamingMessage', {
      message: message('restate:first draft|final text'),
    })
    const sent = events(answer.text)
    expect(sent.some((e) => 'error' in e)).toBe(false)
    const texts = sent
      .map((e) => (e.result as JsonObject).artifactUpdate as JsonObject | undefined)
      .filter((u) => u !== undefined)
      .map((u) => ((u.artifact as JsonObject).parts as JsonObject[]).map((p) => p.text).join(''))
    expect(texts).toEqual(['first draft', 'final text'])
  })
})
