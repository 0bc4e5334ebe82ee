// Warden inside the Vercel AI SDK (`ai`): a language-model middleware for
// `wrapLanguageModel` that checks the prompt (`user.message`, `model.pre`) and what the
// model generates (`agent.response`, `tool.pre` on tool calls, `model.post` for audit),
// streamed output included — text is held until checked, and a deny cuts the stream with
// an error part — and `guardTools(tools)`, which runs `tool.pre` / `tool.post` around each
// tool's `execute`.

import type { LanguageModelMiddleware, ToolSet } from 'ai'
import type { Decision, EventContext, JsonObject } from '../../core/index.js'
import { type BackendOptions, toBackend, type WardenSource } from '../backend.js'
import {
  asInput,
  modifiedText,
  modifiedToolInput,
  modifiedToolOutput,
  systemReminder,
  toJson,
  WardenDeniedError,
} from '../decisions.js'

/** Options of {@link wardenMiddleware} and {@link guardTools}. */
export interface AiSdkAdapterOptions extends BackendOptions {
  /** Context merged into every event (tenantId, agent, session). */
  context?: EventContext
  /** Check the model's tool calls with `tool.pre` (default true; turn off when {@link guardTools} does it). */
  checkToolCalls?: boolean
  /** Streamed text is checked (and released) every this many characters, and at each text end. Default 200. */
  checkEveryChars?: number
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
  const backend = toBackend(source, options)
  const context = options.context ?? {}
  const every = Math.max(1, options.checkEveryChars ?? 200)

  const dispatch = (event: string, payload: JsonObject) => backend.dispatch({ event, payload, context })

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
        reminders.push(systemReminder({ ...decision, trace: [] }))
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
      reminders.push(systemReminder({ ...decision, trace: [] }))
      const text = reminders.filter(Boolean).join('\n')
      if (text) prompt = withSystem(prompt, text)
      return prompt === params.prompt ? params : { ...params, prompt }
    },

    async wrapGenerate({ doGenerate }) {
      const result = await doGenerate()
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
      void dispatch('model.post', { model: { response: toJson(content) } })
      const blocked =
        content.length !== result.content.length || content.some((p, i) => p !== result.content[i])
      return blocked ? { ...result, content } : result
    },

    async wrapStream({ doStream }) {
      const { stream, ...rest } = await doStream()
      const texts = new Map<string, { text: string; checked: number; held: StreamPart[] }>()
      const emitted: JsonObject[] = []
      let stopped = false
      const checkText = async (
        id: string,
        controller: TransformStreamDefaultController<StreamPart>,
      ): Promise<boolean> => {
        const entry = texts.get(id)
        if (!entry) return true
        const decision = await dispatch('agent.response', { message: { role: 'agent', text: entry.text } })
        if (decision.decision === 'deny') {
          controller.enqueue({ type: 'error', error: new WardenDeniedError(decision, 'the answer') })
          controller.terminate()
          stopped = true
          return false
        }
        entry.checked = entry.text.length
        for (const held of entry.held) controller.enqueue(held)
        entry.held = []
        return true
      }
      const guard = new TransformStream<StreamPart, StreamPart>({
        async transform(part, controller) {
          if (stopped) return
          if (part.type === 'text-delta') {
            const entry = texts.get(part.id) ?? { text: '', checked: 0, held: [] }
            texts.set(part.id, entry)
            entry.text += part.delta
            entry.held.push(part)
            if (entry.text.length - entry.checked >= every) await checkText(part.id, controller)
            return
          }
          if (part.type === 'text-end') {
            if (!(await checkText(part.id, controller))) return
            emitted.push({ type: 'text', text: texts.get(part.id)?.text ?? '' })
            controller.enqueue(part)
            return
          }
          if (part.type === 'tool-call') {
            const checked = await checkToolCall(part)
            if (checked.denied) {
              controller.enqueue({
                type: 'error',
                error: new WardenDeniedError(checked.denied, `the tool call ${part.toolName}`),
              })
              controller.terminate()
              stopped = true
              return
            }
            const final = checked.input ? { ...part, input: checked.input } : part
            emitted.push({ type: 'tool-call', toolName: part.toolName, input: final.input })
            controller.enqueue(final)
            return
          }
          if (part.type === 'finish') void dispatch('model.post', { model: { response: emitted } })
          controller.enqueue(part)
        },
      })
      return { ...rest, stream: stream.pipeThrough(guard) }
    },
  }
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
  const backend = toBackend(source, options)
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
        const before = await backend.dispatch({ event: 'tool.pre', payload: { tool: call }, context })
        if (before.decision === 'deny') throw new WardenDeniedError(before, `the tool call ${name}`)
        const effective = modifiedToolInput(before) ?? input
        const output = await (execute as (i: unknown, o: unknown) => unknown)(effective, callOptions)
        const after = await backend.dispatch({
          event: 'tool.post',
          payload: { tool: { ...call, input: asInput(effective), output: toJson(output) } },
          context,
        })
        if (after.decision === 'deny') throw new WardenDeniedError(after, `the result of ${name}`)
        const rewritten = modifiedToolOutput(after)
        return rewritten ? rewritten.output : output
      },
    }
  }
  return guarded as T
}
