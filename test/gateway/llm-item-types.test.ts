// The Chat Completions and Anthropic Messages closed worlds against the official SDKs' own
// type definitions: every role, content block or part, tool, tool-call, stream event and
// delta type the SDK declares (beta unions included) is mapped or refused unless let
// through, so a new SDK version adding a type fails here until it is listed. Hooks see the
// mapped shapes; let-throughs reach the decision records; the docs list the tables.

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { DecisionRecord, HookCall, JsonObject } from '../../src/core/index.js'
import {
  ANTHROPIC_CONTENT,
  ANTHROPIC_DELTAS,
  ANTHROPIC_EVENTS,
  ANTHROPIC_MCP_SERVERS,
  ANTHROPIC_OUTPUT,
  ANTHROPIC_ROLES,
  ANTHROPIC_TABLES,
  ANTHROPIC_TOOLS,
  anthropicApi,
  CHAT_PARTS,
  CHAT_ROLES,
  CHAT_TABLES,
  CHAT_TOOL_CALLS,
  CHAT_TOOLS,
  CHAT_USER_PARTS,
  chatApi,
  LlmChecks,
  type LlmItemTable,
  llmLetThroughRecorder,
  llmUnknownTypes,
  renderTypeTables,
} from '../../src/gateway/index.js'
import { createEngine } from '../../src/index.js'
import { sdkTypeLiterals } from './sdk-types.js'

const CHAT = 'openai/resources/chat/completions/completions'
const MESSAGES = '@anthropic-ai/sdk/resources/messages/messages'
const BETA = '@anthropic-ai/sdk/resources/beta/messages/messages'

const CORPUS: Array<[LlmItemTable, string, string, string?]> = [
  [CHAT_ROLES, CHAT, 'ChatCompletionMessageParam', 'role'],
  [CHAT_USER_PARTS, CHAT, 'ChatCompletionContentPart'],
  [CHAT_PARTS, CHAT, 'ChatCompletionContentPartText'],
  [CHAT_PARTS, CHAT, 'ChatCompletionContentPartRefusal'],
  [CHAT_TOOLS, CHAT, 'ChatCompletionTool'],
  [CHAT_TOOL_CALLS, CHAT, 'ChatCompletionMessageToolCall'],
  [ANTHROPIC_ROLES, MESSAGES, 'MessageParam', 'role'],
  [ANTHROPIC_CONTENT, MESSAGES, 'ContentBlockParam'],
  [ANTHROPIC_CONTENT, BETA, 'BetaContentBlockParam'],
  [ANTHROPIC_OUTPUT, MESSAGES, 'ContentBlock'],
  [ANTHROPIC_OUTPUT, BETA, 'BetaContentBlock'],
  [ANTHROPIC_TOOLS, MESSAGES, 'ToolUnion'],
  [ANTHROPIC_TOOLS, BETA, 'BetaToolUnion'],
  [ANTHROPIC_EVENTS, MESSAGES, 'RawMessageStreamEvent'],
  [ANTHROPIC_EVENTS, BETA, 'BetaRawMessageStreamEvent'],
  [ANTHROPIC_DELTAS, MESSAGES, 'RawContentBlockDelta'],
  [ANTHROPIC_DELTAS, BETA, 'BetaRawContentBlockDelta'],
  [ANTHROPIC_MCP_SERVERS, BETA, 'BetaRequestMCPServerURLDefinition'],
]

const known = (table: LlmItemTable, type: string) =>
  Object.hasOwn(table.rules, type) || Object.hasOwn(table.unlessLetThrough ?? {}, type)

describe('the Chat Completions and Anthropic Messages item tables', () => {
  it.each(CORPUS.map(([t, m, ty, d]) => [t.key, ty, t, m, ty, d] as const))(
    '%s: maps or refuses every type of %s',
    (_key, _name, table, module, type, discriminant) => {
      const declared = sdkTypeLiterals({ module, type, ...(discriminant ? { discriminant } : {}) })
      expect(declared.filter((t) => !known(table, t))).toEqual([])
    },
  )

  it('refuses by default what it lists as refused unless let through, and lets a named type through', () => {
    const body = {
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'web_search_20250305', name: 'w' }],
    }
    expect(anthropicApi.readRequest(structuredClone(body)).refusal?.message).toContain(
      'anthropic.messages/tool/web_search_20250305',
    )
    const seen: string[] = []
    const policy = llmUnknownTypes(['anthropic.messages/tool/web_search_20250305'], (key) => seen.push(key))
    const view = anthropicApi.readRequest(structuredClone(body), policy)
    expect(view.refusal).toBeUndefined()
    expect(view.letThrough).toEqual(['anthropic.messages/tool/web_search_20250305'])
    expect(seen).toEqual(['anthropic.messages/tool/web_search_20250305'])
    expect(() => llmUnknownTypes(['openai.chat/nowhere/x'])).toThrow(/not protocol\/place\/type/)
  })

  it('shows hooks every user text, document, search result and tool result, once per distinct text', async () => {
    const seen: string[] = []
    const record = ({ event }: HookCall) => {
      const payload = event.payload as JsonObject
      seen.push(`${event.event}:${JSON.stringify(payload.message ?? (payload.tool as JsonObject).output)}`)
      return undefined
    }
    const engine = createEngine({
      hooks: [
        { name: 'u', event: 'user.message', handler: { type: 'fn', fn: record } },
        { name: 't', event: 'tool.post', handler: { type: 'fn', fn: record } },
      ],
    })
    const checks = new LlmChecks(engine, { checkEveryChars: 128, holdBackChars: 64 })
    const scope = { context: {} }
    const anthropic = await checks.request(
      anthropicApi,
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'one' },
              { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'doc' } },
            ],
          },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'read', input: {} }] },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'a', content: 'out' },
              { type: 'search_result', source: 's', title: 'T', content: [{ type: 'text', text: 'found' }] },
            ],
          },
          { role: 'user', content: 'one' },
        ],
      },
      scope,
    )
    expect(anthropic.ok).toBe(true)
    expect(seen).toEqual([
      'user.message:{"role":"user","text":"one"}',
      'user.message:{"role":"user","text":"doc"}',
      'user.message:{"role":"user","text":"T\\nfound"}',
      'tool.post:"out"',
    ])
    seen.length = 0
    await checks.request(
      chatApi,
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'a' },
              { type: 'text', text: 'b' },
            ],
          },
          { role: 'function', name: 'f', content: 'legacy' },
          { role: 'tool', tool_call_id: 'x', content: 'tool' },
        ],
      },
      scope,
    )
    expect(seen).toEqual([
      'user.message:{"role":"user","text":"a"}',
      'user.message:{"role":"user","text":"b"}',
      'user.message:{"role":"user","text":"ab"}',
      'tool.post:"legacy"',
      'tool.post:"tool"',
    ])
    await engine.close()
  })

  it('puts the let-through keys in the decision records as reason codes', async () => {
    const records: DecisionRecord[] = []
    const engine = createEngine({ recorder: llmLetThroughRecorder({ record: (r) => void records.push(r) }) })
    const policy = llmUnknownTypes(['openai.chat/answer-field/reasoning_content'])
    const checks = new LlmChecks(engine, { checkEveryChars: 128, holdBackChars: 64 }, policy)
    const answer = {
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'hi', reasoning_content: 'why' },
          finish_reason: 'stop',
        },
      ],
    }
    expect((await checks.answer(chatApi, answer, { context: {} })).ok).toBe(true)
    await engine.drain()
    const post = records.find((r) => r.event.event === 'model.post')
    expect(post?.decision.reasonCode).toEqual([
      'unknown-type-let-through',
      'unknown-type-let-through:openai.chat/answer-field/reasoning_content',
    ])
    await engine.close()
  })

  it('documents every table as it is', () => {
    const doc = readFileSync(new URL('../../docs/llm-gateway.md', import.meta.url), 'utf8')
    for (const [name, tables] of [
      ['openai.chat', CHAT_TABLES],
      ['anthropic.messages', ANTHROPIC_TABLES],
    ] as const) {
      const start = `<!-- item-types:${name} -->\n`
      const section = doc.slice(
        doc.indexOf(start) + start.length,
        doc.indexOf(`<!-- /item-types:${name} -->`),
      )
      expect(section.trim()).toBe(renderTypeTables(tables))
    }
  })
})
