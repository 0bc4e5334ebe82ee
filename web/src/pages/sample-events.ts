// Sample events for a hook's dry run: a plausible event of the hook's kind whose tool name
// the hook's matcher matches and whose agent its scope lets through.

import type { Hook } from '../types'

type Sample = { payload: Record<string, unknown>; context: Record<string, unknown> }

/** Tool names a sample tries against a matcher that is a real regex. */
const CANDIDATES = [
  'exec',
  'Bash',
  'shell',
  'write_file',
  'Write',
  'Edit',
  'Read',
  'read_file',
  'fetch',
  'deploy',
]

/** A tool name the hook's matcher matches (a plain name or `a|b` list gives its first). */
export function toolNameFor(matcher: string | undefined): string {
  if (!matcher) return 'exec'
  let inner = matcher.replace(/^\^/, '').replace(/\$$/, '')
  if (inner.startsWith('(') && inner.endsWith(')')) inner = inner.slice(1, -1)
  if (/^[\w\-:/]+(\|[\w\-:/]+)*$/.test(inner)) return inner.split('|')[0] as string
  try {
    const insensitive = matcher.startsWith('(?i)')
    const regex = new RegExp(insensitive ? matcher.slice(4) : matcher, insensitive ? 'i' : '')
    return CANDIDATES.find((name) => regex.test(name)) ?? 'exec'
  } catch {
    return 'exec'
  }
}

/** A plausible input for a tool of that name. */
function toolInput(name: string): Record<string, unknown> {
  if (/bash|shell|exec|command|run|terminal/i.test(name)) return { command: 'ls -la' }
  if (/write|edit/i.test(name)) return { path: 'notes/todo.md', content: 'hello' }
  if (/read|file|path/i.test(name)) return { path: 'README.md' }
  if (/fetch|http|url|web|browse/i.test(name)) return { url: 'https://example.com' }
  if (/search|query|find/i.test(name)) return { query: 'warden' }
  if (/deploy/i.test(name)) return { env: 'staging' }
  return {}
}

/** A sample event for the hook's event, one the hook's matcher and scope let through. */
export function sampleEvent(hook: Pick<Hook, 'event' | 'matcher' | 'agents'>): Sample {
  const agent = hook.agents[0] ?? 'agent-1'
  const context = { agent: { id: agent, name: agent }, session: { id: 'session-1' } }
  const name = toolNameFor(hook.matcher)
  const tool = { name, input: toolInput(name) }
  const event = hook.event
  let payload: Record<string, unknown> = {}
  if (event === 'tool.pre') payload = { tool }
  else if (event === 'tool.post') payload = { tool: { ...tool, output: 'ok', isError: false } }
  else if (event === 'user.message') payload = { message: { role: 'user', text: 'Please tidy up my notes.' } }
  else if (event === 'agent.response')
    payload = { message: { role: 'agent', text: 'Done: I tidied up your notes.' } }
  else if (event === 'system.message')
    payload = { message: { role: 'system', text: 'You are a careful assistant.' } }
  else if (event === 'mcp.outbound')
    payload = {
      mcp: {
        direction: 'outbound',
        method: 'tools/call',
        message: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: tool.input } },
      },
      tool,
    }
  else if (event === 'mcp.inbound')
    payload = {
      mcp: {
        direction: 'inbound',
        message: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'ok' }] } },
      },
      tool,
    }
  else if (event === 'model.pre')
    payload = { model: { name: 'example-model', messages: [{ role: 'user', content: 'Hello' }] } }
  else if (event === 'model.post')
    payload = {
      model: {
        name: 'example-model',
        response: { role: 'assistant', content: 'Hi! How can I help?' },
        usage: { inputTokens: 12, outputTokens: 7 },
      },
    }
  return { payload, context }
}

/** The sample event of a hook, as the JSON the Test tab starts with. */
export function sampleText(hook: Hook): string {
  return JSON.stringify(sampleEvent(hook), null, 2)
}
