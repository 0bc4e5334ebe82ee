// `warden tokens create|list|revoke` on a real SQLite store: the secret printed once and
// only its hash kept, roles and tenants checked, revocation recorded.

import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { TokenAuthority } from '../../src/server/index.js'
import { openStore } from '../../src/store/index.js'
import { runCli } from '../helpers/cli.js'

const db = join(mkdtempSync(join(tmpdir(), 'warden-tokens-')), 'warden.db')

describe('warden tokens', () => {
  it('creates a token whose secret verifies, lists it without the secret, and revokes it', async () => {
    const created = await runCli([
      'tokens',
      'create',
      '--name',
      'ci-bot',
      '--tenant',
      'acme',
      '--role',
      'editor',
      '--json',
      '--db',
      db,
    ])
    expect(created.stderr).toBe('')
    expect(created.code).toBe(0)
    const { id, token } = JSON.parse(created.stdout) as { id: string; token: string }
    expect(token).toMatch(/^wdn_[0-9a-f]{16}_/)

    const listed = await runCli(['tokens', 'list', '--json', '--db', db])
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(rows).toEqual([expect.objectContaining({ id, name: 'ci-bot', tenant: 'acme', role: 'editor' })])
    expect(listed.stdout).not.toContain(token.slice(22))
    expect(listed.stdout).not.toContain('hash')

    const store = await openStore(db)
    const authority = new TokenAuthority(store)
    try {
      expect(await authority.verify(token)).toEqual({
        principal: { tokenId: id, name: 'ci-bot', role: 'editor', tenant: 'acme' },
      })
      expect((await store.getToken(id))?.hash).not.toContain(token.slice(22))
      const revoked = await runCli(['tokens', 'revoke', id, '--db', db])
      expect(revoked.code).toBe(0)
      await new Promise((r) => setTimeout(r, 600))
      expect(await authority.verify(token)).toEqual({ error: 'the access token has been revoked' })
      expect((await runCli(['tokens', 'revoke', id, '--db', db])).code).toBe(1)
    } finally {
      authority.close()
      await store.close()
    }
  })

  it('says what is wrong with a bad request', async () => {
    const role = await runCli(['tokens', 'create', '--name', 'x', '--role', 'root', '--db', db])
    expect(role.code).toBe(1)
    expect(role.stderr).toContain('--role must be one of admin, editor, approver, viewer, agent')
    const name = await runCli(['tokens', 'create', '--db', db])
    expect(name.code).toBe(1)
    expect(name.stderr).toContain('--name')
    const action = await runCli(['tokens', 'rotate', '--db', db])
    expect(action.code).toBe(1)
    expect(action.stderr).toContain('unknown action "rotate"')
  })
})
