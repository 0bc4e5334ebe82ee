// What the gateway needs of each model API (Anthropic Messages, OpenAI Chat Completions,
// OpenAI Responses): where the events are in a request and an answer, how a checked
// change is put back, the API's own error shape, and a relay for its streamed answer.
// Each API is one module implementing {@link LlmApi}; the rest of the gateway is shared.

import type { Json, JsonObject } from '../../core/index.js'
import type { SseEvent } from '../a2a/index.js'
import type { UnknownTypePolicy } from '../kit/index.js'

/** The model APIs the gateway speaks. */
export type LlmApiName = 'anthropic' | 'chat' | 'responses'

/** A tool result the agent sends back (checked as `tool.post`). */
export interface ToolResultView {
  /** Where it stands (its verdict is keyed by this, not by the call id, when given). */
  key?: string
  id: string
  name: string
  output: Json
  isError?: boolean
}

/** One user-role text of a request, keyed by where it stands. */
export interface UserTextView {
  key: string
  text: string
}

/** What a request carries, as the events see it. */
export interface RequestView {
  model?: string
  stream: boolean
  system?: Json
  /** The conversation in the API's own wire form. */
  messages: Json[]
  /** The tools offered, in the API's own wire form. */
  tools: Json[]
  /** The text of the new user message, when the request ends with one. */
  userText?: string
  /** Tool results of the last turn (every tool result of the request when the API keys them). */
  toolResults: ToolResultView[]
  /**
   * Every user-role text wherever it stands (when given, checked in place of `userText`;
   * identical texts are checked once).
   */
  userTexts?: UserTextView[]
  /** Why the request cannot be checked (an item Warden does not understand): refused. */
  refusal?: ApiErrorInfo
  /** Unknown item types the operator let through (`protocol/place/type`), for the audit. */
  letThrough?: string[]
  /** Calls the request approves to run upstream: checked as `tool.pre`, a deny refuses it. */
  approvals?: ToolCallView[]
}

/** What the request checks changed. */
export interface RequestChanges {
  userText?: string
  /** Rewritten user texts, by {@link UserTextView.key}. */
  userTexts?: Map<string, string>
  /** Rewritten tool outputs, by {@link ToolResultView.key} (else id). */
  toolOutputs: Map<string, Json>
  messages?: Json[]
  tools?: Json[]
  system?: Json
}

/** A tool call the model asks for (checked as `tool.pre`). */
export interface ToolCallView {
  /** Where it stands (its verdict is keyed by this, not by the call id, when given). */
  key?: string
  id: string
  name: string
  input: JsonObject
  /** Run by the model's side (a server tool): already ran, so a deny or rewrite refuses the answer. */
  upstream?: boolean
}

/** What an answer carries, as the events see it. */
export interface AnswerView {
  /** Each text of the answer, keyed by where it is (block index, choice, item). */
  texts: { key: string; text: string }[]
  calls: ToolCallView[]
  /** Results of tools that ran upstream (checked as `tool.post`, keyed by `key`). */
  results?: ToolResultView[]
  usage?: JsonObject
  /** Whether the answer carries logprobs (removed when text is checked). */
  logprobs?: boolean
  /** Texts sharing a group are also checked joined (a secret split across blocks). */
  groups?: string[][]
  /** The answer carries copies of its text (logprobs), removed when text is checked. */
  textCopies?: boolean
  /** Why the answer cannot be checked: refused. */
  refusal?: ApiErrorInfo
  /** Unknown item types the operator let through (`protocol/place/type`), for the audit. */
  letThrough?: string[]
}

/** What became of one tool call. */
export type CallVerdict =
  | { kind: 'allow' }
  | { kind: 'rewrite'; input: JsonObject }
  | { kind: 'blocked'; text: string }

/** What the answer checks changed. */
export interface AnswerVerdicts {
  texts: Map<string, string>
  calls: Map<string, CallVerdict>
  /** Rewritten outputs of tools that ran upstream, by key. */
  results?: Map<string, Json>
  /** Whether a hook checked the text (logprobs, which repeat it, are then removed). */
  textChecked?: boolean
  /** Remove the answer's copies of its text (text is checked). */
  dropTextCopies?: boolean
}

/** A gateway-made error, in the API's shape. */
export interface ApiErrorInfo {
  status: number
  /** A short code: `denied`, `invalid_request`, `upstream_unreachable`, ... */
  code: string
  message: string
}

/** A window of streamed text a hook changed (kept in the answer's one audited decision). */
export interface WindowDecision {
  /** Where the window starts in the text, in characters. */
  offset: number
  chars: number
  decision: string
  reason: string
}

/** Which part of a streamed text a check sees. */
export interface TextWindow {
  /** Where the checked text starts in the whole text, in characters. */
  offset: number
  /** True for the one check of the whole text at its end (audited); false for a window. */
  final: boolean
  /** At the end: how many windows were checked, and those a hook changed. */
  windows?: number
  decided?: WindowDecision[]
}

/** A check of streamed text: its released form (with what decided it), or why the stream must end. */
export type TextCheck =
  | { ok: true; text: string; decision?: string; reason?: string }
  | { ok: false; error: ApiErrorInfo }

/** The checks a stream relay calls while it reads the upstream's events. */
export interface StreamChecks {
  /** Whether streamed text must be checked (a hook runs on `agent.response`). */
  checkText: boolean
  /** Streamed text is checked each time this many new characters have come. */
  every: number
  /** Characters held after each check until the next. */
  holdBack: number
  /** The longest streamed text checked (`llm.stream.maxTextChars`); past it the stream ends. */
  maxChars?: number
  /** Checks a window of the text (or, at its end, all of it). */
  text(text: string, window?: TextWindow): Promise<TextCheck>
  /** Checks a complete tool call. */
  call(call: ToolCallView): Promise<CallVerdict>
  /** Checks the result of a tool that ran upstream: its output to send, or why the stream must end. */
  result?(result: ToolResultView): Promise<{ ok: true; output: Json } | { ok: false; error: ApiErrorInfo }>
  /** Named unknown types the operator lets through (`llm.allowUnknownTypes`). */
  types?: UnknownTypePolicy
}

/** The result of relaying one upstream event: frames to write, or the error that ends the stream. */
export type RelayStep = string[] | { error: ApiErrorInfo }

/** The API side of one streamed answer. */
export interface StreamRelay {
  /** Handles one upstream event. */
  event(event: SseEvent): Promise<RelayStep>
  /** The upstream stream ended: what is still held. */
  end(): Promise<RelayStep>
  /** The error frame that ends the stream. */
  errorFrame(error: ApiErrorInfo): string
  /** What was answered, for `model.post`. */
  summary(): JsonObject
  /** Unknown item types let through in the stream, for the audit. */
  letThrough?(): string[]
}

/** One model API. */
export interface LlmApi {
  name: LlmApiName
  /** How documentation and messages name it. */
  label: string
  /** Reads a request; `types` lets named unknown types through. */
  readRequest(body: JsonObject, types?: UnknownTypePolicy): RequestView
  /** Puts the changes into the request (the body may be changed in place). */
  applyRequest(body: JsonObject, changes: RequestChanges): JsonObject
  readAnswer(body: JsonObject, types?: UnknownTypePolicy): AnswerView
  /** Puts the verdicts into the answer (the body may be changed in place). */
  applyAnswer(body: JsonObject, verdicts: AnswerVerdicts): JsonObject
  /** The API's error body. */
  errorBody(error: ApiErrorInfo): JsonObject
  /** A relay for one streamed answer. */
  relay(checks: StreamChecks): StreamRelay
}

/**
 * `types` with every let-through also noted in `seen` (so the call's audit names the keys).
 */
export function notingLetThrough(
  types: UnknownTypePolicy | undefined,
  seen: string[],
): UnknownTypePolicy | undefined {
  if (!types) return undefined
  return {
    ...types,
    onLetThrough: (key, table) => {
      seen.push(key)
      types.onLetThrough?.(key, table)
    },
  }
}

/** True for a JSON object. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The text a blocked tool call is replaced by. */
export function blockedCallText(name: string, reason: string): string {
  return `Warden blocked the tool call ${name}: ${reason}`
}

/** A tool call's arguments as an object (JSON text that is not an object becomes `{}`). */
export function parseArguments(text: string): JsonObject {
  if (text.trim() === '') return {}
  try {
    const value = JSON.parse(text) as unknown
    return isObject(value) ? value : { value: value as Json }
  } catch {
    return { unparsed: text }
  }
}

/** One SSE frame as written (an `event:` line when a type is given). */
export function frame(data: string, type?: string): string {
  return type === undefined ? `data: ${data}\n\n` : `event: ${type}\ndata: ${data}\n\n`
}
