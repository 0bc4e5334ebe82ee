// The shape corpus of `warden mcp`: every method, notification, content block type, role and
// elicitation field type the official MCP SDK's types declare is in the gateway's tables
// (checked as a catalog event, inert, or refused), and nothing else is; a type the tables do
// not list is refused. docs/mcp-gateway.md lists the tables as generated here (run with
// UPDATE_DOCS=1 to rewrite that section after changing a table).

import { readFileSync, writeFileSync } from 'node:fs'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { describe, expect, it } from 'vitest'
import { lookupEventName } from '../../src/core/index.js'
import {
  classifyItem,
  type ItemTable,
  MCP_CLIENT_NOTIFICATIONS,
  MCP_CLIENT_REQUESTS,
  MCP_ELICITATION_FIELDS,
  MCP_MESSAGE_ROLES,
  MCP_PROMPT_CONTENT,
  MCP_RESOURCE_CONTENTS,
  MCP_SAMPLING_CONTENT,
  MCP_SERVER_NOTIFICATIONS,
  MCP_SERVER_REQUESTS,
  MCP_TABLES,
  MCP_TOOL_CONTENT,
  tableEntries,
} from '../../src/gateway/index.js'
import { scanAnswer, scanRequest } from '../../src/gateway/mcp/scan.js'
import { ROOT } from '../helpers/cli.js'
import { sdkTypeLiterals } from './sdk-types.js'

const TYPES = '@modelcontextprotocol/sdk/types.js'
const sdk = (type: string, discriminant = 'type') => sdkTypeLiterals({ module: TYPES, type, discriminant })

/** Each table and the SDK unions whose literals it must list exactly. */
const CORPUS: [ItemTable, () => string[]][] = [
  [MCP_CLIENT_REQUESTS, () => sdk('ClientRequest', 'method')],
  [MCP_SERVER_REQUESTS, () => sdk('ServerRequest', 'method')],
  [MCP_CLIENT_NOTIFICATIONS, () => sdk('ClientNotification', 'method')],
  [MCP_SERVER_NOTIFICATIONS, () => sdk('ServerNotification', 'method')],
  [MCP_TOOL_CONTENT, () => sdk('ContentBlock')],
  [MCP_PROMPT_CONTENT, () => sdk('ContentBlock')],
  [MCP_SAMPLING_CONTENT, () => sdk('SamplingMessageContentBlock')],
  [
    MCP_MESSAGE_ROLES,
    () => [...new Set([...sdk('PromptMessage', 'role'), ...sdk('SamplingMessage', 'role')])].sort(),
  ],
  [MCP_ELICITATION_FIELDS, () => sdk('PrimitiveSchemaDefinition')],
]

describe('the MCP shape corpus', () => {
  it.each(CORPUS.map(([table, literals]) => [table.key, table, literals] as const))(
    'mcp/%s lists exactly the types the SDK declares',
    (_key, table, literals) => {
      expect(Object.keys(table.rules).sort()).toEqual(literals())
    },
  )

  it('maps each checked type to an event of the catalog', () => {
    for (const table of MCP_TABLES)
      for (const { key, rule } of tableEntries(table))
        if (rule.kind === 'checked') expect(lookupEventName(rule.event), key).toBe(rule.event)
  })

  it('lists resource contents as text or blob, the two forms the SDK reads', () => {
    expect(Object.keys(MCP_RESOURCE_CONTENTS.rules).sort()).toEqual(['blob', 'text'])
  })

  it('refuses a type no table lists, naming it and the setting', () => {
    for (const table of MCP_TABLES) {
      const verdict = classifyItem(table, 'x-new-type')
      expect(verdict.kind).toBe('refused')
      if (verdict.kind === 'refused') expect(verdict.reason).toMatch(/"x-new-type".*allowUnknownTypes/)
    }
  })

  it('reads every content block type where it stands in answers and sampling requests', () => {
    const answer = (result: object) => ({ jsonrpc: '2.0', id: 1, result }) as JSONRPCMessage
    for (const type of Object.keys(MCP_TOOL_CONTENT.rules)) {
      expect(
        scanAnswer(answer({ content: [block(type)] }), 'tools/call', 'inbound').refusal,
        type,
      ).toBeUndefined()
      const prompt = { messages: [{ role: 'user', content: block(type) }] }
      expect(scanAnswer(answer(prompt), 'prompts/get', 'inbound').refusal, type).toBeUndefined()
    }
    for (const type of Object.keys(MCP_SAMPLING_CONTENT.rules)) {
      const request = {
        jsonrpc: '2.0',
        id: 1,
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'assistant', content: [block(type)] }], maxTokens: 1 },
      } as JSONRPCMessage
      expect(scanRequest(request, 'sampling/createMessage', 'inbound').refusal, type).toBeUndefined()
    }
    const odd = answer({ content: [block('text'), { type: 'resource', resource: { uri: 'x://y' } }] })
    expect(scanAnswer(odd, 'tools/call', 'inbound').refusal?.key).toBe('mcp/resource-contents/?')
    expect(scanAnswer(answer({ messages: 'x' }), 'prompts/get', 'inbound').refusal?.reason).toBe(
      'messages must be a list (got string)',
    )
  })

  it('docs/mcp-gateway.md lists every table as generated from it', () => {
    const path = `${ROOT}docs/mcp-gateway.md`
    const doc = readFileSync(path, 'utf8')
    const start = doc.indexOf(START)
    const end = doc.indexOf(END)
    expect(start, 'the doc has the generated section').toBeGreaterThan(0)
    const generated = `${START}\n${tablesMarkdown()}${END}`
    if (process.env.UPDATE_DOCS === '1') {
      writeFileSync(path, doc.slice(0, start) + generated + doc.slice(end + END.length))
      return
    }
    expect(doc.slice(start, end + END.length)).toBe(generated)
  })
})

const START = '<!-- generated from the tables of src/gateway/mcp/tables.ts -->'
const END = '<!-- end of generated tables -->'

/** A minimal block of `type`, as the SDK shapes it. */
function block(type: string): object {
  if (type === 'resource') return { type, resource: { uri: 'memo://a', text: 'a' } }
  if (type === 'tool_result') return { type, toolUseId: 't', content: [{ type: 'text', text: 'r' }] }
  return { type }
}

function tablesMarkdown(): string {
  let out = ''
  for (const table of MCP_TABLES) {
    out += `\n**${table.place}** (\`mcp/${table.key}/<type>\`)\n\n| type | what happens |\n|---|---|\n`
    for (const { type, rule } of tableEntries(table)) {
      const what =
        rule.kind === 'checked' ? `checked as \`${rule.event}\`: ${rule.note}` : `${rule.kind}: ${rule.note}`
      out += `| \`${type}\` | ${what} |\n`
    }
  }
  return `${out}\n`
}
