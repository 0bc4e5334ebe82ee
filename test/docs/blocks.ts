// Reads the fenced code blocks out of the README and the pages in docs/, with the language
// of each block, where it is, and the file it claims to show (a `<!-- file: PATH -->`
// comment on the line before the fence).

import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../helpers/cli.js'

/** One fenced code block of a Markdown page. */
export interface CodeBlock {
  /** The page, relative to the repository root, and the fence's line (1-based). */
  where: string
  page: string
  language: string
  text: string
  /** The repository file the block shows, when the page says so. */
  file?: string
}

/** The Markdown pages users read: the README and every page in docs/. */
export function docPages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`)
  return ['README.md', ...docs]
}

/** The fenced code blocks of one page, in order. */
export function codeBlocks(page: string): CodeBlock[] {
  const lines = readFileSync(join(ROOT, page), 'utf8').split('\n')
  const blocks: CodeBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(.*)$/.exec(lines[i] ?? '')
    if (!open) continue
    const fence = open[1] ?? '```'
    const language = (open[2] ?? '').trim().split(/\s+/)[0] ?? ''
    const marker = /^<!--\s*file:\s*(\S+)\s*-->$/.exec((lines[i - 1] ?? '').trim())
    const body: string[] = []
    let j = i + 1
    while (j < lines.length && !(lines[j] ?? '').startsWith(fence)) body.push(lines[j++] ?? '')
    const block: CodeBlock = { where: `${page}:${i + 1}`, page, language, text: body.join('\n') }
    if (marker?.[1]) block.file = marker[1]
    blocks.push(block)
    i = j
  }
  return blocks
}

/** The `warden` command lines of a shell block: comments dropped, continuations joined. */
export function wardenCommands(text: string): string[] {
  const joined = text.replace(/\\\n\s*/g, ' ')
  const commands: string[] = []
  for (const raw of joined.split('\n')) {
    const line = raw.replace(/\s+#\s.*$/, '').trim()
    const match = /^(?:npx\s+)?warden\s+(.*)$/.exec(line)
    if (match?.[1] !== undefined) commands.push(match[1])
  }
  return commands
}

/** The long flags (`--name`) of a command line, and its first word (the subcommand). */
export function commandParts(command: string): { subcommand: string; flags: string[] } {
  const words = command.split(/\s+/)
  const end = words.indexOf('--')
  const own = end === -1 ? words : words.slice(0, end)
  const flags = own.filter((w) => /^--[a-z]/.test(w)).map((w) => w.replace(/=.*$/, ''))
  return { subcommand: words[0] ?? '', flags }
}
