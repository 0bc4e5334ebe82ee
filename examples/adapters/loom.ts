// A loom-style embedding for a hand-written agent loop: hooks registered in code, tool
// interceptors that rewrite or block, and reminders for the next model call.
// Run: npx tsx examples/adapters/loom.ts

import { createLoomRuntime } from 'warden/adapters/loom'

const runtime = createLoomRuntime()
runtime.register('tool.pre', {
  name: 'no-force-push',
  matcher: '^git$',
  fn: (ctx) =>
    String((ctx.toolInput as { args?: string }).args).includes('--force')
      ? { continue: false, reason: 'force pushes are not allowed' }
      : { continue: true },
})
runtime.register('tool.post', {
  name: 'redact-tokens',
  fn: (ctx) => ({
    decision: 'modify',
    updatedToolOutput: String(ctx.toolOutput).replace(/ghp_\w+/g, '[token]'),
  }),
})

const git = runtime.interceptor('git', async (input) => `ran git ${input.args} with ghp_secret123`)

for (const args of ['push --force', 'status']) {
  const result = await git({ args })
  console.log(result.status === 'ok' ? `✓ git ${args}: ${result.output}` : `✗ git ${args}: ${result.reason}`)
}
// What the host adds to its next model call:
console.log(runtime.takeReminders())
