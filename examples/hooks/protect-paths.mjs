#!/usr/bin/env node
// A command hook in Node: keeps file writes inside the workspace and redacts secrets.
// Reads the event on stdin and answers with Claude Code hook JSON on stdout.
import { stdin } from 'node:process'

let text = ''
for await (const chunk of stdin) text += chunk
const event = JSON.parse(text)
const input = event.tool_input ?? {}
const path = typeof input.path === 'string' ? input.path : ''

function answer(output) {
  process.stdout.write(
    JSON.stringify({ hookSpecificOutput: { hookEventName: event.hook_event_name, ...output } }),
  )
}

if (path.startsWith('/etc/') || path.startsWith('/srv/prod')) {
  answer({ permissionDecision: 'deny', permissionDecisionReason: `writes to ${path} are not allowed` })
} else if (typeof input.content === 'string' && /AKIA[0-9A-Z]{16}/.test(input.content)) {
  const content = input.content.replace(/AKIA[0-9A-Z]{16}/g, '[REDACTED AWS KEY]')
  answer({
    permissionDecision: 'allow',
    updatedInput: { ...input, content },
    additionalContext: 'an AWS access key was redacted from the file content',
  })
} else {
  answer({ permissionDecision: 'allow' })
}
