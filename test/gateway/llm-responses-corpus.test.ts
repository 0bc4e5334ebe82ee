// The OpenAI Responses shape corpus, read from the official SDK's type definitions: every
// input item, input content, tool, output item and stream event type the SDK declares is in
// a closed-world table (checked, passed or refused) or listed as refused unless let through,
// so a new SDK version adding a type fails here until it is mapped. Each checked output item
// type shows what hooks see of it; the docs list exactly what the tables say.

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  type ItemTable,
  RESPONSES_INPUT_CONTENT,
  RESPONSES_INPUT_ITEMS,
  RESPONSES_OUTPUT_ITEMS,
  RESPONSES_STREAM_EVENTS,
  RESPONSES_TABLES,
  RESPONSES_TOOLS,
  RESPONSES_UNCHECKED,
  responsesApi,
  tablesMarkdown,
} from '../../src/gateway/index.js'
import { sdkTypeLiterals } from './sdk-types.js'

const MODULE = 'openai/resources/responses/responses'

function unmapped(table: ItemTable, types: string[]): string[] {
  const unchecked = RESPONSES_UNCHECKED[table.key] ?? {}
  return types.filter((type) => !Object.hasOwn(table.rules, type) && !Object.hasOwn(unchecked, type))
}

describe('the OpenAI Responses shape corpus', () => {
  it.each([
    ['ResponseInputItem', RESPONSES_INPUT_ITEMS],
    ['ResponseInputContent', RESPONSES_INPUT_CONTENT],
    ['Tool', RESPONSES_TOOLS],
    ['ResponseOutputItem', RESPONSES_OUTPUT_ITEMS],
    ['ResponseStreamEvent', RESPONSES_STREAM_EVENTS],
  ] as const)('maps or refuses every %s type the SDK declares', (type, table) => {
    const declared = sdkTypeLiterals({ module: MODULE, type })
    expect(declared.length).toBeGreaterThan(2)
    expect(unmapped(table, declared)).toEqual([])
  })

  it('refuses an input message role it does not know', () => {
    const roles = sdkTypeLiterals({ module: MODULE, type: 'ResponseInputItem', discriminant: 'role' })
    expect(roles).toEqual(expect.arrayContaining(['user', 'assistant']))
    const view = responsesApi.readRequest({
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_video' }] }],
    })
    expect(view.refusal?.message).toContain('"input_video"')
  })

  it('shows hooks every checked output item type', () => {
    const items: Record<string, Record<string, unknown>> = {
      message: { content: [{ type: 'output_text', text: 'hi' }] },
      reasoning: { summary: [{ type: 'summary_text', text: 'thinking' }] },
      function_call: { call_id: 'c', name: 'f', arguments: '{"a":1}' },
      custom_tool_call: { call_id: 'c', name: 'exec', input: 'ls' },
      local_shell_call: { call_id: 'c', action: { type: 'exec', command: ['ls', '-l'], env: {} } },
      shell_call: { call_id: 'c', action: { commands: ['ls'] } },
      apply_patch_call: { call_id: 'c', operation: { type: 'create_file', path: 'a', diff: '+x' } },
      computer_call: { call_id: 'c', action: { type: 'click', x: 1, y: 2 } },
      mcp_approval_request: { id: 'a', name: 'read', server_label: 's', arguments: '{}' },
      mcp_call: { id: 'm', name: 'read', server_label: 's', arguments: '{}', output: 'x' },
      code_interpreter_call: { id: 'ci', code: 'print(1)', outputs: [] },
      file_search_call: { id: 'fs', queries: ['q'], results: [] },
      web_search_call: { id: 'ws', action: { type: 'search', query: 'q' } },
      mcp_list_tools: { id: 'l', server_label: 's', tools: [] },
    }
    for (const [type, rule] of Object.entries(RESPONSES_OUTPUT_ITEMS.rules)) {
      if (rule.kind !== 'checked') continue
      const fields = items[type]
      expect(fields, `a fixture for ${type}`).toBeDefined()
      const view = responsesApi.readAnswer({ output: [{ type, ...fields }] })
      expect(view.refusal, type).toBeUndefined()
      const seen =
        rule.event === 'agent.response'
          ? view.texts.length
          : rule.event === 'tool.pre'
            ? view.calls.length
            : (view.results?.length ?? 0)
      expect(seen, `${type} reaches ${rule.event}`).toBeGreaterThan(0)
    }
  })

  it('lists every type in docs/llm-gateway.md exactly as the tables say', () => {
    const doc = readFileSync(new URL('../../docs/llm-gateway.md', import.meta.url), 'utf8')
    const block = /<!-- responses-tables:start -->\n([\s\S]*?)\n<!-- responses-tables:end -->/.exec(doc)?.[1]
    expect(block, 'run `npx tsx scripts/llm-tables-doc.ts`').toBe(
      tablesMarkdown(RESPONSES_TABLES, RESPONSES_UNCHECKED, 'llm.allowUnknownTypes'),
    )
  })
})
