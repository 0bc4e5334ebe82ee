// Attacks on the host through the management API of a real `warden serve` with token auth
// and two tenants: a tenant editor tries to make `save_json` write where it chooses (its
// own baseDir, an absolute path, `..`, a symbolic link planted in the data folder) and to
// run a program with command hooks off. Every attempt is refused or confined, and nothing
// is written outside the data folder. On SQLite and on PostgreSQL.

import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/index.js'
import { type Served, serve, storeAt, tempDir, token, WsClient } from '../server/management-helper.js'
import { postgresForTests } from '../setup/postgres.js'

const postgres = await postgresForTests()

for (const kind of ['sqlite', 'postgres'] as const) {
  describe.skipIf(kind === 'postgres' && !postgres)(`on ${kind}`, () => {
    const dir = tempDir('warden-host-')
    const db = kind === 'sqlite' ? join(dir, 'warden.db') : (postgres?.url ?? '')
    const dataDir = join(dir, 'data')
    const outside = join(dir, 'outside')
    let warden: Served
    let store: Store
    let acme: WsClient
    let globex: WsClient
    let admin: WsClient

    const sample = {
      payload: { tool: { name: 'deploy', input: { secret: 'written-by-the-caller' } } },
      context: { session: { id: 's-1' } },
    }

    function saveJson(name: string, extra: Record<string, unknown>) {
      return {
        name,
        event: 'tool.pre',
        handler: {
          type: 'profile-action',
          action: 'save_json',
          profile: 'p',
          path: 'events.jsonl',
          ...extra,
        },
      }
    }

    /** Every file under a folder, relative. */
    function filesUnder(root: string): string[] {
      if (!existsSync(root)) return []
      return readdirSync(root, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
        .sort()
    }

    beforeAll(async () => {
      mkdirSync(outside, { recursive: true })
      warden = await serve({
        dir,
        name: 'host',
        db,
        yaml: `
    server: { auth: token }
    management: { dataDir: ${JSON.stringify(dataDir)} }
    `,
      })
      store = await storeAt(db)
      acme = await WsClient.connect(warden.url, (await token(store, 'editor', 'acme')).token)
      globex = await WsClient.connect(warden.url, (await token(store, 'editor', 'globex')).token)
      admin = await WsClient.connect(warden.url, (await token(store, 'admin')).token)
    })

    afterAll(async () => {
      for (const c of [acme, globex, admin]) c?.close()
      await store?.close()
      await warden?.stop()
    })

    describe('save_json through the management API', () => {
      it('refuses baseDir on create, test and update, naming the field', async () => {
        const created = await acme.call('hooks.create', saveJson('dump', { baseDir: outside }))
        expect(created.ok).toBe(false)
        expect(created.error?.field).toBe('handler.baseDir')
        expect(created.error?.message).toMatch(/baseDir cannot be set through the management API/)

        const tested = await acme.call('hooks.test', {
          hook: saveJson('dump', { baseDir: outside }),
          event: sample,
        })
        expect(tested.ok).toBe(false)
        expect(tested.error?.field).toBe('handler.baseDir')

        const fine = await acme.ok('hooks.create', saveJson('fine', {}))
        const updated = await acme.call('hooks.update', {
          id: fine.id,
          changes: { handler: { ...saveJson('fine', {}).handler, baseDir: outside } },
        })
        expect(updated.ok).toBe(false)
        expect(updated.error?.field).toBe('handler.baseDir')
        expect(filesUnder(outside)).toEqual([])
      })

      it('refuses absolute paths and paths with .. segments', async () => {
        for (const path of [join(outside, 'x.jsonl'), '../../outside/x.jsonl', 'logs/../../x.jsonl', '..']) {
          for (const method of ['hooks.create', 'hooks.test'] as const) {
            const hook = saveJson(`p-${method.length}`, { path })
            const res = await admin.call(method, method === 'hooks.create' ? hook : { hook, event: sample })
            expect(res.ok, `${method} ${path}`).toBe(false)
            expect(res.error?.field).toBe('handler.path')
          }
        }
        expect(filesUnder(outside)).toEqual([])
        expect(filesUnder(dir).filter((f) => f.endsWith('.jsonl'))).toEqual([])
      })

      it('writes inside the tenant’s folder of the data folder, and nowhere else', async () => {
        const acmeRun = await acme.ok('hooks.test', {
          hook: saveJson('audit', { path: 'logs/acme.jsonl' }),
          event: sample,
        })
        expect(acmeRun.error).toBeUndefined()
        await globex.ok('hooks.test', {
          hook: saveJson('audit', { path: 'logs/globex.jsonl' }),
          event: sample,
        })
        const saved = await acme.ok('hooks.create', saveJson('stored', { path: 'stored.jsonl' }))
        await acme.ok('hooks.test', { id: saved.id, event: sample })

        expect(filesUnder(dataDir)).toEqual([
          'tenant-acme/logs/acme.jsonl',
          'tenant-acme/stored.jsonl',
          'tenant-globex/logs/globex.jsonl',
        ])
        const line = JSON.parse(readFileSync(join(dataDir, 'tenant-acme/logs/acme.jsonl'), 'utf8'))
        expect(line.payload.tool.name).toBe('deploy')
        expect(filesUnder(outside)).toEqual([])
        expect(filesUnder(dir).filter((f) => f.endsWith('.jsonl') && !f.startsWith('data/'))).toEqual([])
      })

      it('does not follow symbolic links planted in the data folder out of it', async () => {
        const tenantDir = join(dataDir, 'tenant-acme')
        mkdirSync(tenantDir, { recursive: true })
        symlinkSync(outside, join(tenantDir, 'escape'))
        const victim = join(outside, 'victim.jsonl')
        writeFileSync(victim, 'untouched')
        symlinkSync(victim, join(tenantDir, 'linked.jsonl'))

        for (const path of ['escape/x.jsonl', 'escape/deeper/x.jsonl', 'linked.jsonl']) {
          const run = await acme.ok('hooks.test', { hook: saveJson('link', { path }), event: sample })
          // Observe only: the action goes on, and the refusal is in the hook's log.
          expect(run.decision).toBe('allow')
          expect(JSON.stringify(run.trace.logs)).toMatch(/symbolic link; refused/)
        }
        expect(readFileSync(victim, 'utf8')).toBe('untouched')
        expect(filesUnder(outside)).toEqual(['victim.jsonl'])
        expect(existsSync(join(outside, 'deeper'))).toBe(false)
      })
    })

    describe('programs through the management API with command hooks off', () => {
      it('refuses command hooks and a profile’s command action', async () => {
        const marker = join(outside, 'ran')
        const command = { type: 'command', command: `touch ${marker}` }
        for (const client of [acme, admin]) {
          const created = await client.call('hooks.create', {
            name: 'cmd',
            event: 'tool.pre',
            handler: command,
          })
          expect(created.ok).toBe(false)
          expect(created.error?.code).toBe('forbidden')
          expect(created.error?.field).toBe('handler.type')
          const tested = await client.call('hooks.test', {
            hook: { name: 'cmd', event: 'tool.pre', handler: command },
            event: sample,
          })
          expect(tested.error?.code).toBe('forbidden')
          const action = await client.call('hooks.create', {
            name: 'cmd-action',
            event: 'tool.pre',
            handler: { type: 'profile-action', action: 'command', command: `touch ${marker}` },
          })
          expect(action.ok).toBe(false)
          expect(action.error?.code).toBe('forbidden')
          expect(action.error?.field).toBe('handler.action')
        }
        expect(existsSync(marker)).toBe(false)
      })
    })
  })
}

afterAll(async () => {
  await postgres?.release()
})
