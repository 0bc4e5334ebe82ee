// The event catalog: canonical names, every alias, blocking flags and suggestions.

import { describe, expect, it } from 'vitest'
import {
  CANONICAL_EVENTS,
  eventInfo,
  isBlockingEvent,
  lookupEventName,
  resolveEventName,
  WardenError,
} from '../../src/core/index.js'

const ALIASES: [string, string][] = [
  ['steps/agentTrigger', 'agent.trigger'],
  ['steps/message#user', 'user.message'],
  ['steps/message#agent', 'agent.response'],
  ['steps/message#system', 'system.message'],
  ['UserPromptSubmit', 'user.message'],
  ['user_prompt_submit', 'user.message'],
  ['user.prompt.submit', 'user.message'],
  ['turn.start', 'user.message'],
  ['turn.end', 'agent.response'],
  ['steps/toolCallRequest', 'tool.pre'],
  ['PreToolUse', 'tool.pre'],
  ['pre_tool_use', 'tool.pre'],
  ['steps/toolCallResult', 'tool.post'],
  ['PostToolUse', 'tool.post'],
  ['post_tool_use', 'tool.post'],
  ['steps/memoryContextRetrieval', 'memory.retrieve'],
  ['steps/memoryStore', 'memory.store'],
  ['steps/knowledgeRetrieval', 'knowledge.retrieve'],
  ['protocols/MCP#outbound', 'mcp.outbound'],
  ['protocols/MCP#inbound', 'mcp.inbound'],
  ['message/send', 'a2a.send'],
  ['message/stream', 'a2a.stream'],
  ['tasks/cancel', 'a2a.cancel'],
  ['tasks/get', 'a2a.get'],
  ['tasks/pushNotificationConfig/get', 'a2a.pushConfig.get'],
  ['tasks/pushNotificationConfig/set', 'a2a.pushConfig.set'],
  ['tasks/resubscribe', 'a2a.resubscribe'],
  ['completion.pre', 'model.pre'],
  ['completion.post', 'model.post'],
  ['SubagentStart', 'subagent.start'],
  ['subagent_start', 'subagent.start'],
  ['delegation.pre', 'subagent.start'],
  ['SubagentStop', 'subagent.stop'],
  ['subagent_stop', 'subagent.stop'],
  ['delegation.post', 'subagent.stop'],
  ['Stop', 'agent.stop'],
  ['stop', 'agent.stop'],
  ['SessionStart', 'session.start'],
  ['session_start', 'session.start'],
  ['SessionEnd', 'session.end'],
  ['StopFailure', 'error'],
]

describe('event catalog', () => {
  it.each(ALIASES)('resolves alias %s to %s', (alias, canonical) => {
    expect(resolveEventName(alias)).toBe(canonical)
  })

  it('lists every alias of every event, and each resolves back to its event', () => {
    let count = 0
    for (const name of CANONICAL_EVENTS) {
      expect(resolveEventName(name)).toBe(name)
      for (const alias of eventInfo(name).aliases) {
        expect(resolveEventName(alias.name)).toBe(name)
        count++
      }
    }
    expect(count).toBeGreaterThanOrEqual(ALIASES.length)
  })

  it('knows which events block', () => {
    expect(isBlockingEvent('tool.pre')).toBe(true)
    expect(isBlockingEvent('agent.stop')).toBe(true)
    for (const name of ['model.post', 'subagent.stop', 'session.start', 'session.end', 'error'] as const) {
      expect(isBlockingEvent(name)).toBe(false)
    }
    expect(isBlockingEvent('custom.deploy')).toBe(true)
    expect(isBlockingEvent('meta.audit')).toBe(true)
  })

  it('accepts custom.* and meta.* names but not the bare prefixes', () => {
    expect(lookupEventName('custom.deploy.requested')).toBe('custom.deploy.requested')
    expect(lookupEventName('meta.x')).toBe('meta.x')
    expect(lookupEventName('custom.')).toBeUndefined()
  })

  it('rejects an unknown name with the closest suggestions', () => {
    expect(() => resolveEventName('PreToolUs')).toThrowError(/unknown event "PreToolUs".*"PreToolUse"/)
    expect(() => resolveEventName('tool.pr')).toThrowError(/"tool.pre"/)
    try {
      resolveEventName('banana')
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(WardenError)
      expect((error as WardenError).code).toBe('unknown-event')
    }
  })
})
