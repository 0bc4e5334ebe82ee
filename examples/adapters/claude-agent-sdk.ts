// Warden in the Claude Agent SDK: its hooks and canUseTool answer from a Warden engine.
// Run: ANTHROPIC_API_KEY=... npx tsx examples/adapters/claude-agent-sdk.ts
// (ANTHROPIC_BASE_URL may point at any server speaking the Messages API.)

import { query } from '@anthropic-ai/claude-agent-sdk'
import { wardenCanUseTool, wardenHooks } from '../../src/adapters/claude-agent-sdk/index.js'
import { createEngine } from '../../src/index.js'

const engine = createEngine({
  hooks: [
    {
      name: 'no-rm-rf',
      event: 'PreToolUse',
      matcher: '^Bash$',
      if: "tool_input.command.contains('rm -rf')",
      handler: { type: 'deny', reason: 'rm -rf is never allowed' },
    },
    {
      name: 'house-rules',
      event: 'UserPromptSubmit',
      handler: { type: 'fn', fn: () => ({ decision: 'allow', additionalContext: 'Never delete files.' }) },
    },
  ],
})

const run = query({
  prompt: process.argv[2] ?? 'Remove the build folder with rm -rf build',
  options: {
    hooks: wardenHooks(engine),
    canUseTool: wardenCanUseTool(engine, {
      onAsk: ({ reason }) => {
        console.log(`approve? ${reason}`)
        return false
      },
    }),
    allowedTools: ['Bash'],
    maxTurns: 4,
  },
})
for await (const message of run) {
  if (message.type === 'result') console.log(message.subtype === 'success' ? message.result : message.subtype)
  if (message.type === 'user' && Array.isArray(message.message.content)) {
    for (const block of message.message.content) {
      if (typeof block === 'object' && block.type === 'tool_result')
        console.log(`tool result: ${JSON.stringify(block.content)}`)
    }
  }
}
