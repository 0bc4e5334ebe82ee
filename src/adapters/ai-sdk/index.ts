// Warden inside the Vercel AI SDK (`ai`): a language-model middleware for
// `wrapLanguageModel` that checks the prompt (`user.message`, `model.pre`) and what the
// model generates (`agent.response`, `tool.pre` on tool calls, `model.post` for audit),
// streamed output included — text is held until checked (its last `holdBackChars` held
// longer, so a pattern that may still match is not released), a deny cuts the stream with
// an error part, a modify's rewrite is what the caller reads (or, when the part it changes
// was already released, the stream ends with the cause) — and `guardTools(tools)`, which
// runs `tool.pre` / `tool.post` around each tool's `execute`.

import type { LanguageModelMiddleware, ToolSet } from 'ai'
import type { Decision, EventContext, JsonObject } from '../../core/index.js'
import { type BackendOptions, crashed, settle, toSend, type WardenSource } from '../backend.js'
import {
  asInput,
  contextReminder,
  modifiedText,
  modifiedToolInput,
  modifiedToolOutput,
  toJson,
  WardenDeniedError,
} from '../decisions.js'
import { aiSdkMetering, errorPayload, meteringFields } from '../metering.js'

/** Options of {@link wardenMiddleware} and {@link guardTools}. */
export interface AiSdkAdapterOptions extends BackendOptions {
  /** Context merged into every event (tenantId, agent, session). */
  context?: EventContext
  /** Check the model's tool calls with `tool.pre` (default true; turn off when {@link guardTools} does it). */
  checkToolCalls?: boolean
  /** Streamed text is checked (and released) every this many characters, and at each text end. Default 200. */
  checkEveryChars?: number
  /**
   * The last this many characters of streamed text stay held after a check until the next
   * one (or the text end), so a secret cut across a check is seen whole before any of it
   * is released. Default 64.
   */
  holdBackChars?: number
}

type Params = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params']
type Prompt = Params['prompt']
type GenerateResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapGenerate']>>>
type Content = GenerateResult['content'][number]
type StreamResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapStream']>>>
type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never

/** The middleware for `wrapLanguageModel({ model, middleware })`. */
export function wardenMiddleware(
  source: WardenSource,
  options: AiSdkAdapterOptions = {},
): LanguageModelMiddleware {
  const send = toSend(source, options)
  const context = options.context ?? {}
  const every = Math.max(1, options.checkEveryChars ?? 200)
  const holdBack = Math.max(0, options.holdBackChars ?? 64)

  // Fail-closed as toBackend's backend is: a throw, a rejection or a non-decision is a deny.
  const dispatch = async (event: string, payload: JsonObject): Promise<Decision> => {
    try {
      return settle(await send({ event, payload, context }), event)
    } catch (error) {
      return crashed(event, error)
    }
  }

  async function checkToolCall(
    part: Extract<Content, { type: 'tool-call' }>,
  ): Promise<{ denied?: Decision; input?: string }> {
    if (options.checkToolCalls === false || part.providerExecuted) return {}
    const decision = await dispatch('tool.pre', {
      tool: { name: part.toolName, input: asInput(part.input), id: part.toolCallId },
    })
    if (decision.decision === 'deny') return { denied: decision }
    const input = modifiedToolInput(decision)
    return input ? { input: JSON.stringify(input) } : {}
  }

  /** A model call that failed fires `error` (observed, never awaited) and fails as it did. */
  const reportError = (error: unknown): never => {
    void dispatch('error', { error: errorPayload(error) })
    throw error
  }

  return {
    specificationVersion: 'v3',
    async transformParams({ params }) {
      let prompt = params.prompt
      const last = prompt[prompt.length - 1]
      const reminders: string[] = []
      if (last?.role === 'user') {
        const text = last.content.map((p) => (p.type === 'text' ? p.text : '')).join('')
        const decision = await dispatch('user.message', {
          message: { role: 'user', text, content: toJson(last.content) },
        })
        if (decision.decision === 'deny') throw new WardenDeniedError(decision, 'the prompt')
        const rewritten = modifiedText(decision)
        if (rewritten !== undefined)
          prompt = [...prompt.slice(0, -1), { ...last, content: [{ type: 'text', text: rewritten }] }]
        reminders.push(contextReminder(decision))
      }
      const decision = await dispatch('model.pre', {
        model: {
          messages: toJson(prompt) as JsonObject[],
          tools: toJson(params.tools ?? []) as JsonObject[],
        },
      })
      if (decision.decision === 'deny') throw new WardenDeniedError(decision, 'the model call')
      const changed = decision.decision === 'modify' ? decision.payload?.model : undefined
      if (
        changed &&
        typeof changed === 'object' &&
        !Array.isArray(changed) &&
        Array.isArray(changed.messages)
      ) {
        prompt = changed.messages as unknown as Prompt
      }
      reminders.push(contextReminder(decision))
      const text = reminders.filter(Boolean).join('\n')
      if (text) prompt = withSystem(prompt, text)
      return prompt === params.prompt ? params : { ...params, prompt }
    },

    async wrapGenerate({ doGenerate }) {
      const result = await doGenerate().then(undefined, reportError)
      const content: Content[] = []
      let text = ''
      for (const part of result.content) {
        if (part.type === 'text') text += part.text
        if (part.type !== 'tool-call') {
          content.push(part)
          continue
        }
        const checked = await checkToolCall(part)
        if (checked.denied) {
          content.push({
            type: 'text',
            text: `Warden blocked the tool call ${part.toolName}: ${checked.denied.reason}`,
          })
        } else content.push(checked.input ? { ...part, input: checked.input } : part)
      }
      if (text) {
        const decision = await dispatch('agent.response', { message: { role: 'agent', text } })
        if (decision.decision === 'deny') throw new WardenDeniedError(decision, 'the answer')
        const rewritten = modifiedText(decision)
        if (rewritten !== undefined) {
          const rest = content.filter((p) => p.type !== 'text')
          content.length = 0
          content.push({ type: 'text', text: rewritten }, ...rest)
        }
      }
      const calls = content.filter((p) => p.type === 'tool-call').length
      void dispatch('model.post', {
        model: { response: toJson(content), ...meteringFields(aiSdkMetering(result, calls)) },
      })
      const blocked =
        content.length !== result.content.length || content.some((p, i) => p !== result.content[i])
      return blocked ? { ...result, content } : result
    },

    async wrapStream({ doStream }) {
      const { stream, ...rest } = await doStream().then(undefined, reportError)
      return { ...rest, stream: guardStream(stream, dispatch, checkToolCall, every, holdBack) }
    },
  }
}

type Dispatch = (event: string, payload: JsonObject) => Promise<Decision>
type CheckToolCall = (
  part: Extract<Content, { type: 'tool-call' }>,
) => Promise<{ denied?: Decision; input?: string }>

/** One streamed text: all of it so far, the deltas not yet released, and what was released. */
interface StreamedText {
  text: string
  /** Characters checked by the last check. */
  checked: number
  /** Characters of `text` already put out. */
  released: number
  held: Extract<StreamPart, { type: 'text-delta' }>[]
  /** A check rewrote it: everything is held until the check of the whole text. */
  rewriting: boolean
}

/**
 * The model's stream as the caller reads it: text held until checked (`agent.response`
 * every `every` characters, the last `holdBack` of them held until the next check, and
 * the whole text at its end), tool calls checked (`tool.pre`), and `model.post` reported
 * at the finish. A deny puts an error part out and ends the stream, cancelling the
 * model's. A modify of the text is applied: the rest of the text is held until the whole
 * of it is checked, and the rewritten text goes out in place of what was held; when the
 * rewrite changes what was already released, the stream ends with that cause instead.
 * A pulled stream rather than a `TransformStream`: piping through one costs several
 * times the SDK's own work per part, and most parts need no answer.
 */
function guardStream(
  stream: ReadableStream<StreamPart>,
  dispatch: Dispatch,
  checkToolCall: CheckToolCall,
  every: number,
  holdBack: number,
): ReadableStream<StreamPart> {
  const reader = stream.getReader()
  const texts = new Map<string, StreamedText>()
  const emitted: JsonObject[] = []
  let out: ReadableStreamDefaultController<StreamPart> | undefined
  /** Closed, cancelled or stopped by Warden: nothing more goes out. */
  let ended = false
  /** Whether the current pull has put a part out. */
  let released = false
  const emit = (part: StreamPart) => {
    if (ended) return
    out?.enqueue(part)
    released = true
  }
  const stop = (error: WardenDeniedError) => {
    emit({ type: 'error', error })
    if (ended) return
    ended = true
    out?.close()
    reader.cancel(error).catch(() => undefined)
  }
  /** Puts out the held deltas that end at or before `upTo` characters. */
  const release = (entry: StreamedText, upTo: number) => {
    let end = entry.released
    let count = 0
    for (const part of entry.held) {
      if (end + part.delta.length > upTo) break
      end += part.delta.length
      count++
    }
    const ready = entry.held.splice(0, count)
    entry.released = end
    for (const part of ready) emit(part)
  }
  /** A check while the text streams: releases what it allowed, but the held-back tail. */
  const checkText = async (id: string): Promise<void> => {
    const entry = texts.get(id)
    if (!entry) return
    const text = entry.text
    const decision = await dispatch('agent.response', { message: { role: 'agent', text } })
    if (decision.decision === 'deny') return stop(new WardenDeniedError(decision, 'the answer'))
    entry.checked = text.length
    const rewritten = modifiedText(decision)
    if (rewritten !== undefined && rewritten !== text) {
      entry.rewriting = true
      return
    }
    release(entry, text.length - holdBack)
  }
  /** The check of the whole text at its end: the rewrite, if any, is what goes out. */
  const endText = async (part: Extract<StreamPart, { type: 'text-end' }>): Promise<void> => {
    const entry = texts.get(part.id)
    let final = entry?.text ?? ''
    if (entry) {
      const decision = await dispatch('agent.response', { message: { role: 'agent', text: entry.text } })
      if (decision.decision === 'deny') return stop(new WardenDeniedError(decision, 'the answer'))
      const rewritten = modifiedText(decision)
      if (rewritten === undefined || rewritten === entry.text) {
        release(entry, entry.text.length)
      } else {
        const sent = entry.text.slice(0, entry.released)
        if (!rewritten.startsWith(sent)) {
          const reason = `a hook rewrote part of the answer that was already streamed, so the rewrite cannot be applied (${decision.reason}); raise holdBackChars or checkEveryChars`
          return stop(new WardenDeniedError({ ...decision, decision: 'deny', reason }, 'the answer'))
        }
        entry.held = []
        const rest = rewritten.slice(sent.length)
        if (rest) emit({ type: 'text-delta', id: part.id, delta: rest })
        final = rewritten
      }
    }
    if (ended) return
    emitted.push({ type: 'text', text: final })
    emit(part)
  }
  const checkCall = async (part: Extract<StreamPart, { type: 'tool-call' }>): Promise<void> => {
    const checked = await checkToolCall(part)
    if (checked.denied) return stop(new WardenDeniedError(checked.denied, `the tool call ${part.toolName}`))
    const final = checked.input ? { ...part, input: checked.input } : part
    emitted.push({ type: 'tool-call', toolName: part.toolName, input: final.input })
    emit(final)
  }
  // Synchronous for the parts that need no answer from Warden.
  const handle = (part: StreamPart): Promise<void> | undefined => {
    switch (part.type) {
      case 'text-delta': {
        let entry = texts.get(part.id)
        if (!entry) {
          entry = { text: '', checked: 0, released: 0, held: [], rewriting: false }
          texts.set(part.id, entry)
        }
        entry.text += part.delta
        entry.held.push(part)
        if (entry.rewriting) return undefined
        return entry.text.length - entry.checked >= every ? checkText(part.id) : undefined
      }
      case 'text-end':
        return endText(part)
      case 'tool-call':
        return checkCall(part)
      case 'finish': {
        const calls = emitted.filter((p) => p.type === 'tool-call').length
        void dispatch('model.post', {
          model: { response: emitted, ...meteringFields(aiSdkMetering(part, calls)) },
        })
        break
      }
      case 'error':
        void dispatch('error', { error: errorPayload(part.error) })
    }
    emit(part)
    return undefined
  }
  return new ReadableStream<StreamPart>(
    {
      start(controller) {
        out = controller
      },
      // Reads on until a part is put out (held text puts none out), the model's stream
      // ends, or Warden stopped it.
      async pull(controller) {
        released = false
        while (!released && !ended) {
          const next = await reader.read()
          if (next.done) {
            if (!ended) controller.close()
            ended = true
            return
          }
          const pending = handle(next.value)
          if (pending) await pending
        }
      },
      cancel(reason) {
        ended = true
        return reader.cancel(reason)
      },
    },
    { highWaterMark: 0 },
  )
}

/** The prompt with a system message holding `text` after the leading system messages. */
function withSystem(prompt: Prompt, text: string): Prompt {
  let at = 0
  while (prompt[at]?.role === 'system') at++
  return [...prompt.slice(0, at), { role: 'system', content: text }, ...prompt.slice(at)]
}

/**
 * The tools with `tool.pre` / `tool.post` around each `execute`: a deny throws (the SDK
 * hands the error to the model as the tool's result), a modify rewrites the input the tool
 * gets or the output the model sees.
 */
export function guardTools<T extends ToolSet>(
  tools: T,
  source: WardenSource,
  options: AiSdkAdapterOptions = {},
): T {
  const send = toSend(source, options)
  const context = options.context ?? {}
  const guarded: Record<string, unknown> = {}
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute
    if (typeof execute !== 'function') {
      guarded[name] = tool
      continue
    }
    guarded[name] = {
      ...tool,
      async execute(input: unknown, callOptions: { toolCallId: string }) {
        const call: JsonObject = { name, input: asInput(input), id: callOptions.toolCallId }
        let before: Decision
        try {
          before = settle(await send({ event: 'tool.pre', payload: { tool: call }, context }), 'tool.pre')
        } catch (error) {
          before = crashed('tool.pre', error)
        }
        if (before.decision === 'deny') throw new WardenDeniedError(before, `the tool call ${name}`)
        const effective = modifiedToolInput(before) ?? input
        const output = await (execute as (i: unknown, o: unknown) => unknown)(effective, callOptions)
        const done = {
          ...call,
          input: effective === input ? call.input : asInput(effective),
          output: toJson(output),
        }
        let after: Decision
        try {
          after = settle(await send({ event: 'tool.post', payload: { tool: done }, context }), 'tool.post')
        } catch (error) {
          after = crashed('tool.post', error)
        }
        if (after.decision === 'deny') throw new WardenDeniedError(after, `the result of ${name}`)
        const rewritten = modifiedToolOutput(after)
        return rewritten ? rewritten.output : output
      },
    }
  }
  return guarded as T
}
