// Warden in the Claude Agent SDK: its hooks and canUseTool answer from a Warden engine.
// Run: ANTHROPIC_API_KEY=... npx tsx examples/adapters/claude-agent-sdk.ts
// (ANTHROPIC_BASE_URL may point at any server speaking the Messages API.)
// Bash is deliberately not in `allowedTools`: a tool listed there is allowed without asking,
// so `canUseTool` (and the approval prompt below) would never run for it.

import { query } from '@anthropic-ai/claude-agent-sdk'
import { createEngine } from 'warden'
import { wardenCanUseTool, wardenHooks } from 'warden/adapters/claude-agent-sdk'

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
      name: 'approve-pushes',
      event: 'PreToolUse',
      matcher: '^Bash$',
      if: "tool_input.command.startsWith('git push')",
      handler: { type: 'ask', reason: 'pushing needs a person to approve it' },
    },
    {
      name: 'house-rules',
      event: 'UserPromptSubmit',
      handler: { type: 'fn', fn: () => ({ decision: 'allow', additionalContext: 'Never delete files.' }) },
    },
  ],
})

const run = query({
  prompt: process.argv[2] ?? 'Remove the build folder with rm -rf build, then git push',
  options: {
    hooks: wardenHooks(engine),
    canUseTool: wardenCanUseTool(engine, {
      onAsk: ({ reason }) => {
        console.log(`approve? ${reason} (answering no)`)
        return false
      },
    }),
    maxTurns: 6,
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
