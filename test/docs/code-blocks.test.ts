// Every code block a user would paste from the README or docs/ is checked against the code:
// a block that shows a repository file must equal it; YAML is loaded as warden.yaml (a lone
// hook definition as one of its hooks) and its hooks registered, or, with `cases:`, read as a
// policy test file of `warden test`; Markdown hook files and
// Claude Code settings load without problems; JSON parses; every `warden` command line
// names a real subcommand and only flags that command's --help lists; TypeScript compiles
// against the package's own sources. Blocks tagged `text` (or with no language) are output
// and are not checked.

import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/cli/index.js'
import { readTestFile } from '../../src/cli/test-files.js'
import { parseHookFile } from '../../src/sources/hook-files-parse.js'
import { buildEngine, parseClaudeSettings, parseConfig } from '../../src/sources/index.js'
import { ROOT } from '../helpers/cli.js'
import { type CodeBlock, codeBlocks, commandParts, docPages, wardenCommands } from './blocks.js'

const blocks: CodeBlock[] = docPages().flatMap(codeBlocks)
const byLanguage = (...languages: string[]) => blocks.filter((b) => languages.includes(b.language))
const cases = (list: CodeBlock[]) => list.map((b) => [b.where, b] as const)

/** Registers a config's hooks in a real engine: handler configs and CEL are checked. */
async function registers(text: string, label: string): Promise<void> {
  const config = parseConfig(text, join(ROOT, 'examples'), label)
  const engine = buildEngine(config, { env: {} })
  await engine.close()
}

async function helpOf(subcommand: string): Promise<{ code: number; text: string }> {
  let text = ''
  const io = {
    stdout: (t: string) => {
      text += t
    },
    stderr: (t: string) => {
      text += t
    },
    readStdin: async () => '',
    cwd: ROOT,
    env: {},
  }
  const code = await main([subcommand, '--help'], io)
  return { code, text }
}

describe('the docs: code blocks', () => {
  it('found the pages and their blocks', () => {
    expect(docPages()).toContain('docs/hooks.md')
    expect(blocks.length).toBeGreaterThan(40)
  })

  it.each(cases(blocks.filter((b) => b.file)))('%s shows the file it names', (_, block) => {
    const file = readFileSync(join(ROOT, block.file ?? ''), 'utf8')
    expect(block.text.trimEnd()).toBe(file.trimEnd())
  })

  const policyTests = (b: CodeBlock) => /^cases:/m.test(b.text)
  it.each(cases(byLanguage('yaml', 'yml').filter(policyTests)))(
    '%s reads as a policy test file',
    async (where, block) => {
      const dir = await mkdtemp(join(tmpdir(), 'warden-doc-tests-'))
      try {
        await writeFile(join(dir, 'doc.test.yaml'), block.text)
        const file = await readTestFile(join(dir, 'doc.test.yaml'), where)
        expect(file.problems).toEqual([])
        expect(file.cases.length).toBeGreaterThan(0)
      } finally {
        await rm(dir, { recursive: true, force: true })
      }
    },
  )

  it.each(cases(byLanguage('yaml', 'yml').filter((b) => !policyTests(b))))(
    '%s loads as warden.yaml',
    async (where, block) => {
      const hookOnly =
        /^name:/m.test(block.text) && /^handler:/m.test(block.text) && !/^hooks:/m.test(block.text)
      const hookList = /^- name:/.test(block.text)
      const text = hookOnly
        ? `hooks:\n${block.text.replace(/^/gm, '    ').replace(/^ {4}/, '  - ')}`
        : hookList
          ? `hooks:\n${block.text.replace(/^/gm, '  ')}`
          : block.text
      await registers(text, where)
    },
  )

  it.each(cases(byLanguage('markdown', 'md')))('%s loads as a hook file', async (where, block) => {
    const parsed = parseHookFile(block.text, 'doc-example.md')
    expect(parsed.problems, where).toEqual([])
    const engine = buildEngine(undefined, { extraHooks: parsed.hook ? [parsed.hook] : [], env: {} })
    expect(engine.hooks().map((h) => h.id)).toEqual(['doc-example'])
    await engine.close()
  })

  it.each(cases(byLanguage('json', 'jsonc')))('%s is JSON a user can paste', (where, block) => {
    const data = JSON.parse(block.text) as Record<string, unknown>
    if (data && typeof data === 'object' && 'hooks' in data && !Array.isArray(data.hooks)) {
      const report = parseClaudeSettings(block.text, join(ROOT, '.claude/settings.json'))
      expect(report.problems, where).toEqual([])
    }
  })

  const commands = byLanguage('sh', 'bash', 'shell', 'console').flatMap((b) =>
    wardenCommands(b.text).map((command) => [`${b.where}: warden ${command}`, command] as const),
  )
  it.each(commands)('%s names a real command and real flags', async (_, command) => {
    const { subcommand, flags } = commandParts(command)
    const help = await helpOf(subcommand)
    expect(help.code, help.text).toBe(0)
    for (const flag of flags) expect(help.text, `${subcommand} --help lists ${flag}`).toContain(flag)
  })
})

describe('the docs: links', () => {
  it.each(docPages())('%s links only to files that exist', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8').replace(/```[\s\S]*?```/g, '')
    const base = dirname(join(ROOT, page))
    const broken = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => (m[1] ?? '').replace(/#.*$/, ''))
      .filter((target) => target !== '' && !/^[a-z]+:/.test(target))
      .filter((target) => !existsSync(join(base, target)))
    expect(broken).toEqual([])
  })
})

describe('the docs: TypeScript', () => {
  it('every TypeScript block compiles against the package', async () => {
    const typescript = byLanguage('ts', 'typescript')
    expect(typescript.length).toBeGreaterThan(0)
    const dir = await mkdtemp(join(tmpdir(), 'warden-doc-ts-'))
    try {
      const files: string[] = []
      for (const [i, block] of typescript.entries()) {
        const file = join(dir, `block-${i}.mts`)
        await writeFile(file, `// ${block.where}\n${block.text}\nexport {}\n`)
        files.push(file)
      }
      const program = ts.createProgram(files, {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules/@types')],
        baseUrl: ROOT,
        paths: { warden: ['src/index.ts'], 'warden/*': ['src/*/index.ts'] },
      })
      const problems = ts
        .getPreEmitDiagnostics(program)
        .filter((d) => d.file && files.includes(d.file.fileName))
        .map((d) => {
          const where = d.file?.text.split('\n')[0]?.slice(3) ?? ''
          const line =
            d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : 0
          return `${where} (+${line - 1}): ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`
        })
      expect(problems).toEqual([])
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
