// Secrets at rest and in view, against a real `warden serve` with token auth and two
// tenants: a webhook URL with a key in its query (and a Guardian URL with credentials) is
// never returned, recorded as a change, or stored in clear, and editing the hook with the
// masked URL keeps the real one; an AWS key (and a value a denying hook said it matched)
// in a denied tool input is neither in the store (the SQLite file's bytes, every row of the
// PostgreSQL tables) nor in the `/ws` decision push.

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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
} from '../server/management-helper.js'
import { postgresForTests } from '../setup/postgres.js'

const API_KEY = 'q7Xk2pLm9RtY4wZs'
const PASSWORD = 'pa55-w0rd-Zq81'
const WEBHOOK = `https://policy.example.com/x?api_key=${API_KEY}&region=eu`
const GUARDIAN = `https://svc:${PASSWORD}@guardian.example.com/aos?token=${API_KEY}x`
const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE'
const MATCHED = 'hunter2-correct-horse'
const postgres = await postgresForTests()

for (const kind of ['sqlite', 'postgres'] as const) {
  describe.skipIf(kind === 'postgres' && !postgres)(`on ${kind}`, () => {
    const dir = tempDir('warden-secrets-')
    const db = kind === 'sqlite' ? join(dir, 'warden.db') : (postgres?.url ?? '')
    let warden: Served
    let store: Store
    let editor: WsClient
    let viewer: WsClient
    let other: WsClient
    let agentToken: string

    /** Everything the store holds, as text: the SQLite file's bytes, or every row of the PostgreSQL tables. */
    async function databaseBytes(): Promise<string> {
      if (kind === 'sqlite') {
        return [db, `${db}-wal`]
          .filter((f) => existsSync(f))
          .map((f) => readFileSync(f).toString('latin1'))
          .join('\n')
      }
      const client = new pg.Client({ connectionString: db })
      await client.connect()
      try {
        const out: string[] = []
        for (const table of ['hooks', 'changes', 'decisions', 'hook_executions', 'breakers']) {
          const rows = await client.query(`select t::text as row from ${table} t`)
          for (const r of rows.rows as { row: string }[]) out.push(r.row)
        }
        return out.join('\n')
      } finally {
        await client.end()
      }
    }

    beforeAll(async () => {
      warden = await serve({ dir, name: 'secrets', db, yaml: 'server: { auth: token }\n' })
      store = await storeAt(db)
      editor = await WsClient.connect(warden.url, (await token(store, 'editor', 'acme')).token)
      viewer = await WsClient.connect(warden.url, (await token(store, 'viewer', 'acme')).token)
      other = await WsClient.connect(warden.url, (await token(store, 'admin', 'globex')).token)
      agentToken = (await token(store, 'agent', 'acme')).token
    })

    afterAll(async () => {
      for (const c of [editor, viewer, other]) c?.close()
      await store?.close()
      await warden?.stop()
    })

    describe('URLs with secrets in hooks made through the API', () => {
      let webhookId: string
      let guardianId: string

      it('are masked in every answer and every change record', async () => {
        const created = await editor.ok('hooks.create', {
          name: 'policy-webhook',
          event: 'tool.pre',
          matcher: '^never$',
          handler: { type: 'http', url: WEBHOOK },
        })
        webhookId = created.id
        expect(created.handler.url).toBe('https://policy.example.com/x?api_key=***&region=***')
        const guardian = await editor.ok('hooks.create', {
          name: 'remote-guardian',
          event: 'tool.pre',
          matcher: '^never$',
          handler: { type: 'guardian', url: GUARDIAN },
        })
        guardianId = guardian.id
        expect(guardian.handler.url).toBe('https://***@guardian.example.com/aos?token=***')

        const answers = [
          created,
          guardian,
          await viewer.ok('hooks.list'),
          await viewer.ok('hooks.get', { id: webhookId }),
          await viewer.ok('hooks.get', { id: guardianId }),
          await viewer.ok('audit.changes', {}),
        ]
        for (const answer of answers) {
          const text = JSON.stringify(answer)
          expect(text).not.toContain(API_KEY)
          expect(text).not.toContain(PASSWORD)
        }
        expect(JSON.stringify(answers[5])).toContain('api_key=***')
      })

      it('keeps the real URL when the hook is edited with the masked one', async () => {
        const shown = await editor.ok('hooks.get', { id: webhookId })
        const updated = await editor.ok('hooks.update', {
          id: webhookId,
          changes: { handler: shown.handler, priority: 7 },
        })
        expect(updated.priority).toBe(7)
        expect(updated.handler.url).toBe(shown.handler.url)
        expect((await store.getHook(webhookId))?.handler.url).toBe(WEBHOOK)
        const guardian = await editor.ok('hooks.get', { id: guardianId })
        await editor.ok('hooks.update', { id: guardianId, changes: { handler: guardian.handler } })
        expect((await store.getHook(guardianId))?.handler.url).toBe(GUARDIAN)
        const changes = JSON.stringify(await viewer.ok('audit.changes', {}))
        expect(changes).not.toContain(API_KEY)
      })

      it('are not stored in clear', async () => {
        const bytes = await databaseBytes()
        expect(bytes).toContain('policy-webhook')
        expect(bytes).not.toContain(API_KEY)
        expect(bytes).not.toContain(PASSWORD)
      })
    })

    describe('secrets in a denied tool input', () => {
      it('stay out of the audit store and the decision push', async () => {
        await editor.ok('hooks.create', {
          name: 'no-cloud-keys',
          event: 'tool.pre',
          handler: {
            type: 'script',
            source: [
              'def handle(event, payload):',
              '    args = payload["args"]',
              '    if "AKIA" in args.get("body", ""):',
              '        return block("refused " + args["body"] + " with " + args["note"], redact=[args["note"]])',
              '    return allow()',
            ].join('\n'),
          },
        })
        await viewer.ok('subscribe', { events: ['decision'] })
        await other.ok('subscribe', { events: ['decision'] })
        const answer = await aos(
          warden.url,
          toolCall('upload', { body: `aws_access_key_id=${AWS_KEY}`, note: `passphrase ${MATCHED}` }),
          { authorization: `Bearer ${agentToken}` },
        )
        expect(answer.status).toBe(200)
        expect(answer.body.result.decision).toBe('deny')
        const decisionId = answer.body.result.data.decisionId as string

        const push = await viewer.push('decision', (p) => p.id === decisionId)
        expect(push.decision).toBe('deny')
        expect(push.reason).toContain('[redacted:aws-access-key-id]')
        expect(push.reason).toContain('[redacted:matched]')
        expect(JSON.stringify(push)).not.toContain(AWS_KEY)
        expect(JSON.stringify(push)).not.toContain(MATCHED)
        expect(other.pushes.some((p) => p.payload?.id === decisionId)).toBe(false)

        let row: Awaited<ReturnType<Store['getDecision']>>
        for (let i = 0; i < 100 && !row; i++) {
          row = await store.getDecision(decisionId)
          if (!row) await new Promise((r) => setTimeout(r, 50))
        }
        expect(row?.decision).toBe('deny')
        expect(JSON.stringify(row)).toContain('[redacted:aws-access-key-id]')
        const bytes = await databaseBytes()
        expect(bytes).toContain(decisionId)
        expect(bytes).not.toContain(AWS_KEY)
        expect(bytes).not.toContain(MATCHED)
        expect(warden.stderr()).not.toContain(AWS_KEY)
      })
    })
  })
}

afterAll(async () => {
  await postgres?.release()
})
