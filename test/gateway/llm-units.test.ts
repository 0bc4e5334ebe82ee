// The model-API gateway's pieces without servers: the text guard (hold-back, redaction,
// a rewrite of text already sent), a Chat Completions stream the upstream never finishes,
// and the routes.

import { describe, expect, it } from 'vitest'
import { apiForPath, chatApi, type StreamChecks, TextGuard } from '../../src/gateway/index.js'

function checks(rewrite: (text: string) => string, calls: string[] = []): StreamChecks {
  return {
    checkText: true,
    every: 1,
    holdBack: 6,
    text: async (text) => ({ ok: true, text: rewrite(text) }),
    call: async (call) => {
      calls.push(JSON.stringify(call.input))
      return { kind: 'allow' }
    },
  }
}

describe('TextGuard', () => {
  it('holds the last holdBack characters until the next check, and redacts what goes out', async () => {
    const guard = new TextGuard(checks((t) => t.replace('SECRET', '######')))
    const out: string[] = []
    for (const delta of ['hello ', 'SEC', 'RET', ' bye']) {
      const step = await guard.push(delta)
      if (step.ok) out.push(step.text)
    }
    const last = await guard.finish()
    if (last.ok) out.push(last.text)
    expect(out.join('')).toBe('hello ###### bye')
    expect(out.join('')).not.toContain('SEC')
    expect(guard.rewritten()).toBe(true)
  })

  it('ends the stream when a rewrite would change text already sent', async () => {
    const guard = new TextGuard(checks((t) => (t.length > 20 ? 'something else entirely' : t)))
    await guard.push('a fairly long text ')
    expect((await guard.push('and more')).ok).toBe(true)
    const step = await guard.finish()
    expect(step.ok).toBe(false)
    expect(!step.ok && step.error.message).toContain('llm.stream.holdBackChars')
  })
})

describe('Chat Completions relay', () => {
  it('releases held text and tool calls, checked, when the upstream ends without finishing', async () => {
    const calls: string[] = []
    const relay = chatApi.relay(checks((t) => t, calls))
    const chunk = (delta: object) => ({
      data: JSON.stringify({ id: 'c', choices: [{ index: 0, delta, finish_reason: null }] }),
    })
    const out: string[] = []
    for (const event of [
      chunk({ content: 'hello there, friend' }),
      chunk({ tool_calls: [{ index: 0, id: 't1', function: { name: 'Bash', arguments: '{"command":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"ls"}' } }] }),
      { data: '[DONE]' },
    ]) {
      const step = await relay.event(event)
      if (Array.isArray(step)) out.push(...step)
    }
    const text = out.join('')
    expect(text).toContain('friend')
    expect(text).toContain('"arguments":"{\\"command\\":\\"ls\\"}"')
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true)
    expect(calls).toEqual(['{"command":"ls"}'])
  })
})

describe('routes', () => {
  it('checks the three APIs, passes GETs and token counts, refuses other POSTs', () => {
    expect(apiForPath('POST', '/v1/messages')).toMatchObject({ kind: 'checked', api: { name: 'anthropic' } })
    expect(apiForPath('POST', '/v1/chat/completions')).toMatchObject({
      kind: 'checked',
      api: { name: 'chat' },
    })
    expect(apiForPath('POST', '/openai/v1/responses')).toMatchObject({
      kind: 'checked',
      api: { name: 'responses' },
    })
    expect(apiForPath('POST', '/v1/messages/count_tokens').kind).toBe('unchecked')
    expect(apiForPath('GET', '/v1/models').kind).toBe('unchecked')
    expect(apiForPath('POST', '/v1/completions')).toMatchObject({ kind: 'refused', error: { status: 404 } })
  })
})
