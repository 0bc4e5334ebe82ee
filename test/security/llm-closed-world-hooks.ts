// The hooks the closed-world attack tests run `warden llm` with, as Markdown hook files:
// tool.pre denies `rm -rf`, user.message denies "forbidden", agent.response redacts SECRET,
// tool.post redacts SECRET in a tool result.

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The secret the hooks redact. */
export const SECRET = 'sk-live-0123456789abcdef'

function hook(dir: string, name: string, event: string, body: string[]): void {
  const script = body.map((line) => `  ${line}`)
  writeFileSync(
    join(dir, `${name}.md`),
    ['---', `event: ${event}`, 'script: |', ...script, '---', ''].join('\n'),
  )
}

/** Writes the hook files into `dir/hooks` and returns that folder. */
export function writeClosedWorldHooks(dir: string): string {
  const hooks = join(dir, 'hooks')
  mkdirSync(hooks, { recursive: true })
  hook(hooks, 'no-rm-rf', 'tool.pre', [
    'def handle(event, payload):',
    '    if "rm -rf" in str(payload["args"]):',
    '        return block("rm -rf is never allowed")',
    '    return allow()',
  ])
  hook(hooks, 'no-forbidden', 'user.message', [
    'def handle(event, payload):',
    '    if "forbidden" in payload["message"]["text"]:',
    '        return block("that topic is off limits")',
    '    return allow()',
  ])
  hook(hooks, 'redact-answer', 'agent.response', [
    `SECRET = "${SECRET}"`,
    'def handle(event, payload):',
    '    text = payload["message"]["text"]',
    '    if SECRET in text:',
    '        return modify({"message": {"role": "agent", "text": text.replace(SECRET, "[REDACTED]")}})',
    '    return allow()',
  ])
  hook(hooks, 'redact-result', 'tool.post', [
    `SECRET = "${SECRET}"`,
    'def handle(event, payload):',
    '    if SECRET in str(payload["result"]) or SECRET in str(payload["error"]):',
    '        return modify({"result": "[REDACTED]"})',
    '    return allow()',
  ])
  return hooks
}
