// Attacks on the shell detector's bounds through a real `warden serve` with the shell-safety
// pack: wrappers repeated past the old depth, groups nested past the bound, a command line
// past the size bound, a doubling of variables that once took seconds and gigabytes, and
// input past the nesting of substitutions. Each is denied with the cause (or asked, where
// the hook says so), in bounded time. The allowlist mode holds through the pack option, and
// a hook made through the management API cannot make the server read a file through
// `claudeSettings`.

import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../../src/index.js'
import type { Store } from '../../src/store/index.js'
import {
  aos,
  type Served,
  serve,
  storeAt,
  tempDir,
  token,
  toolCall,
  WsClient,
  writeFileSync,
} from '../server/management-helper.js'

/** `sh -c "sh -c \"… ls\""`, nested `levels` deep with each level's quoting escaped. */
function nestedShells(levels: number): string {
  let command = 'ls'
  for (let i = 0; i < levels; i++) command = `sh -c "${command.replace(/[\\"$`]/g, '\\$&')}"`
  return command
}

const DOUBLING = Array.from({ length: 27 }, (_, i) =>
  i === 0 ? 'a0=xxxxxxxx' : `a${i}=$a${i - 1}$a${i - 1}`,
)

/** Inputs every pack user expects refused, and the cause the reason must name. */
const ATTACKS: [string, string, RegExp][] = [
  ['nice ×9', `${'nice '.repeat(9)}rm -rf /`, /rm -r on \//],
  ['sudo ×9', `${'sudo '.repeat(9)}rm -rf /`, /rm -r on \//],
  ['env ×9', `${'env '.repeat(9)}rm -rf /`, /rm -r on \//],
  ['xargs ×9', `echo / | ${'xargs '.repeat(9)}rm -rf /`, /rm -r on \//],
  ['eval ×9', `${'eval '.repeat(9)}rm -rf /`, /rm -r on \//],
  ['sh -c ×9', nestedShells(9), /more than 8 levels of nested/],
  ['$( ×9', `${'$('.repeat(9)}ls${')'.repeat(9)}`, /more than 8 levels of nested/],
  ['64 nested groups', `${'( '.repeat(64)}ls${' )'.repeat(64)}`, /more than 64 nested groups/],
  ['66 KB then rm', `echo ${'x'.repeat(66 * 1024)}; rm -rf /`, /longer than 65536 characters/],
  ['doubling ×27', DOUBLING.join(';'), /work budget spent/],
]

describe('shell detector bounds through warden serve', () => {
  const dir = tempDir('warden-shell-')
  const db = join(dir, 'warden.db')
  const settings = join(dir, 'claude-settings.json')
  let warden: Served
  let store: Store
  let admin: WsClient
  let bearer: Record<string, string>

  const check = async (command: string) => {
    const answer = await aos(warden.url, toolCall('Bash', { command }), bearer)
    return answer.body?.result as { decision: string; reasons?: { message?: string }[]; reason?: string }
  }
  const reasonOf = (result: unknown) => JSON.stringify(result)

  beforeAll(async () => {
    writeFileSync(settings, JSON.stringify({ permissions: { allow: ['Bash(git status)'] } }))
    warden = await serve({
      dir,
      name: 'shell',
      db,
      yaml: `
server: { auth: token }
hooks:
  - name: allow-only
    event: tool.pre
    matcher: "^AllowOnly$"
    handler:
      type: detector
      detector: shell
      fields: [tool.input.command]
      options: { mode: allow, allow: ["git status", "npm run *"] }
  - name: shell-safety:destructive-commands
    matcher: "^Bash$"
packs:
  - name: shell-safety
`,
    })
    store = await storeAt(db)
    const adminToken = (await token(store, 'admin')).token
    bearer = { authorization: `Bearer ${adminToken}` }
    admin = await WsClient.connect(warden.url, adminToken)
  })

  afterAll(async () => {
    admin?.close()
    await store?.close()
    await warden?.stop()
  })

  it.each(ATTACKS)('denies %s, naming the cause', async (_name, command, cause) => {
    const started = performance.now()
    const result = await check(command)
    expect(result?.decision, reasonOf(result)).toBe('deny')
    expect(reasonOf(result)).toMatch(cause)
    expect(performance.now() - started).toBeLessThan(5000)
  })

  it('reads eight nested shells to the end', async () => {
    const result = await check(nestedShells(8).replace('ls', 'rm -rf /'))
    expect(reasonOf(result)).toMatch(/rm -r on \//)
  })

  it('lets ordinary commands pass', async () => {
    for (const command of ['git status && npm test', 'ls -la | grep src', 'cd /tmp && rm -rf build'])
      expect((await check(command))?.decision, command).toBe('allow')
  })

  it('in allowlist mode passes only listed commands it fully read', async () => {
    const run = async (command: string) =>
      (await aos(warden.url, toolCall('AllowOnly', { command }), bearer)).body?.result
    expect((await run('git status && npm run build'))?.decision).toBe('allow')
    for (const [command, cause] of [
      ['git push', /not on the allow list/],
      ['$X status', /cannot know/],
      ["git status 'open", /unterminated single quote/],
      ['git status > /etc/passwd', /output redirected to \/etc\/passwd/],
    ] as const) {
      const result = await run(command)
      expect(result?.decision, command).toBe('deny')
      expect(reasonOf(result)).toMatch(cause)
    }
  })

  it('refuses claudeSettings in hooks made through the management API, on create and on test', async () => {
    const hook = {
      name: 'reads-a-file',
      event: 'tool.pre',
      handler: { type: 'detector', detector: 'shell', options: { mode: 'allow', claudeSettings: settings } },
    }
    const created = await admin.call('hooks.create', hook)
    expect(created.ok).toBe(false)
    expect(created.error?.field).toBe('handler.options.claudeSettings')
    expect(created.error?.message).toMatch(/reads a file on the server/)
    const tested = await admin.call('hooks.test', { hook, event: { payload: { tool: { name: 'Bash' } } } })
    expect(tested.ok).toBe(false)
    expect(tested.error?.field).toBe('handler.options.claudeSettings')
  })
})

describe('shell detector bounds with action: ask', () => {
  it('hands a bound reached to a human, naming it, instead of denying outright', async () => {
    const asked: string[] = []
    const engine = createEngine({
      hooks: [
        { name: 'shell', event: 'tool.pre', handler: { type: 'detector', detector: 'shell', action: 'ask' } },
      ],
      approver: (request) => {
        asked.push(...request.asks.map((a) => a.reason ?? ''))
        return { outcome: 'approve' }
      },
    })
    const event = (command: string) => ({
      event: 'tool.pre',
      payload: { tool: { name: 'Bash', input: { command } } },
    })
    const decision = await engine.dispatch(event(`${'( '.repeat(64)}ls${' )'.repeat(64)}`))
    expect(decision.decision).toBe('allow')
    expect(asked).toEqual([
      'shell reader stopped at its bound: more than 64 nested groups or function bodies; the rest was not read (tool.input.command)',
    ])
  })
})
