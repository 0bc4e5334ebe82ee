// Big payloads are not copied on their way through the chain: every hook sees the caller's
// own payload object until one modifies it, and a modify shares whatever it did not change.

import { describe, expect, it } from 'vitest'
import { createEngine, type HookCall, type JsonObject } from '../../src/index.js'

describe('payload sharing through the chain', () => {
  it('hands every hook the same payload object, and a modify copies only the path it changes', async () => {
    const content = 'x'.repeat(200_000)
    const attachments = [{ name: 'a.bin', size: 3 }]
    const payload = {
      tool: { name: 'write_file', input: { path: 'notes.txt', content, attachments } },
      extra: { big: 'y'.repeat(50_000) },
    }
    const seen: JsonObject[] = []
    const look = (call: HookCall) => void seen.push(call.event.payload)
    const engine = createEngine({
      hooks: [
        {
          name: 'one',
          event: 'tool.pre',
          priority: 1,
          if: "tool_input.path != ''",
          handler: { type: 'fn', fn: look },
        },
        {
          name: 'two',
          event: 'tool.pre',
          priority: 2,
          matcher: 'write_file',
          handler: { type: 'fn', fn: look },
        },
        {
          name: 'rename',
          event: 'tool.pre',
          priority: 3,
          handler: {
            type: 'fn',
            fn: (call: HookCall) => {
              const input = (call.event.payload.tool as { input: JsonObject }).input
              return { decision: 'modify', updatedInput: { ...input, path: 'safe/notes.txt' } }
            },
          },
        },
        { name: 'after', event: 'tool.pre', priority: 4, handler: { type: 'fn', fn: look } },
      ],
    })
    const decision = await engine.dispatch({ event: 'tool.pre', payload })
    expect(decision.decision).toBe('modify')
    expect(seen[0]).toBe(payload)
    expect(seen[1]).toBe(payload)
    const changed = seen[2] as typeof payload
    expect(changed).not.toBe(payload)
    expect(changed.tool.input.path).toBe('safe/notes.txt')
    // What the modify did not touch is shared, not copied.
    expect(changed.extra).toBe(payload.extra)
    expect(changed.tool.input.content).toBe(content)
    expect(changed.tool.input.attachments).toBe(attachments)
    expect(decision.payload).toBe(changed)
    // The caller's payload is left as it was.
    expect(payload.tool.input.path).toBe('notes.txt')
  })
})
