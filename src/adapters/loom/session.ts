// loom's `Session` over Warden: an agent loop (model call, tool calls, repeat) that fires
// loom's lifecycle hooks where loom fires them — `session.start` at the top, `model.pre`
// before each model call (its added context lands on that request), `model.post` with the
// metering, `tool.pre` (a block gives the model a denied result with the reason instead of
// running the tool), `tool.post` (observe only), `error` on an unrecoverable failure and
// `session.end` on every exit with the terminal reason. The model is whatever `provider`
// the host passes; reminders from hooks reach it on its next request.

import { randomUUID } from 'node:crypto'
import { errorMessage, type JsonObject } from '../../core/index.js'
import { asInput } from '../decisions.js'
import type { HookRuntime } from './hooks.js'
import { ReminderInjector } from './reminders.js'

/** A message of the conversation. */
export type SessionMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCallRequest[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string; isError: boolean }

/** A tool call the model asks for. */
export interface ToolCallRequest {
  id: string
  name: string
  input: unknown
}

/** What the provider is asked: the conversation, the tools, and the reminders for this request. */
export interface ProviderRequest {
  model: string
  messages: readonly SessionMessage[]
  tools: readonly { name: string; description?: string }[]
  /** `<system-reminder>` fragments to add to this request (hook outcomes, added context). */
  reminders: readonly string[]
  signal: AbortSignal
}

/** What the provider answers, with what loom meters. */
export interface ProviderResponse {
  text?: string
  toolCalls?: ToolCallRequest[]
  /** The provider's stop reason (`end_turn`, `tool_use`, `max_tokens`, ...). */
  stopReason: string
  inputTokens?: number
  outputTokens?: number
  costUsd?: number
}

/** The model: one call per turn. */
export type Provider = (request: ProviderRequest) => Promise<ProviderResponse>

/** A tool the model may call. */
export interface SessionTool {
  name: string
  description?: string
  execute(input: JsonObject, signal: AbortSignal): unknown
}

/** Options of {@link Session}. */
export interface SessionOptions {
  provider: Provider
  tools?: readonly SessionTool[]
  model?: string
  /** The runtime the loop runs hooks with; pass its `reminders` too (or the same injector). */
  hooks?: HookRuntime
  reminders?: ReminderInjector
  sessionId?: string
  /** Turns (model calls) per message before the loop stops with `max_turns`. Default 20. */
  maxTurns?: number
}

/** How a submitted message ended. */
export interface SessionResult {
  /** `end_turn` (or the provider's stop reason), `aborted`, `max_turns` or `error`. */
  stopReason: string
  /** The last assistant text. */
  text: string
  turnCount: number
  error?: string
}

/** A conversation with hooks at loom's lifecycle points. */
export class Session {
  readonly sessionId: string
  private readonly messages: SessionMessage[] = []
  private readonly reminders: ReminderInjector
  private controller = new AbortController()

  constructor(private readonly options: SessionOptions) {
    this.sessionId = options.sessionId ?? randomUUID()
    this.reminders = options.reminders ?? options.hooks?.reminders ?? new ReminderInjector()
  }

  /** Runs the loop for one user message; never throws (a failure ends it with `error`). */
  async submitMessage(prompt: string): Promise<SessionResult> {
    const signal = this.controller.signal
    const model = this.options.model ?? 'model'
    let turnIndex = 0
    let text = ''
    const finish = async (stopReason: string, error?: string): Promise<SessionResult> => {
      await this.hook({ event: 'session.end', turnIndex, sessionId: this.sessionId, reason: stopReason })
      return { stopReason, text, turnCount: turnIndex, ...(error ? { error } : {}) }
    }
    await this.hook({ event: 'session.start', turnIndex, sessionId: this.sessionId, model })
    this.messages.push({ role: 'user', content: prompt })
    for (; turnIndex < (this.options.maxTurns ?? 20); turnIndex++) {
      if (signal.aborted) return finish('aborted')
      await this.hook({ event: 'model.pre', turnIndex, model, messageCount: this.messages.length }, signal)
      let response: ProviderResponse
      try {
        response = await this.options.provider({
          model,
          messages: [...this.messages],
          tools: (this.options.tools ?? []).map(({ name, description }) => ({
            name,
            ...(description ? { description } : {}),
          })),
          reminders: this.reminders.drain({ turnIndex }),
          signal,
        })
      } catch (error) {
        if (signal.aborted) return finish('aborted')
        const message = errorMessage(error)
        const code =
          typeof (error as { code?: unknown })?.code === 'string'
            ? (error as { code: string }).code
            : 'UNKNOWN'
        await this.hook({ event: 'error', turnIndex, code, message })
        return finish('error', message)
      }
      const calls = response.toolCalls ?? []
      text = response.text ?? text
      this.messages.push({
        role: 'assistant',
        content: response.text ?? '',
        ...(calls.length ? { toolCalls: calls } : {}),
      })
      await this.hook({
        event: 'model.post',
        turnIndex,
        model,
        stopReason: response.stopReason,
        inputTokens: response.inputTokens ?? 0,
        outputTokens: response.outputTokens ?? 0,
        costUsd: response.costUsd ?? 0,
        toolCallCount: calls.length,
      })
      if (calls.length === 0) return finish(response.stopReason || 'end_turn')
      for (const call of calls) this.messages.push(await this.runTool(call, turnIndex, signal))
    }
    return finish('max_turns')
  }

  /** Aborts the run in progress: hooks in flight block, the loop ends with `aborted`. */
  abort(reason: 'user' | 'timeout' | 'system' = 'user'): void {
    this.controller.abort(reason)
    this.controller = new AbortController()
  }

  /** The conversation so far. */
  getMessages(): readonly SessionMessage[] {
    return [...this.messages]
  }

  /** Aborts whatever runs; the session is not used afterwards. */
  cleanup(): void {
    this.abort('system')
  }

  private async runTool(
    call: ToolCallRequest,
    turnIndex: number,
    signal: AbortSignal,
  ): Promise<SessionMessage> {
    const toolInput = asInput(call.input)
    const reply = (content: string, isError: boolean): SessionMessage => ({
      role: 'tool',
      toolCallId: call.id,
      name: call.name,
      content,
      isError,
    })
    const pre = await this.hook({ event: 'tool.pre', turnIndex, toolName: call.name, toolInput }, signal)
    if (!pre.continue)
      return reply(`Hook "${pre.blockedHook}" blocked the action: ${pre.blockedReason}`, true)
    const tool = this.options.tools?.find((t) => t.name === call.name)
    if (!tool) return reply(`Unknown tool "${call.name}"`, true)
    let result: string
    let isError = false
    try {
      const output = await tool.execute(toolInput, signal)
      result = typeof output === 'string' ? output : JSON.stringify(output ?? null)
    } catch (error) {
      result = errorMessage(error)
      isError = true
    }
    // tool.post observes: the result already exists, a block there is recorded, never applied.
    await this.hook(
      { event: 'tool.post', turnIndex, toolName: call.name, toolInput, result, isError },
      signal,
    )
    return reply(result, isError)
  }

  private hook(ctx: Parameters<HookRuntime['run']>[0], signal?: AbortSignal) {
    const hooks = this.options.hooks
    if (!hooks?.has(ctx.event))
      return Promise.resolve({ continue: true } as Awaited<ReturnType<HookRuntime['run']>>)
    return hooks.run({ ...ctx, sessionId: this.sessionId }, signal)
  }
}
