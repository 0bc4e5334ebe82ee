// The AI SDK middleware's stream guard on hand-made model streams: parts pass in order when
// no hook applies, held text is released only once checked, a deny puts an error part out,
// ends the stream and cancels the model's, a failing model stream fails the caller's, and
// a caller that cancels cancels the model's stream.

import type { LanguageModelMiddleware } from 'ai'
import { describe, expect, it } from 'vitest'
import { wardenMiddleware } from '../../src/adapters/ai-sdk/index.js'
import { createEngine, type HookDefinition } from '../../src/index.js'

type WrapStream = NonNullable<LanguageModelMiddleware['wrapStream']>
type StreamResult = Awaited<ReturnType<WrapStream>>
type Part = StreamResult['stream'] extends ReadableStream<infer P> ? P : never

const textParts = (id: string, ...deltas: string[]): Part[] => [
  { type: 'text-start', id },
  ...deltas.map((delta): Part => ({ type: 'text-delta', id, delta })),
  { type: 'text-end', id },
]
const toolCall: Part = { type: 'tool-call', toolCallId: 'c1', toolName: 'shell', input: '{"cmd":"ls"}' }
const finish = { type: 'finish', finishReason: 'stop', usage: {} } as unknown as Part

/** A model stream of `parts`, one per pull, that records a cancel, or fails after them. */
function modelStream(parts: Part[], fail?: Error) {
  const state = { cancelled: undefined as unknown }
  const queue = [...parts]
  const stream = new ReadableStream<Part>({
    pull(controller) {
      const part = queue.shift()
      if (part) controller.enqueue(part)
      else if (fail) controller.error(fail)
      else controller.close()
    },
    cancel(reason) {
      state.cancelled = reason ?? 'cancelled'
    },
  })
  return { stream, state }
}

async function guarded(hooks: HookDefinition[], stream: ReadableStream<Part>, checkEveryChars = 200) {
  const engine = createEngine({ hooks })
  const middleware = wardenMiddleware(engine, { checkEveryChars })
  const result = await (middleware.wrapStream as WrapStream)({
    doStream: async () => ({ stream }) as StreamResult,
    doGenerate: async () => {
      throw new Error('not used')
    },
    params: { prompt: [] },
    model: {} as never,
  })
  return { stream: result.stream, engine }
}

async function read(stream: ReadableStream<Part>): Promise<Part[]> {
  const parts: Part[] = []
  for await (const part of stream) parts.push(part)
  return parts
}

describe('AI SDK stream guard', () => {
  it('passes every part through in order when no hook applies, and reports model.post', async () => {
    const parts = [...textParts('t1', 'Hel', 'lo'), toolCall, ...textParts('t2', 'bye'), finish]
    const reported: unknown[] = []
    const { stream, engine } = await guarded(
      [
        {
          name: 'post',
          event: 'model.post',
          handler: { type: 'fn', fn: (e: unknown) => void reported.push(e) },
        },
      ],
      modelStream(parts).stream,
      2,
    )
    expect(await read(stream)).toEqual(parts)
    await engine.drain()
    expect(JSON.stringify(reported)).toContain('"toolName":"shell"')
    expect(JSON.stringify(reported)).toContain('"text":"Hello"')
  })

  it('cuts the stream at a denied text before releasing it, and cancels the model stream', async () => {
    const { stream: source, state } = modelStream([...textParts('t1', 'the key is ', 'sk-live-1'), finish])
    const { stream } = await guarded(
      [
        {
          name: 'no-keys',
          event: 'agent.response',
          if: "message.text.contains('sk-live')",
          handler: { type: 'deny', reason: 'no secrets' },
        },
      ],
      source,
    )
    const parts = await read(stream)
    expect(parts.map((p) => p.type)).toEqual(['text-start', 'error'])
    expect(String((parts[1] as { error: unknown }).error)).toContain('no secrets')
    expect(state.cancelled).toBeDefined()
  })

  it('denies a tool call with an error part, and rewrites one Warden modifies', async () => {
    const deny: HookDefinition = {
      name: 'no-shell',
      event: 'tool.pre',
      handler: { type: 'deny', reason: 'no shell' },
    }
    const denied = await read((await guarded([deny], modelStream([toolCall, finish]).stream)).stream)
    expect(denied.map((p) => p.type)).toEqual(['error'])
    const modify: HookDefinition = {
      name: 'safer',
      event: 'tool.pre',
      handler: { type: 'fn', fn: () => ({ decision: 'modify', updatedInput: { cmd: 'pwd' } }) },
    }
    const rewritten = await read((await guarded([modify], modelStream([toolCall, finish]).stream)).stream)
    expect(rewritten[0]).toEqual({ ...toolCall, input: '{"cmd":"pwd"}' })
    expect(rewritten[1]).toEqual(finish)
  })

  it('fails when the model stream fails, and cancels the model stream when the caller cancels', async () => {
    const failing = modelStream([...textParts('t1', 'hi')], new Error('socket closed'))
    await expect(read((await guarded([], failing.stream)).stream)).rejects.toThrow('socket closed')
    const { stream: source, state } = modelStream([...textParts('t1', 'a', 'b'), finish])
    const { stream } = await guarded([], source)
    const reader = stream.getReader()
    expect((await reader.read()).value).toEqual({ type: 'text-start', id: 't1' })
    await reader.cancel('enough')
    expect(state.cancelled).toBe('enough')
  })
})
