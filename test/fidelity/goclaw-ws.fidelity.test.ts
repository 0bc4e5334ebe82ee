// GoClaw's documented `/ws` requests, replayed unchanged against a real `warden serve`:
// each row is a request as GoClaw's hook docs and its `hooks.*` handlers spell it
// (`handler_type`, `config`, `if_expr`, `timeout_ms`, `agent_ids`, `hookId`, `updates`,
// `sampleEvent`), with what a GoClaw client reads from the reply (`hookId`, a dry run's
// `result.decision`, history's `nextCursor`), and hooks read back in GoClaw's fields (GoClaw's
// `hooks.list` answers its hook rows: `handler_type`, `config`, `timeout_ms`, `priority` as
// given). Warden's own shapes keep working beside them.

import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Loose,
  type Served,
  serve,
  storeAt,
  tempDir,
  token,
  WsClient,
} from '../server/management-helper.js'

const dir = tempDir('warden-goclaw-ws-')
let served: Served
let admin: WsClient
let master: WsClient
let viewer: WsClient

beforeAll(async () => {
  const db = join(dir, 'ws.db')
  const store = await storeAt(db)
  const secrets = {
    admin: await token(store, 'admin', 'acme'),
    master: await token(store, 'admin'),
    viewer: await token(store, 'viewer', 'acme'),
  }
  await store.close()
  served = await serve({ dir, name: 'goclaw-ws', yaml: 'management: { allowCommandHooks: true }\n', db })
  admin = await WsClient.connect(served.url, secrets.admin.token)
  master = await WsClient.connect(served.url, secrets.master.token)
  viewer = await WsClient.connect(served.url, secrets.viewer.token)
}, 60_000)

afterAll(async () => {
  for (const ws of [admin, master, viewer]) ws?.close()
  await served?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** One documented request: who sends it, the params as GoClaw spells them, what the reply holds. */
interface Row {
  name: string
  as?: () => WsClient
  method: string
  params: () => Loose
  expect: (payload: Loose) => void
}

const ids: Record<string, string> = {}

const rows: Row[] = [
  {
    name: 'hooks.create: the http hook of the docs answers {hookId}',
    method: 'hooks.create',
    params: () => ({
      event: 'pre_tool_use',
      handler_type: 'http',
      scope: 'tenant',
      name: 'Safety webhook',
      matcher: '^exec$',
      config: { url: 'https://safety.internal/check', headers: { Authorization: 'Bearer gc-secret-1' } },
    }),
    expect: (p) => {
      expect(p.hookId).toBe('acme/Safety-webhook')
      ids.http = p.hookId
      expect(JSON.stringify(p)).not.toContain('gc-secret-1')
    },
  },
  {
    name: 'hooks.create: a command hook with if_expr, timeout_ms, on_timeout, priority',
    method: 'hooks.create',
    params: () => ({
      event: 'pre_tool_use',
      handler_type: 'command',
      scope: 'tenant',
      name: 'no-long-exec',
      if_expr: 'tool_name == "exec" && size(tool_input.cmd) > 80',
      timeout_ms: 2000,
      on_timeout: 'allow',
      priority: 10,
      config: { command: 'echo too long >&2; exit 2', allowed_env_vars: ['MY_VAR'] },
    }),
    expect: (p) => {
      ids.command = p.hookId
      expect(p).toMatchObject({
        hookId: 'acme/no-long-exec',
        event: 'pre_tool_use',
        handler_type: 'command',
        config: { command: 'echo too long >&2; exit 2', allowed_env_vars: ['MY_VAR'] },
        timeout_ms: 2000,
        on_timeout: 'allow',
        priority: 10,
        tenant_id: 'acme',
      })
      expect(p.if_expr).toBe('tool_name == "exec" && size(tool_input.cmd) > 80')
    },
  },
  {
    name: 'hooks.create: scope agent with agent_ids',
    method: 'hooks.create',
    params: () => ({
      event: 'user_prompt_submit',
      handler_type: 'http',
      scope: 'agent',
      agent_ids: ['triage'],
      config: { url: 'https://example.com/webhook' },
    }),
    expect: (p) => {
      expect(p.hookId).toMatch(/^acme\/goclaw-[0-9a-f]{8}$/)
      expect(p).toMatchObject({ scope: 'agent', agent_ids: ['triage'], event: 'user_prompt_submit' })
      ids.agent = p.hookId
    },
  },
  {
    name: 'hooks.create: post_tool_use is stored as GoClaw has it: it only observes',
    method: 'hooks.create',
    params: () => ({
      event: 'post_tool_use',
      handler_type: 'http',
      scope: 'tenant',
      name: 'audit',
      config: { url: 'https://example.com/audit' },
    }),
    expect: (p) => {
      expect(p.hookId).toBe('acme/audit')
      expect(p.blocks).toBe(false)
      expect(p.warnings).toBeUndefined()
    },
  },
  {
    name: 'hooks.toggle {hookId, enabled} answers {hookId, enabled}',
    method: 'hooks.toggle',
    params: () => ({ hookId: ids.http, enabled: false }),
    expect: (p) => expect(p).toMatchObject({ hookId: ids.http, enabled: false }),
  },
  {
    name: 'hooks.update {hookId, updates} answers {hookId} and changes the hook',
    method: 'hooks.update',
    params: () => ({
      hookId: ids.command,
      updates: { matcher: '^shell$', timeout_ms: 3000, on_timeout: 'block', priority: 5 },
    }),
    expect: (p) =>
      expect(p).toMatchObject({
        hookId: ids.command,
        matcher: '^shell$',
        timeout_ms: 3000,
        on_timeout: 'block',
        priority: 5,
      }),
  },
  {
    name: 'hooks.update: agent_ids keeps the tenant',
    method: 'hooks.update',
    params: () => ({ hookId: ids.agent, updates: { agent_ids: ['triage', 'billing'] } }),
    expect: (p) =>
      expect(p).toMatchObject({ hookId: ids.agent, tenant_id: 'acme', agent_ids: ['triage', 'billing'] }),
  },
  {
    name: 'hooks.list {event: "pre_tool_use"} lists by GoClaw event name',
    method: 'hooks.list',
    params: () => ({ event: 'pre_tool_use' }),
    expect: (p) => expect(p.hooks.map((h: Loose) => h.id).sort()).toEqual([ids.http, ids.command].sort()),
  },
  {
    name: 'hooks.list {agentId} lists an agent’s hooks',
    method: 'hooks.list',
    params: () => ({ agentId: 'billing' }),
    expect: (p) => expect(p.hooks.map((h: Loose) => h.id)).toEqual([ids.agent]),
  },
  {
    name: 'hooks.test: the documented dry run ({config, sampleEvent}) answers {result}',
    method: 'hooks.test',
    params: () => ({
      config: { event: 'pre_tool_use', handler_type: 'command', scope: 'tenant', config: { command: 'cat' } },
      sampleEvent: { toolName: 'exec', toolInput: { cmd: 'ls' } },
    }),
    expect: (p) => {
      expect(p.result).toMatchObject({ decision: 'allow' })
      expect(p.result.stdout).toContain('"tool_name":"exec"')
    },
  },
  {
    name: 'hooks.test: a block reads as decision "block" with the reason',
    method: 'hooks.test',
    params: () => ({
      config: {
        event: 'pre_tool_use',
        handler_type: 'command',
        scope: 'tenant',
        config: { command: 'echo nope >&2; exit 2' },
      },
      sampleEvent: { toolName: 'exec', toolInput: { cmd: 'rm -rf /' } },
    }),
    expect: (p) => expect(p.result).toMatchObject({ decision: 'block', reason: 'nope' }),
  },
  {
    name: 'hooks.history {hookId} answers {executions, nextCursor}',
    method: 'hooks.history',
    params: () => ({ hookId: ids.command }),
    expect: (p) => expect(p).toMatchObject({ executions: [], nextCursor: '' }),
  },
  {
    name: 'hooks.delete {hookId} answers {hookId}',
    method: 'hooks.delete',
    params: () => ({ hookId: ids.agent }),
    expect: (p) => expect(p).toMatchObject({ hookId: ids.agent }),
  },
  {
    name: 'a master token creates a global hook',
    as: () => master,
    method: 'hooks.create',
    params: () => ({
      event: 'stop',
      handler_type: 'http',
      scope: 'global',
      name: 'on-stop',
      config: { url: 'https://example.com/stop' },
    }),
    expect: (p) => expect(p).toMatchObject({ hookId: 'on-stop', scope: 'global', event: 'stop' }),
  },
]

describe('GoClaw /ws requests against warden serve', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const res = await (row.as?.() ?? admin).call(row.method, row.params())
      expect(res.error).toBeUndefined()
      row.expect(res.payload)
    })
  }

  const refused: [string, () => WsClient, string, Loose, string][] = [
    [
      'a viewer may not create',
      () => viewer,
      'hooks.create',
      { event: 'stop', handler_type: 'http', scope: 'tenant', config: { url: 'https://e.com' } },
      'forbidden',
    ],
    [
      'a tenant token may not create a global hook',
      () => admin,
      'hooks.create',
      { event: 'stop', handler_type: 'http', scope: 'global', config: { url: 'https://e.com' } },
      'forbidden',
    ],
    [
      'another tenant is refused',
      () => admin,
      'hooks.create',
      {
        event: 'stop',
        handler_type: 'http',
        scope: 'tenant',
        tenant_id: 'other',
        config: { url: 'https://e.com' },
      },
      'forbidden',
    ],
    [
      'a bad timeout names the field',
      () => admin,
      'hooks.create',
      {
        event: 'stop',
        handler_type: 'http',
        scope: 'tenant',
        timeout_ms: 20_000,
        config: { url: 'https://e.com' },
      },
      'invalid-params',
    ],
    [
      'another tenant’s hookId is not found',
      () => admin,
      'hooks.toggle',
      { hookId: 'on-stop', enabled: false },
      'not-found',
    ],
    [
      'an empty update is refused',
      () => admin,
      'hooks.update',
      { hookId: 'acme/no-long-exec', updates: {} },
      'invalid-params',
    ],
  ]
  for (const [label, as, method, params, code] of refused) {
    it(`refuses as GoClaw does: ${label}`, async () => {
      const res = await as().call(method, params)
      expect(res.ok).toBe(false)
      expect(res.error?.code).toBe(code)
    })
  }

  it("Warden's own shapes still work beside GoClaw's", async () => {
    const created = await admin.ok('hooks.create', {
      name: 'native',
      event: 'tool.pre',
      handler: { type: 'deny', reason: 'native' },
    })
    expect(created.id).toBe('acme/native')
    expect(created.hookId).toBeUndefined()
    expect((await admin.ok('hooks.toggle', { id: 'acme/native', enabled: false })).enabled).toBe(false)
  })
})
