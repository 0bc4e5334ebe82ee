// The text guard scans streamed text in linear time: each check sees a window (the held text
// plus the new text), the whole text is checked once at the end, a redaction cut across
// windows is still applied, a hook that keeps rewriting held text or text past the cap ends
// the stream naming the setting, and only the end check (or a deny) reaches the audit.

import { describe, expect, it } from 'vitest'
import { deny, type HookCall, type JsonObject, modify } from '../../src/core/index.js'
import { LlmChecks, type StreamChecks, TextGuard, type TextWindow } from '../../src/gateway/index.js'
import { buildEngine } from '../../src/sources/index.js'

function checks(
  rewrite: (text: string) => string,
  seen: { text: string; window?: TextWindow }[],
  options: Partial<StreamChecks> = {},
): StreamChecks {
  return {
    checkText: true,
    every: 16,
    holdBack: 8,
    text: async (text, window) => {
      seen.push(window ? { text, window } : { text })
      return { ok: true, text: rewrite(text) }
    },
    call: async () => ({ kind: 'allow' }),
    ...options,
  }
}

async function run(guard: TextGuard, deltas: string[]): Promise<{ out: string; error?: string }> {
  let out = ''
  for (const delta of deltas) {
    const step = await guard.push(delta)
    if (!step.ok) return { out, error: step.error.message }
    out += step.text
  }
  const last = await guard.finish()
  if (!last.ok) return { out, error: last.error.message }
  return { out: out + last.text }
}

describe('TextGuard windows', () => {
  it('checks windows of bounded size and the whole text once at the end', async () => {
    const seen: { text: string; window?: TextWindow }[] = []
    const guard = new TextGuard(checks((t) => t, seen))
    const deltas = Array.from({ length: 2000 }, (_, i) => `w${i % 10} `)
    const result = await run(guard, deltas)
    expect(result.out).toBe(deltas.join(''))
    const windows = seen.filter((s) => s.window?.final === false)
    expect(windows.length).toBeGreaterThan(100)
    for (const w of windows) expect(w.text.length).toBeLessThanOrEqual(16 + 8 + 3)
    const finals = seen.filter((s) => s.window?.final === true)
    expect(finals).toHaveLength(1)
    expect(finals[0]?.text).toBe(deltas.join(''))
    expect(finals[0]?.window?.windows).toBe(windows.length)
    const scanned = seen.reduce((n, s) => n + s.text.length, 0)
    expect(scanned).toBeLessThan(4 * deltas.join('').length)
  })

  it('redacts a secret cut across windows at every position, naming the windows that changed', async () => {
    const secret = 'sk-ABCDEFGH'
    for (let cut = 1; cut < 30; cut++) {
      const text = `${'x'.repeat(cut)} ${secret} and ${'y'.repeat(40)} ${secret} end`
      const seen: { text: string; window?: TextWindow }[] = []
      const guard = new TextGuard(
        checks((t) => t.replaceAll(secret, '[R]'), seen, { every: 5, holdBack: 11 }),
      )
      const deltas = text.match(/.{1,3}/gs) ?? []
      const result = await run(guard, deltas)
      expect(result.error).toBeUndefined()
      expect(result.out).toBe(text.replaceAll(secret, '[R]'))
      expect(guard.rewritten()).toBe(true)
      const final = seen.find((s) => s.window?.final)
      expect(final?.window?.decided?.length).toBeGreaterThanOrEqual(1)
    }
  })

  it('ends the stream past maxChars, naming llm.stream.maxTextChars', async () => {
    const guard = new TextGuard(checks((t) => t, [], { maxChars: 100 }))
    const result = await run(
      guard,
      Array.from({ length: 20 }, () => 'abcdefghij'),
    )
    expect(result.error).toContain('llm.stream.maxTextChars')
    expect(result.out.length).toBeLessThanOrEqual(100)
  })

  it('ends the stream when a hook keeps rewriting the held text', async () => {
    const guard = new TextGuard(checks((t) => `${t.slice(0, -1)}#`, [], { every: 4, holdBack: 4 }))
    const result = await run(
      guard,
      Array.from({ length: 2000 }, () => 'ab'),
    )
    expect(result.error).toContain('llm.stream.holdBackChars')
  })
})

describe('stream checks through the engine', () => {
  it('records one decision per streamed text: window checks only when they deny', async () => {
    const records: JsonObject[] = []
    const engine = buildEngine(undefined, {
      recorder: { record: ({ event }) => void records.push(event.payload) },
      extraHooks: [
        {
          name: 'redact',
          event: 'agent.response',
          handler: {
            type: 'fn',
            fn: ({ event }: HookCall) => {
              const message = event.payload.message as JsonObject
              const text = String(message.text)
              if (text.includes('FORBIDDEN')) return deny('forbidden word')
              return text.includes('key-1')
                ? modify({ message: { ...message, text: text.replaceAll('key-1', '[R]') } })
                : undefined
            },
          },
        },
      ],
    })
    const limits = { checkEveryChars: 8, holdBackChars: 8 }
    const guard = new TextGuard(new LlmChecks(engine, limits).streamChecks({ context: {} }))
    const result = await run(guard, ['hello ', 'there key-1 ', 'and more text '.repeat(20)])
    expect(result.out).toContain('[R]')
    expect(records).toHaveLength(1)
    const stream = (records[0]?.stream ?? {}) as JsonObject
    expect(stream.final).toBe(true)
    expect((stream.decided as JsonObject[]).length).toBeGreaterThanOrEqual(1)
    const denied = new TextGuard(new LlmChecks(engine, limits).streamChecks({ context: {} }))
    const refused = await run(denied, ['a'.repeat(40), 'FORBIDDEN', 'b'.repeat(40)])
    expect(refused.error).toContain('forbidden word')
    expect(records).toHaveLength(2)
    expect(records[1]?.stream).toMatchObject({ final: false })
    await engine.close()
  })
})
