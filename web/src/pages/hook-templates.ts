// Starter templates for common hooks, offered on the new-hook form: each fills the event,
// matcher, condition and handler of the draft, to be adjusted before saving. The
// conditions use the variables of `events.reference` (tool_name, tool_input, message, ...).

import { emptyHandler, type HandlerDraft } from '../components/handler-draft'
import type { Draft } from './hook-draft'

export interface HookTemplate {
  id: string
  label: string
  /** One line on what it does. */
  summary: string
  draft: Partial<Omit<Draft, 'handler'>>
  handler: Partial<HandlerDraft> & { type: string }
}

export const TEMPLATES: HookTemplate[] = [
  {
    id: 'no-destructive-shell',
    label: 'Block destructive shell commands',
    summary: 'Denies rm -rf, mkfs and dd on the shell tools.',
    draft: {
      name: 'no-destructive-shell',
      description: 'Denies destructive shell commands',
      event: 'tool.pre',
      matcher: '^(Bash|exec|shell)$',
      if: "has(tool_input.command) && tool_input.command.matches('rm\\\\s+-rf|mkfs|dd\\\\s+if=')",
    },
    handler: { type: 'deny', reason: 'destructive shell command' },
  },
  {
    id: 'ask-before-deploy',
    label: 'Ask a human before deploys',
    summary: 'Holds deploy tools until someone approves.',
    draft: {
      name: 'ask-before-deploy',
      description: 'A human approves every deploy',
      event: 'tool.pre',
      matcher: '^deploy',
      if: '',
    },
    handler: { type: 'ask', reason: 'deploys need an approval' },
  },
  {
    id: 'no-prod-writes',
    label: 'Protect a folder from writes',
    summary: 'Denies file writes under /srv/prod.',
    draft: {
      name: 'no-prod-writes',
      description: 'No writes under /srv/prod',
      event: 'tool.pre',
      matcher: '^(Write|Edit|write_file)$',
      if: "has(tool_input.path) && tool_input.path.startsWith('/srv/prod')",
    },
    handler: { type: 'deny', reason: 'writes under /srv/prod are not allowed' },
  },
  {
    id: 'no-secrets-in-prompts',
    label: 'Keep keys out of prompts',
    summary: 'Denies a user message that carries an API key.',
    draft: {
      name: 'no-secrets-in-prompts',
      description: 'Stops API keys pasted into prompts',
      event: 'user.message',
      matcher: '',
      if: "message.text.matches('(sk|ghp|AKIA)[A-Za-z0-9_-]{16,}')",
    },
    handler: { type: 'deny', reason: 'the message carries what looks like an API key' },
  },
  {
    id: 'script-policy',
    label: 'A policy in Starlark',
    summary: 'A script that reads the tool call and decides.',
    draft: {
      name: 'shell-policy',
      description: 'Shell commands checked by a script',
      event: 'tool.pre',
      matcher: '^(Bash|exec)$',
      if: '',
    },
    handler: {
      type: 'script',
      source: `def handle(event, payload):
    command = payload["args"].get("command", "")
    if "curl" in command and "| sh" in command:
        return block("piping a download into a shell")
    return allow()
`,
    },
  },
]

/** A draft with a template applied (the tenant and enabled state are kept). */
export function applyTemplate(draft: Draft, template: HookTemplate): Draft {
  return {
    ...draft,
    ...template.draft,
    handler: { ...emptyHandler(template.handler.type), ...template.handler },
  }
}
