// Warden in the OpenAI Agents SDK: guardrails on the agent and its tool, a model input
// filter that passes Warden's context to the model, and run hooks reported for audit.
// Run: OPENAI_API_KEY=... npx tsx examples/adapters/openai-agents.ts
// (OPENAI_BASE_URL may point at any server speaking the Responses API.)

import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents'
import { createEngine } from 'warden'
import { wardenGuardrails } from 'warden/adapters/openai-agents'
import { z } from 'zod'

setTracingDisabled(true)
const engine = createEngine({
  hooks: [
    {
      name: 'no-rm',
      event: 'tool.pre',
      if: "tool_input.cmd.contains('rm ')",
      handler: { type: 'deny', reason: 'deleting files is not allowed' },
    },
  ],
})
const warden = wardenGuardrails(engine)

const shell = tool({
  name: 'shell',
  description: 'Runs a shell command',
  parameters: z.object({ cmd: z.string() }),
  execute: async ({ cmd }) => `pretended to run: ${cmd}`,
  inputGuardrails: [warden.toolInputGuardrail],
  outputGuardrails: [warden.toolOutputGuardrail],
})
const agent = new Agent({
  name: 'ops',
  instructions: 'You run shell commands for the user.',
  tools: [shell],
  inputGuardrails: [warden.inputGuardrail],
  outputGuardrails: [warden.outputGuardrail],
})
const runner = new Runner({
  modelProvider: new OpenAIProvider({
    useResponses: true,
    ...(process.env.OPENAI_BASE_URL ? { baseURL: process.env.OPENAI_BASE_URL } : {}),
  }),
  callModelInputFilter: warden.callModelInputFilter,
})
warden.attach(runner)

const result = await runner.run(agent, process.argv[2] ?? 'Delete the logs with rm -rf logs')
console.log(result.finalOutput)
