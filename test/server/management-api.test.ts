// The management API against a real `warden serve` on SQLite with real `ws` clients:
// authentication before the upgrade, every hooks method, dry runs with handler detail,
// history, decisions and replay, file hooks that can only be toggled, masked secrets,
// roles, tenant isolation both ways, the record of changes, pushes, revocation. Every case
// runs on SQLite and on the real PostgreSQL the suite starts.

import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/index.js'
import { postgresForTests } from '../setup/postgres.js'
import { aos, type Served, serve, storeAt, tempDir, token, toolCall, WsClient } from './management-helper.js'

const postgres = await postgresForTests()

for (const kind of ['sqlite', 'postgres'] as const) {
  describe.skipIf(kind === 'postgres' && !postgres)(`on ${kind}`, () => {
    const dir = tempDir('warden-mgmt-')
    const db = kind === 'sqlite' ? join(dir, 'warden.db') : (postgres?.url ?? '')
    let warden: Served
    let store: Store
    let admin: string
    const clients: WsClient[] = []

    const YAML = `
  limits: { approvalTimeoutMs: 3000 }
  management: { allowCommandHooks: true }
  hooks:
    - name: file-deny-rm
      event: tool.pre
      matcher: "^exec$"
      if: "tool.input.cmd.startsWith('rm ')"
      handler: { type: deny, reason: "no rm from files" }
  `

    async function client(secret = admin): Promise<WsClient> {
      const c = await WsClient.connect(warden.url, secret)
      clients.push(c)
      return c
    }

    beforeAll(async () => {
      warden = await serve({ dir, name: 'api', yaml: YAML, db })
      store = await storeAt(db)
      admin = (await token(store, 'admin')).token
    })

    afterAll(async () => {
      for (const c of clients) c.close()
      await store?.close()
      await warden?.stop()
    })

    describe('authentication', () => {
      it('refuses the upgrade without a token, with a bad one and with an agent token', async () => {
        await expect(WsClient.connect(warden.url, undefined)).rejects.toThrow('HTTP 401')
        await expect(
          WsClient.connect(warden.url, 'wdn_0000000000000000_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'),
        ).rejects.toThrow('HTTP 401')
        await expect(WsClient.connect(warden.url, 'nonsense')).rejects.toThrow('HTTP 401')
        const agent = await token(store, 'agent', 'acme')
        await expect(WsClient.connect(warden.url, agent.token)).rejects.toThrow('HTTP 403')
      })

      it('takes the token as a query parameter for browsers', async () => {
        const c = await WsClient.connect(warden.url, admin, 'query')
        clients.push(c)
        const info = await c.ok('server.info')
        expect(info.token.role).toBe('admin')
        expect(info.token.tenant).toBeNull()
        expect(info.methods).toContain('hooks.create')
        expect(info.handlerTypes).toEqual(
          expect.arrayContaining(['deny', 'allow', 'ask', 'command', 'http', 'script']),
        )
      })

      it('closes a revoked token’s sockets within a second and refuses it afterwards', async () => {
        const viewer = await token(store, 'viewer')
        const c = await client(viewer.token)
        await c.ok('hooks.list')
        const started = Date.now()
        await store.revokeToken(viewer.id, Date.now())
        const closed = await c.closed
        expect(closed.code).toBe(4401)
        expect(Date.now() - started).toBeLessThan(1500)
        await expect(WsClient.connect(warden.url, viewer.token)).rejects.toThrow('HTTP 401')
      })
    })

    describe('hooks', () => {
      it('creates a rule without code that takes effect on /aos, and lists, gets, updates, toggles and deletes it', async () => {
        const c = await client()
        const created = await c.ok('hooks.create', {
          name: 'deny-bash-sudo',
          event: 'PreToolUse',
          matcher: '^Bash$',
          if: "tool.input.command.contains('sudo')",
          handler: { type: 'deny', reason: 'no sudo' },
        })
        expect(created).toMatchObject({
          id: 'deny-bash-sudo',
          event: 'tool.pre',
          source: 'api',
          version: 1,
          readOnly: false,
        })
        const denied = await aos(warden.url, toolCall('Bash', { command: 'sudo ls' }))
        expect(denied.body.result.decision).toBe('deny')
        expect(denied.body.result.message).toContain('no sudo')
        expect((await aos(warden.url, toolCall('Bash', { command: 'ls' }))).body.result.decision).toBe(
          'allow',
        )

        const listed = await c.ok('hooks.list', { source: 'api' })
        expect(listed.hooks.map((h: { id: string }) => h.id)).toContain('deny-bash-sudo')
        expect(listed.hooks.every((h: { source: string }) => h.source === 'api')).toBe(true)
        const byEvent = await c.ok('hooks.list', { event: 'tool.pre', source: 'file' })
        expect(byEvent.hooks.map((h: { id: string }) => h.id)).toEqual(['file-deny-rm'])

        const updated = await c.ok('hooks.update', {
          id: 'deny-bash-sudo',
          version: 1,
          changes: { handler: { type: 'deny', reason: 'sudo is off limits' } },
        })
        expect(updated.version).toBe(2)
        const stale = await c.call('hooks.update', {
          id: 'deny-bash-sudo',
          version: 1,
          changes: { priority: 3 },
        })
        expect(stale.error).toMatchObject({ code: 'conflict', field: 'version' })
        expect(
          (await aos(warden.url, toolCall('Bash', { command: 'sudo ls' }))).body.result.message,
        ).toContain('off limits')

        const off = await c.ok('hooks.toggle', { id: 'deny-bash-sudo', enabled: false })
        expect(off.enabled).toBe(false)
        expect((await aos(warden.url, toolCall('Bash', { command: 'sudo ls' }))).body.result.decision).toBe(
          'allow',
        )
        await c.ok('hooks.toggle', { id: 'deny-bash-sudo', enabled: true })
        expect((await aos(warden.url, toolCall('Bash', { command: 'sudo ls' }))).body.result.decision).toBe(
          'deny',
        )

        expect(await c.ok('hooks.delete', { id: 'deny-bash-sudo' })).toEqual({
          id: 'deny-bash-sudo',
          deleted: true,
        })
        expect((await aos(warden.url, toolCall('Bash', { command: 'sudo ls' }))).body.result.decision).toBe(
          'allow',
        )
        expect((await c.call('hooks.get', { id: 'deny-bash-sudo' })).error).toMatchObject({
          code: 'not-found',
          field: 'id',
        })
      })

      it('names the field of an invalid definition and refuses duplicates', async () => {
        const c = await client()
        const bad = await c.call('hooks.create', {
          name: 'x',
          event: 'tool.pre',
          handler: { type: 'deny' },
          timeoutMs: -5,
        })
        expect(bad.error?.code).toBe('invalid-params')
        expect(bad.error?.field).toBe('timeoutMs')
        const unknownEvent = await c.call('hooks.create', {
          name: 'x',
          event: 'tool.pree',
          handler: { type: 'deny' },
        })
        expect(unknownEvent.error).toMatchObject({ code: 'invalid-params', field: 'event' })
        expect(unknownEvent.error?.message).toContain('did you mean')
        const extra = await c.call('hooks.create', {
          name: 'x',
          event: 'tool.pre',
          handler: { type: 'deny' },
          colour: 'red',
        })
        expect(extra.error).toMatchObject({ code: 'invalid-params', field: 'colour' })
        const badHandler = await c.call('hooks.create', {
          name: 'x',
          event: 'tool.pre',
          handler: { type: 'deny', reason: 5 },
        })
        expect(badHandler.error?.code).toBe('invalid-params')
        expect(badHandler.error?.message).toContain('reason')
        const taken = await c.call('hooks.create', {
          name: 'file-deny-rm',
          event: 'tool.pre',
          handler: { type: 'deny' },
        })
        expect(taken.error).toMatchObject({ code: 'conflict', field: 'name' })
      })

      it('only toggles file hooks', async () => {
        const c = await client()
        const hook = await c.ok('hooks.get', { id: 'file-deny-rm' })
        expect(hook).toMatchObject({ source: 'file', readOnly: true, handlerType: 'deny' })
        expect(hook.origin).toContain('api.yaml')
        expect(
          (await c.call('hooks.update', { id: 'file-deny-rm', changes: { priority: 1 } })).error?.code,
        ).toBe('forbidden')
        expect((await c.call('hooks.delete', { id: 'file-deny-rm' })).error?.code).toBe('forbidden')
        expect((await aos(warden.url, toolCall('exec', { cmd: 'rm -rf /' }))).body.result.decision).toBe(
          'deny',
        )
        await c.ok('hooks.toggle', { id: 'file-deny-rm', enabled: false })
        expect((await aos(warden.url, toolCall('exec', { cmd: 'rm -rf /' }))).body.result.decision).toBe(
          'allow',
        )
        await c.ok('hooks.toggle', { id: 'file-deny-rm', enabled: true })
        expect((await aos(warden.url, toolCall('exec', { cmd: 'rm -rf /' }))).body.result.decision).toBe(
          'deny',
        )
      })

      it('masks secret header values and keeps them when sent back masked', async () => {
        const c = await client()
        const created = await c.ok('hooks.create', {
          name: 'webhook',
          event: 'tool.post',
          handler: {
            type: 'http',
            url: 'http://127.0.0.1:9/hook',
            headers: { Authorization: 'Bearer s3cret-value', 'X-Plain': 'ok' },
          },
        })
        expect(JSON.stringify(created)).not.toContain('s3cret-value')
        expect(created.handler.headers).toEqual({ Authorization: '********', 'X-Plain': 'ok' })
        const got = await c.ok('hooks.get', { id: 'webhook' })
        expect(got.handler.headers.Authorization).toBe('********')
        await c.ok('hooks.update', {
          id: 'webhook',
          changes: { handler: { ...got.handler, timeoutMs: undefined } },
        })
        const stored = await store.getHook('webhook')
        expect((stored?.handler.headers as Record<string, string> | undefined)?.Authorization).toBe(
          'Bearer s3cret-value',
        )
        const changes = await c.ok('audit.changes', { target: 'webhook' })
        expect(JSON.stringify(changes)).not.toContain('s3cret-value')
        await c.ok('hooks.delete', { id: 'webhook' })
      })

      it('dry-runs saved hooks and unsaved definitions with the handler’s detail, writing no audit row', async () => {
        const c = await client()
        await new Promise((r) => setTimeout(r, 400))
        const before = await store.countDecisions()
        const saved = await c.ok('hooks.test', {
          id: 'file-deny-rm',
          event: { payload: { tool: { name: 'exec', input: { cmd: 'rm -rf /' } } } },
        })
        expect(saved).toMatchObject({ decision: 'deny', reason: 'no rm from files' })
        const command = await c.ok('hooks.test', {
          hook: {
            name: 'shout',
            event: 'tool.pre',
            handler: {
              type: 'command',
              command: 'node',
              args: [
                '-e',
                "process.stderr.write('looked'); console.log(JSON.stringify({hookSpecificOutput:{hookEventName:'PreToolUse',permissionDecision:'allow',updatedInput:{cmd:'LS'}}}))",
              ],
            },
          },
          event: { payload: { tool: { name: 'exec', input: { cmd: 'ls' } } } },
        })
        expect(command.decision).toBe('modify')
        expect(command.detail.exitCode).toBe(0)
        expect(command.detail.stderr).toBe('looked')
        expect(command.input.tool.input).toEqual({ cmd: 'ls' })
        expect(command.output.tool.input).toEqual({ cmd: 'LS' })
        expect(typeof command.durationMs).toBe('number')
        const badSample = await c.call('hooks.test', {
          id: 'file-deny-rm',
          event: { payload: { tool: 'nope' } },
        })
        expect(badSample.error?.code).toBe('invalid-params')
        const both = await c.call('hooks.test', { event: { payload: {} } })
        expect(both.error?.code).toBe('invalid-params')
        // No judge is configured: the error names the handler and says what is missing.
        const judgeless = await c.call('hooks.test', {
          hook: {
            name: 'judged',
            event: 'tool.pre',
            matcher: '^exec$',
            handler: { type: 'prompt', prompt: 'Deny deletes' },
          },
          event: { payload: { tool: { name: 'exec', input: { cmd: 'ls' } } } },
        })
        expect(judgeless.error?.field, JSON.stringify(judgeless)).toBe('handler')
        expect(judgeless.error?.message).toContain('a prompt handler needs an LLM judge')
        await new Promise((r) => setTimeout(r, 300))
        expect(await store.countDecisions()).toBe(before)
      })

      it('pages a hook’s history, newest first, filtered by decision', async () => {
        const c = await client()
        await c.ok('hooks.create', {
          name: 'deny-odd',
          event: 'tool.pre',
          matcher: '^odd$',
          handler: { type: 'deny', reason: 'odd' },
        })
        for (let i = 0; i < 5; i++) await aos(warden.url, toolCall('odd', { i }))
        await new Promise((r) => setTimeout(r, 500))
        const first = await c.ok('hooks.history', { id: 'deny-odd', limit: 3 })
        expect(first.executions).toHaveLength(3)
        expect(first.executions.every((e: { decision: string }) => e.decision === 'deny')).toBe(true)
        expect(first.next).toBeDefined()
        const second = await c.ok('hooks.history', { id: 'deny-odd', limit: 3, cursor: first.next })
        expect(second.executions).toHaveLength(2)
        const ids = [...first.executions, ...second.executions].map(
          (e: { decisionId: string }) => e.decisionId,
        )
        expect(new Set(ids).size).toBe(5)
        expect(first.executions[0].at).toBeGreaterThanOrEqual(first.executions[2].at)
        expect((await c.ok('hooks.history', { id: 'deny-odd', decision: 'allow' })).executions).toHaveLength(
          0,
        )
        const decision = await c.ok('decisions.get', { id: ids[0] })
        expect(decision.decision).toBe('deny')
        expect(decision.trace[0]).toMatchObject({ hook: 'deny-odd', outcome: 'deny' })
        const replay = await c.ok('decisions.replay', { id: ids[0] })
        expect(replay.differs).toBe(false)
        await c.ok('hooks.delete', { id: 'deny-odd' })
        const after = await c.ok('decisions.replay', { id: ids[0] })
        expect(after.differs).toBe(true)
        expect(after.new.decision).toBe('allow')
        const listed = await c.ok('decisions.list', { decision: 'deny', limit: 2 })
        expect(listed.decisions).toHaveLength(2)
        expect(listed.next).toBe(2)
      })

      it('pages hooks.list with limit and offset', async () => {
        const c = await client()
        for (const n of ['page-a', 'page-b', 'page-c']) {
          await c.ok('hooks.create', { name: n, event: 'custom.paging', handler: { type: 'allow' } })
        }
        const first = await c.ok('hooks.list', { event: 'custom.paging', limit: 2 })
        expect(first.total).toBe(3)
        expect(first.hooks).toHaveLength(2)
        expect(first.next).toBe(2)
        const second = await c.ok('hooks.list', { event: 'custom.paging', limit: 2, offset: first.next })
        expect(second.hooks).toHaveLength(1)
        expect(second.next).toBeUndefined()
        const ids = [...first.hooks, ...second.hooks].map((h: { id: string }) => h.id).sort()
        expect(ids).toEqual(['page-a', 'page-b', 'page-c'])
        for (const n of ids) await c.ok('hooks.delete', { id: n })
      })

      it('records every change with who, what, before and after', async () => {
        const c = await client()
        await c.ok('hooks.create', { name: 'audited', event: 'tool.pre', handler: { type: 'allow' } })
        await c.ok('hooks.update', { id: 'audited', changes: { priority: 7 } })
        await c.ok('hooks.delete', { id: 'audited' })
        const { changes } = await c.ok('audit.changes', { target: 'audited' })
        expect(changes.map((ch: { action: string }) => ch.action)).toEqual([
          'hooks.delete',
          'hooks.update',
          'hooks.create',
        ])
        expect(changes[1].before.priority).toBe(0)
        expect(changes[1].after.priority).toBe(7)
        expect(changes[0].actorName).toBe('admin-all')
        expect(changes[0].after).toBeUndefined()
      })
    })

    describe('roles and tenants', () => {
      it('lets each role do only its part', async () => {
        const viewer = await client((await token(store, 'viewer')).token)
        const editor = await client((await token(store, 'editor')).token)
        const approver = await client((await token(store, 'approver')).token)
        expect(
          (await viewer.call('hooks.create', { name: 'v', event: 'tool.pre', handler: { type: 'allow' } }))
            .error?.code,
        ).toBe('forbidden')
        expect(
          (await viewer.call('hooks.test', { id: 'file-deny-rm', event: { payload: {} } })).error?.code,
        ).toBe('forbidden')
        expect((await viewer.ok('hooks.list')).total).toBeGreaterThan(0)
        expect(
          (await approver.call('hooks.toggle', { id: 'file-deny-rm', enabled: false })).error?.code,
        ).toBe('forbidden')
        expect((await editor.call('approvals.resolve', { id: 'x', action: 'approve' })).error?.code).toBe(
          'forbidden',
        )
        expect((await approver.call('approvals.resolve', { id: 'x', action: 'approve' })).error?.code).toBe(
          'not-found',
        )
        const info = await viewer.ok('server.info')
        expect(info.methods).not.toContain('hooks.create')
        expect(info.methods).toContain('decisions.list')
      })

      it('keeps tenants apart both ways', async () => {
        const acme = await client((await token(store, 'editor', 'acme')).token)
        const globex = await client((await token(store, 'editor', 'globex')).token)
        const mine = await acme.ok('hooks.create', {
          name: 'acme-only',
          event: 'tool.pre',
          matcher: '^t$',
          handler: { type: 'deny', reason: 'acme says no' },
        })
        expect(mine.id).toBe('acme/acme-only')
        expect(mine.tenant).toBe('acme')
        const foreign = await acme.call('hooks.create', {
          name: 'sneaky',
          event: 'tool.pre',
          scope: { tenant: 'globex' },
          handler: { type: 'allow' },
        })
        expect(foreign.error).toMatchObject({ code: 'forbidden', field: 'scope.tenant' })
        expect((await globex.call('hooks.get', { id: 'acme/acme-only' })).error?.code).toBe('not-found')
        expect((await globex.call('hooks.delete', { id: 'acme/acme-only' })).error?.code).toBe('not-found')
        expect((await globex.ok('hooks.list')).hooks.map((h: { id: string }) => h.id)).not.toContain(
          'acme/acme-only',
        )
        expect(
          (await acme.ok('hooks.list')).hooks.every((h: { tenant?: string }) => h.tenant === 'acme'),
        ).toBe(true)
        const call = await aos(warden.url, toolCall('t', {}), { 'x-warden-tenant': 'acme' })
        expect(call.body.result.decision).toBe('deny')
        const decisionId = call.body.result.data.decisionId
        expect(
          (await aos(warden.url, toolCall('t', {}), { 'x-warden-tenant': 'globex' })).body.result.decision,
        ).toBe('allow')
        await new Promise((r) => setTimeout(r, 400))
        expect((await acme.ok('decisions.get', { id: decisionId })).tenant).toBe('acme')
        expect((await globex.call('decisions.get', { id: decisionId })).error?.code).toBe('not-found')
        expect((await globex.call('decisions.replay', { id: decisionId })).error?.code).toBe('not-found')
        expect(
          (await globex.ok('decisions.list')).decisions.every(
            (d: { tenant: string }) => d.tenant === 'globex',
          ),
        ).toBe(true)
        expect((await globex.call('decisions.list', { tenant: 'acme' })).error?.code).toBe('forbidden')
        expect((await globex.call('hooks.history', { id: 'acme/acme-only' })).error?.code).toBe('not-found')
        expect(
          (await acme.ok('audit.changes')).changes.every((ch: { tenant: string }) => ch.tenant === 'acme'),
        ).toBe(true)
      })
    })

    describe('pushes', () => {
      it('pushes decisions (filtered), hook changes and breaker trips', async () => {
        const c = await client()
        await c.ok('subscribe', {
          events: ['decision', 'hook.changed', 'breaker.tripped'],
          filter: { decision: ['deny'] },
        })
        await aos(warden.url, toolCall('exec', { cmd: 'ls' }))
        const denied = await aos(warden.url, toolCall('exec', { cmd: 'rm x' }))
        const push = await c.push('decision')
        expect(push.id).toBe(denied.body.result.data.decisionId)
        expect(push.decision).toBe('deny')
        expect(
          c.pushes.filter((p) => p.event === 'decision').every((p) => p.payload.decision === 'deny'),
        ).toBe(true)
        await c.ok('hooks.create', {
          name: 'flaky',
          event: 'tool.pre',
          matcher: '^flaky$',
          handler: { type: 'http', url: 'http://127.0.0.1:9/nothing-listens' },
        })
        expect(await c.push('hook.changed', (p) => p.id === 'flaky')).toMatchObject({
          change: 'created',
          source: 'api',
          event: 'tool.pre',
          enabled: true,
        })
        for (let i = 0; i < 6; i++) await aos(warden.url, toolCall('flaky', {}))
        const trip = await c.push('breaker.tripped', (p) => p.hookId === 'flaky')
        expect(trip.failures).toBeGreaterThanOrEqual(5)
        expect((await c.ok('hooks.get', { id: 'flaky' })).breaker.open).toBe(true)
        await c.ok('hooks.toggle', { id: 'flaky', enabled: true })
        expect((await c.ok('hooks.get', { id: 'flaky' })).breaker).toBeUndefined()
        await c.ok('unsubscribe', {})
        await c.ok('hooks.delete', { id: 'flaky' })
      })
    })
  })
}

afterAll(async () => {
  await postgres?.release()
})
