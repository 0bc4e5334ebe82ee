// Rewrites the OpenAI Responses tables in docs/llm-gateway.md (between its
// `responses-tables` markers) from the gateway's closed-world tables: `tsx scripts/llm-tables-doc.ts`.

import { readFileSync, writeFileSync } from 'node:fs'
import { RESPONSES_TABLES, RESPONSES_UNCHECKED, tablesMarkdown } from '../src/gateway/index.js'

const file = new URL('../docs/llm-gateway.md', import.meta.url)
const START = '<!-- responses-tables:start -->'
const END = '<!-- responses-tables:end -->'
const doc = readFileSync(file, 'utf8')
const from = doc.indexOf(START)
const to = doc.indexOf(END)
if (from < 0 || to < from) throw new Error(`docs/llm-gateway.md has no ${START} … ${END} block`)
const block = tablesMarkdown(RESPONSES_TABLES, RESPONSES_UNCHECKED, 'llm.allowUnknownTypes')
writeFileSync(file, `${doc.slice(0, from + START.length)}\n${block}\n${doc.slice(to)}`)
