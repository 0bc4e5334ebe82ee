// Warden in the Vercel AI SDK: a middleware that checks prompts and (streamed) answers,
// and guarded tools whose input and output Warden may rewrite or block.
// Run: OPENAI_API_KEY=... npx tsx examples/adapters/ai-sdk.ts
// (OPENAI_BASE_URL may point at any server speaking Chat Completions.)

import { createOpenAI } from '@ai-sdk/openai'
import { stepCountIs, streamText, tool, wrapLanguageModel } from 'ai'
import { createEngine } from 'warden'
import { guardTools, wardenMiddleware } from 'warden/adapters/ai-sdk'
import { z } from 'zod'

const engine = createEngine({
  hooks: [
    {
      name: 'staging-only',
      event: 'tool.pre',
      matcher: '^deploy$',
      handler: { type: 'fn', fn: () => ({ decision: 'modify', updatedInput: { target: 'staging' } }) },
    },
    {
      name: 'no-keys-out',
      event: 'agent.response',
      if: "message.text.contains('sk-live')",
      handler: { type: 'deny', reason: 'API keys may not be sent' },
    },
  ],
})

const openai = createOpenAI(process.env.OPENAI_BASE_URL ? { baseURL: process.env.OPENAI_BASE_URL } : {})
const model = wrapLanguageModel({
  model: openai.chat('gpt-4o-mini'),
  middleware: wardenMiddleware(engine, { checkToolCalls: false }),
})
const tools = guardTools(
  {
    deploy: tool({
      description: 'Deploys the service',
      inputSchema: z.object({ target: z.string() }),
      execute: async ({ target }) => `deployed to ${target}`,
    }),
  },
  engine,
)

const result = streamText({
  model,
  tools,
  stopWhen: stepCountIs(3),
  prompt: process.argv[2] ?? 'Deploy to production',
  onError: ({ error }) => console.log(`stream cut: ${(error as Error).message}`),
})
for await (const text of result.textStream) process.stdout.write(text)
for (const step of await result.steps) {
  for (const output of step.toolResults)
    console.log(`\ntool ${output.toolName}: ${JSON.stringify(output.output)}`)
}
