// The hooks the model-API gateway tests share: one per event and decision — a denied
// user message, a tool hidden from the offered list, a redacted tool result, a denied and
// a rewritten tool call, a redacted and a denied answer.

import { deny, type HookCall, type HookDefinition, type JsonObject, modify } from '../../src/core/index.js'

const SECRET = /sk-[A-Za-z0-9]{8,}/g

/** The hooks every gateway test uses: one per event and decision. */
export const LLM_HOOKS: HookDefinition[] = [
  {
    name: 'no-forbidden-prompts',
    event: 'user.message',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) =>
        String((event.payload.message as JsonObject).text).includes('forbidden')
          ? deny('that topic is off limits')
          : undefined,
    },
  },
  {
    name: 'hide-dangerous-tool',
    event: 'model.pre',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        const model = event.payload.model as JsonObject
        const tools = (model.tools as JsonObject[]) ?? []
        const kept = tools.filter((t) => JSON.stringify(t).indexOf('dangerous') < 0)
        return kept.length === tools.length ? undefined : modify({ model: { ...model, tools: kept } })
      },
    },
  },
  {
    name: 'redact-tool-output',
    event: 'tool.post',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        const tool = event.payload.tool as JsonObject
        const text = JSON.stringify(tool.output)
        return text.includes('password=')
          ? modify({ tool: { ...tool, output: 'password=[REDACTED]' } })
          : undefined
      },
    },
  },
  {
    name: 'no-rm-rf',
    event: 'tool.pre',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        const tool = event.payload.tool as JsonObject
        const command = String((tool.input as JsonObject).command ?? '')
        if (command.includes('rm -rf')) return deny('rm -rf is never allowed')
        if (command.includes('original'))
          return modify({ tool: { ...tool, input: { command: command.replace('original', 'rewritten') } } })
        return undefined
      },
    },
  },
  {
    name: 'redact-keys',
    event: 'agent.response',
    handler: {
      type: 'fn',
      fn: ({ event }: HookCall) => {
        const message = event.payload.message as JsonObject
        const text = String(message.text)
        if (text.includes('TOP SECRET')) return deny('the answer discloses a secret')
        return SECRET.test(text)
          ? modify({ message: { ...message, text: text.replace(SECRET, '[REDACTED]') } })
          : undefined
      },
    },
  },
]
