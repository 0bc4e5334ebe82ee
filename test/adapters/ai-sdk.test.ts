// The AI SDK adapter with the real `ai` loop and `@ai-sdk/openai` against a scripted local
// Chat Completions server: tools really run (or never do), streamed text is checked before
// it is released, and the test reads what the model was told next.

import { createOpenAI } from '@ai-sdk/openai'
import { generateText, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { guardTools, wardenMiddleware } from '../../src/adapters/ai-sdk/index.js'
import { createEngine } from '../../src/index.js'
import { type OpenAiServer, type ScriptedTurn, startOpenAiServer } from './servers/openai.js'

let server: OpenAiServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function model(script: ScriptedTurn[]) {
  server = await startOpenAiServer(script)
  return createOpenAI({ baseURL: server.url, apiKey: 'sk-test' }).chat('gpt-test')
}

function shellTool(ran: string[]) {
  return {
    shell: tool({
      description: 'run a shell command',
      inputSchema: z.object({ cmd: z.string() }),
      execute: async ({ cmd }) => {
        ran.push(cmd)
        return `ran ${cmd}`
      },
    }),
  }
}

const toolMessages = (s: OpenAiServer, i: number) =>
  JSON.stringify(
    ((s.requests[i]?.body.messages ?? []) as { role: string }[]).filter((m) => m.role === 'tool'),
  )

describe('AI SDK adapter: guardTools', () => {
  it('denies a tool call: execute never runs and the model is told the reason', async () => {
    const m = await model([{ tool: { name: 'shell', input: { cmd: 'rm -rf /' } } }, { text: 'Understood.' }])
    const engine = createEngine({
      hooks: [
        {
          name: 'no-rm',
          event: 'tool.pre',
          if: "tool_input.cmd.contains('rm')",
          handler: { type: 'deny', reason: 'rm is not allowed' },
        },
      ],
    })
    const ran: string[] = []
    const result = await generateText({
      model: m,
      prompt: 'clean up',
      tools: guardTools(shellTool(ran), engine),
      stopWhen: stepCountIs(3),
    })
    expect(ran).toEqual([])
    expect(toolMessages(server as OpenAiServer, 1)).toContain('rm is not allowed')
    expect(result.text).toBe('Understood.')
  })

  it('rewrites the input the tool gets and the output the model sees', async () => {
    const m = await model([{ tool: { name: 'shell', input: { cmd: 'deploy prod' } } }, { text: 'ok' }])
    const engine = createEngine({
      hooks: [
        {
          name: 'staging',
          event: 'tool.pre',
          handler: {
            type: 'fn',
            fn: () => ({ decision: 'modify', updatedInput: { cmd: 'deploy staging' } }),
          },
        },
        {
          name: 'redact',
          event: 'tool.post',
          handler: { type: 'fn', fn: () => ({ decision: 'modify', updatedToolOutput: 'output hidden' }) },
        },
      ],
    })
    const ran: string[] = []
    await generateText({
      model: m,
      prompt: 'deploy',
      tools: guardTools(shellTool(ran), engine),
      stopWhen: stepCountIs(3),
    })
    expect(ran).toEqual(['deploy staging'])
    const told = toolMessages(server as OpenAiServer, 1)
    expect(told).toContain('output hidden')
    expect(told).not.toContain('ran deploy')
  })

  it('fails closed when the remote Warden is unreachable', async () => {
    const m = await model([{ tool: { name: 'shell', input: { cmd: 'ls' } } }, { text: 'ok' }])
    const ran: string[] = []
    await generateText({
      model: m,
      prompt: 'list',
      tools: guardTools(shellTool(ran), 'http://127.0.0.1:9/aos'),
      stopWhen: stepCountIs(3),
    })
    expect(ran).toEqual([])
    expect(toolMessages(server as OpenAiServer, 1)).toMatch(/could not be reached/)
  })
})

describe('AI SDK adapter: middleware', () => {
  it('blocks the prompt before the model is called', async () => {
    const m = await model([{ text: 'never' }])
    const engine = createEngine({
      hooks: [
        { name: 'no-pii', event: 'user.message', handler: { type: 'deny', reason: 'no personal data' } },
      ],
    })
    await expect(
      generateText({
        model: wrapLanguageModel({ model: m, middleware: wardenMiddleware(engine) }),
        prompt: 'my SSN is 123',
      }),
    ).rejects.toThrow('Warden blocked the prompt: no personal data')
    expect(server?.requests).toHaveLength(0)
  })

  it('adds hook context to the model call as a system reminder', async () => {
    const m = await model([{ text: 'fine' }])
    const engine = createEngine({
      hooks: [
        {
          name: 'rules',
          event: 'model.pre',
          handler: { type: 'fn', fn: () => ({ decision: 'allow', additionalContext: 'Answer in French.' }) },
        },
      ],
    })
    await generateText({
      model: wrapLanguageModel({ model: m, middleware: wardenMiddleware(engine) }),
      prompt: 'hi',
    })
    expect(JSON.stringify(server?.requests[0]?.body.messages)).toContain(
      '<system-reminder>\\nAnswer in French.\\n</system-reminder>',
    )
  })

  it('rewrites a generated tool call before the SDK runs it', async () => {
    const m = await model([{ tool: { name: 'shell', input: { cmd: 'cat /etc/shadow' } } }, { text: 'ok' }])
    const engine = createEngine({
      hooks: [
        {
          name: 'safe-cat',
          event: 'tool.pre',
          handler: { type: 'fn', fn: () => ({ decision: 'modify', updatedInput: { cmd: 'cat README.md' } }) },
        },
      ],
    })
    const ran: string[] = []
    await generateText({
      model: wrapLanguageModel({ model: m, middleware: wardenMiddleware(engine) }),
      prompt: 'x',
      tools: shellTool(ran),
      stopWhen: stepCountIs(3),
    })
    expect(ran).toEqual(['cat README.md'])
  })

  it('cuts a stream whose text is denied, before the denied text is released', async () => {
    const m = await model([{ text: 'Sure, the key is sk-live-123456 and more text follows here.' }])
    const engine = createEngine({
      hooks: [
        {
          name: 'no-keys',
          event: 'agent.response',
          if: "message.text.contains('sk-live')",
          handler: { type: 'deny', reason: 'secrets may not be sent' },
        },
      ],
    })
    const errors: unknown[] = []
    const result = streamText({
      model: wrapLanguageModel({
        model: m,
        middleware: wardenMiddleware(engine, { checkEveryChars: 10, holdBackChars: 0 }),
      }),
      prompt: 'key?',
      onError: ({ error }) => {
        errors.push(error)
      },
    })
    let text = ''
    for await (const delta of result.textStream) text += delta
    expect(text).not.toContain('sk-live')
    expect(text.length).toBeGreaterThan(0)
    expect(String(errors[0])).toContain('secrets may not be sent')
  })

  it('streams unchanged when no hook applies', async () => {
    const m = await model([{ text: 'Hello there, nothing to see.' }])
    const result = streamText({
      model: wrapLanguageModel({ model: m, middleware: wardenMiddleware(createEngine()) }),
      prompt: 'hi',
    })
    let text = ''
    for await (const delta of result.textStream) text += delta
    expect(text).toBe('Hello there, nothing to see.')
  })
})
