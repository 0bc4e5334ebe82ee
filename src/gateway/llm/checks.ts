// The checks of the model-API gateway. Before a request leaves: the new user message
// (`user.message`), each tool result sent back (`tool.post`), then the request as a whole
// (`model.pre`: model, system prompt, messages, tools offered). Before an answer reaches
// the agent: each text (`agent.response`) and each tool call (`tool.pre`); then
// `model.post` reports the answer as delivered (it cannot block). A deny of the request or
// of answer text refuses the call; a denied tool call is replaced by a text saying why.

import {
  type Decision,
  dispatchSoon,
  type Engine,
  type EventContext,
  type EventName,
  type Json,
  type JsonObject,
  type ModifyCheck,
  type OnCallerGone,
  type Soon,
} from '../../core/index.js'
import type { UnknownTypePolicy } from '../kit/index.js'
import {
  type AnswerVerdicts,
  type AnswerView,
  type ApiErrorInfo,
  blockedCallText,
  type CallVerdict,
  isObject,
  type LlmApi,
  type RequestChanges,
  type StreamChecks,
  type TextCheck,
  type TextWindow,
  type ToolCallView,
  type ToolResultView,
} from './api.js'

/** A checked request or answer: the body to send on, or the error to answer instead. */
export type Checked = { ok: true; body: JsonObject; changed: boolean } | { ok: false; error: ApiErrorInfo }

/** Who is calling and how to learn that they left. */
export interface CallScope {
  context: EventContext
  onCallerGone?: OnCallerGone
}

const textNeeded: ModifyCheck = (payload) =>
  isObject(payload.message) && typeof payload.message.text === 'string'
    ? undefined
    : 'a modify must keep message.text as a string'
const inputNeeded: ModifyCheck = (payload) =>
  isObject(payload.tool) && isObject(payload.tool.input)
    ? undefined
    : 'a modify must keep tool.input as an object'
const outputNeeded: ModifyCheck = (payload) =>
  isObject(payload.tool) && Object.hasOwn(payload.tool, 'output')
    ? undefined
    : 'a modify must keep tool.output'
const modelNeeded: ModifyCheck = (payload) => {
  const model = payload.model
  if (!isObject(model)) return 'a modify must keep model as an object'
  if (!Array.isArray(model.messages)) return 'a modify must keep model.messages as a list'
  if (model.tools !== undefined && !Array.isArray(model.tools)) return 'model.tools must be a list'
  return undefined
}

/** The checks of one gateway. */
export class LlmChecks {
  constructor(
    private readonly engine: Engine,
    private readonly pacing: { checkEveryChars: number; holdBackChars: number; maxTextChars?: number },
    /** The operator's let-through of unknown item types (`llm.allowUnknownTypes`). */
    private readonly types?: UnknownTypePolicy,
  ) {}

  /** Whether any enabled hook runs on `agent.response` (else streamed text is not held). */
  checksText(): boolean {
    return this.engine.hooks().some((hook) => hook.enabled && hook.event === 'agent.response')
  }

  /** Checks a request before it leaves. */
  async request(api: LlmApi, body: JsonObject, scope: CallScope): Promise<Checked> {
    const view = api.readRequest(body, this.types)
    if (view.refusal) return { ok: false, error: view.refusal }
    for (const call of view.approvals ?? []) {
      const verdict = await this.call(call, scope)
      if (verdict.kind !== 'allow')
        return {
          ok: false,
          error: {
            status: 403,
            code: 'denied',
            message: `Warden refused the approval of ${call.name}: ${verdict.kind === 'blocked' ? verdict.text : 'a hook would change its input, which an approval cannot carry'}`,
          },
        }
    }
    const changes: RequestChanges = { toolOutputs: new Map(), userTexts: new Map() }
    let changed = false
    const texts = view.userTexts ?? (view.userText !== undefined ? [{ key: '', text: view.userText }] : [])
    // A conversation repeats its history: each distinct text is checked once per request.
    const decided = new Map<string, string | undefined>()
    for (const { key, text } of texts) {
      let out = decided.get(text)
      if (!decided.has(text)) {
        const pending = this.dispatch('user.message', { message: { role: 'user', text } }, scope, textNeeded)
        const decision = pending instanceof Promise ? await pending : pending
        if (decision.decision === 'deny') return refused(decision, 'the user message')
        out = modifiedText(decision)
        decided.set(text, out)
      }
      if (out === undefined || out === text) continue
      if (view.userTexts) changes.userTexts?.set(key, out)
      else changes.userText = out
      changed = true
    }
    const outputs = new Map<string, JsonObject | undefined>()
    for (const result of view.toolResults) {
      const tool: JsonObject = { name: result.name, id: result.id, input: {}, output: result.output }
      if (result.isError) tool.isError = true
      const same = `${result.name}\u0000${result.isError === true}\u0000${JSON.stringify(result.output)}`
      let next = outputs.get(same)
      if (!outputs.has(same)) {
        const pending = this.dispatch('tool.post', { tool }, scope, outputNeeded)
        const decision = pending instanceof Promise ? await pending : pending
        if (decision.decision === 'deny') return refused(decision, `the result of tool ${result.name}`)
        next =
          decision.decision === 'modify' && isObject(decision.payload?.tool)
            ? decision.payload.tool
            : undefined
        outputs.set(same, next)
      }
      if (next) {
        changes.toolOutputs.set(result.key ?? result.id, next.output as Json)
        changed = true
      }
    }
    let current = changed ? api.applyRequest(body, changes) : body
    const seen = changed ? api.readRequest(current) : view
    const model: JsonObject = { messages: seen.messages, tools: seen.tools, api: api.name }
    if (view.letThrough?.length) model.unknownTypesLetThrough = view.letThrough
    if (seen.model !== undefined) model.name = seen.model
    if (seen.system !== undefined) model.system = seen.system
    const pending = this.dispatch('model.pre', { model }, scope, modelNeeded)
    const decision = pending instanceof Promise ? await pending : pending
    if (decision.decision === 'deny') return refused(decision, 'the model call')
    const next = decision.decision === 'modify' ? decision.payload?.model : undefined
    if (isObject(next)) {
      const modelChanges: RequestChanges = { toolOutputs: new Map(), messages: next.messages as Json[] }
      if (Array.isArray(next.tools)) modelChanges.tools = next.tools
      if (Object.hasOwn(next, 'system')) modelChanges.system = next.system as Json
      current = api.applyRequest(current, modelChanges)
      changed = true
    }
    return { ok: true, body: current, changed }
  }

  /** Checks a whole (non-streamed) answer, then reports it as `model.post`. */
  async answer(api: LlmApi, body: JsonObject, scope: CallScope): Promise<Checked> {
    const view = api.readAnswer(body, this.types)
    if (view.refusal) return { ok: false, error: view.refusal }
    const verdicts: AnswerVerdicts = { texts: new Map(), calls: new Map(), results: new Map() }
    let changed = false
    for (const { key, text } of view.texts) {
      const pending = this.checkText(text, scope)
      const checked = pending instanceof Promise ? await pending : pending
      if (!checked.ok) return checked
      if (checked.text !== text) {
        verdicts.texts.set(key, checked.text)
        changed = true
      }
    }
    const joined = await this.checkGroups(view, verdicts, scope)
    if (joined) return joined
    for (const call of view.calls) {
      const pending = this.checkCall(call, scope)
      const verdict = pending instanceof Promise ? await pending : pending
      if (call.upstream && verdict.kind !== 'allow') return upstreamRefusal(call, verdict)
      if (verdict.kind !== 'allow') changed = true
      verdicts.calls.set(call.key ?? call.id, verdict)
    }
    for (const result of view.results ?? []) {
      const checked = await this.result(result, scope)
      if (!checked.ok) return checked
      if (checked.output !== result.output) {
        verdicts.results?.set(result.key ?? result.id, checked.output)
        changed = true
      }
    }
    if ((view.textCopies || view.logprobs) && this.checksText()) {
      verdicts.dropTextCopies = true
      verdicts.textChecked = true
      changed = true
    }
    const answer = changed ? api.applyAnswer(body, verdicts) : body
    this.report(api, answer, scope, view.letThrough)
    return { ok: true, body: answer, changed }
  }

  /** Checks the texts of each group joined (a secret split across blocks); an error if refused. */
  private async checkGroups(
    view: AnswerView,
    verdicts: AnswerVerdicts,
    scope: CallScope,
  ): Promise<{ ok: false; error: ApiErrorInfo } | undefined> {
    const byKey = new Map(view.texts.map((t) => [t.key, t.text]))
    for (const group of view.groups ?? []) {
      if (group.length < 2) continue
      const text = group.map((key) => verdicts.texts.get(key) ?? byKey.get(key) ?? '').join('')
      const checked = await this.checkText(text, scope)
      if (!checked.ok) return checked
      if (checked.text !== text)
        return {
          ok: false,
          error: {
            status: 403,
            code: 'denied',
            message:
              'Warden blocked the answer: a hook rewrote text that spans several parts of it, which cannot be put back part by part',
          },
        }
    }
    return undefined
  }

  /** Checks a tool result the model's side produced (a server tool's): the output to send on. */
  async result(
    result: ToolResultView,
    scope: CallScope,
  ): Promise<{ ok: true; output: Json } | { ok: false; error: ApiErrorInfo }> {
    const tool: JsonObject = { name: result.name, id: result.id, input: {}, output: result.output }
    if (result.isError) tool.isError = true
    const pending = this.dispatch('tool.post', { tool }, scope, outputNeeded)
    const decision = pending instanceof Promise ? await pending : pending
    if (decision.decision === 'deny') return refused(decision, `the result of tool ${result.name}`)
    if (decision.decision === 'modify' && isObject(decision.payload?.tool))
      return { ok: true, output: decision.payload.tool.output as Json }
    return { ok: true, output: result.output }
  }

  /** The checks a stream relay uses, for one call. */
  streamChecks(scope: CallScope): StreamChecks {
    const checks: StreamChecks = {
      checkText: this.checksText(),
      every: this.pacing.checkEveryChars,
      holdBack: this.pacing.holdBackChars,
      text: (text, window) => this.streamText(text, window, scope),
      call: (call) => this.call(call, scope),
      result: (result) => this.result(result, scope),
    }
    if (this.types) checks.types = this.types
    if (this.pacing.maxTextChars !== undefined) checks.maxChars = this.pacing.maxTextChars
    return checks
  }

  /**
   * Checks a window of streamed text (audited only when denied), or at its end the whole text
   * (the answer's one audited decision, naming how many windows were checked and those a
   * hook changed). Hooks tell them apart by `stream.final`.
   */
  async streamText(text: string, window: TextWindow | undefined, scope: CallScope): Promise<TextCheck> {
    if (window === undefined) return this.checkText(text, scope)
    const stream: JsonObject = window.final
      ? { final: true, windows: window.windows ?? 0, decided: (window.decided ?? []) as unknown as Json }
      : { final: false, offset: window.offset, chars: text.length }
    const input = {
      event: 'agent.response',
      payload: { message: { role: 'agent', text }, stream },
      context: scope.context,
      acceptModify: textNeeded,
      ...(window.final ? {} : { audit: 'denials' as const }),
      ...(scope.onCallerGone ? { onCallerGone: scope.onCallerGone } : {}),
    }
    const pending = dispatchSoon(this.engine, input)
    const decision = pending instanceof Promise ? await pending : pending
    const verdict = textVerdict(decision, text)
    return verdict.ok ? { ...verdict, decision: decision.decision, reason: decision.reason } : verdict
  }

  /** Reports a delivered answer as `model.post` (non-blocking: never waited for). */
  report(api: LlmApi, response: JsonObject, scope: CallScope, letThrough?: string[]): void {
    const model: JsonObject = { response, api: api.name }
    if (letThrough?.length) model.unknownTypesLetThrough = letThrough
    void this.engine.dispatch({
      event: 'model.post',
      payload: { model },
      context: scope.context,
    })
  }

  /** Checks one text of the answer: the text to send, or the error. */
  async text(text: string, scope: CallScope): Promise<TextVerdict> {
    return this.checkText(text, scope)
  }

  /** Checks one tool call the model asks for. */
  async call(call: ToolCallView, scope: CallScope): Promise<CallVerdict> {
    return this.checkCall(call, scope)
  }

  /** {@link text}, synchronously when every hook that ran was. */
  private checkText(text: string, scope: CallScope): Soon<TextVerdict> {
    const pending = this.dispatch('agent.response', { message: { role: 'agent', text } }, scope, textNeeded)
    return pending instanceof Promise ? pending.then((d) => textVerdict(d, text)) : textVerdict(pending, text)
  }

  /** {@link call}, synchronously when every hook that ran was. */
  private checkCall(call: ToolCallView, scope: CallScope): Soon<CallVerdict> {
    const pending = this.dispatch(
      'tool.pre',
      { tool: { name: call.name, input: call.input, id: call.id } },
      scope,
      inputNeeded,
    )
    return pending instanceof Promise ? pending.then((d) => callVerdict(d, call)) : callVerdict(pending, call)
  }

  /** The engine's decision: a value when every hook that ran was synchronous (no tick spent). */
  private dispatch(
    event: EventName,
    payload: JsonObject,
    scope: CallScope,
    acceptModify: ModifyCheck,
  ): Soon<Decision> {
    return dispatchSoon(
      this.engine,
      scope.onCallerGone
        ? { event, payload, context: scope.context, acceptModify, onCallerGone: scope.onCallerGone }
        : { event, payload, context: scope.context, acceptModify },
    )
  }
}

type TextVerdict = { ok: true; text: string } | { ok: false; error: ApiErrorInfo }

function textVerdict(decision: Decision, text: string): TextVerdict {
  if (decision.decision === 'deny') return refused(decision, 'the answer')
  return { ok: true, text: modifiedText(decision) ?? text }
}

function callVerdict(decision: Decision, call: ToolCallView): CallVerdict {
  if (decision.decision === 'deny')
    return { kind: 'blocked', text: blockedCallText(call.name, decision.reason) }
  if (
    decision.decision === 'modify' &&
    isObject(decision.payload?.tool) &&
    isObject(decision.payload.tool.input)
  )
    return { kind: 'rewrite', input: decision.payload.tool.input }
  return { kind: 'allow' }
}

function upstreamRefusal(call: ToolCallView, verdict: CallVerdict): { ok: false; error: ApiErrorInfo } {
  const why = verdict.kind === 'blocked' ? verdict.text : `a hook rewrote the call to ${call.name}`
  return {
    ok: false,
    error: {
      status: 403,
      code: 'denied',
      message: `${why} (it ran on the model's side, so the answer that carries its result is refused)`,
    },
  }
}

function modifiedText(decision: Decision): string | undefined {
  if (decision.decision !== 'modify') return undefined
  const message = decision.payload?.message
  return isObject(message) && typeof message.text === 'string' ? message.text : undefined
}

function refused(decision: Decision, what: string): { ok: false; error: ApiErrorInfo } {
  return {
    ok: false,
    error: { status: 403, code: 'denied', message: `Warden blocked ${what}: ${decision.reason}` },
  }
}
