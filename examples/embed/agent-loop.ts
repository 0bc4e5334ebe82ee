// Embedding Warden in an agent loop: every tool call goes through `engine.dispatch`
// first; denials and rewrites are fed back to the model as reminders.
// Run: npx tsx examples/embed/agent-loop.ts

import { allow, createEngine, deny, type HookCall, renderReminders, withToolInput } from 'warden'

const engine = createEngine({
  hooks: [
    {
      name: 'no-prod-writes',
      event: 'tool.pre',
      matcher: '^(write_file|exec)$',
      if: "has(tool_input.path) && tool_input.path.startsWith('/srv/prod')",
      handler: { type: 'fn', fn: () => deny('writes to /srv/prod are not allowed; use /srv/staging') },
    },
    {
      name: 'dry-run-deploys',
      event: 'tool.pre',
      matcher: 'deploy',
      priority: 5,
      handler: {
        type: 'fn',
        fn: ({ event }: HookCall) => ({
          type: 'modify',
          payload: withToolInput(event.payload, {
            ...(event.payload.tool as { input: object }).input,
            dryRun: true,
          }),
        }),
      },
    },
    {
      name: 'log-calls',
      event: 'tool.post',
      handler: {
        type: 'fn',
        fn: ({ event }: HookCall) =>
          allow(undefined, {
            additionalContext: [`tool ${(event.payload.tool as { name: string }).name} finished`],
          }),
      },
    },
  ],
})

const plannedCalls = [
  { name: 'write_file', input: { path: '/srv/prod/config.yaml', content: 'debug: true' } },
  { name: 'deploy', input: { service: 'api' } },
  { name: 'read_file', input: { path: 'README.md' } },
]

for (const call of plannedCalls) {
  const decision = await engine.dispatch({
    event: 'tool.pre',
    payload: { tool: call },
    context: { session: { id: 'demo' } },
  })
  if (decision.decision === 'deny') {
    console.log(`✗ ${call.name}: ${renderReminders(decision).join(' / ')}`)
    continue
  }
  const input =
    decision.decision === 'modify'
      ? (decision.payload?.tool as { input: unknown } | undefined)?.input
      : call.input
  console.log(`✓ ${call.name} ${JSON.stringify(input)}${decision.decision === 'modify' ? ' (modified)' : ''}`)
}
await engine.close()
