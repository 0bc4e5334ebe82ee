// The ACS session state a cluster shares (migration 0013_acs_session_state), attacked on a
// real SQLite store: two tenants using the same session id never see or change each other's
// handshake, Intent, extensions, pending ASK or deferral count; an approver's answer is taken
// once even when two instances race for it; a first Intent kept is never replaced; a request
// id is remembered once across instances until it expires.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AcsSessionState, PendingAskRecord } from '../../src/protocols/acs/index.js'
import { openAcsLedger, type SqlAcsLedger } from '../../src/server/index.js'
import { openStore, type Store } from '../../src/store/index.js'

const dir = mkdtempSync(join(tmpdir(), 'warden-acs-state-'))
const file = join(dir, 'warden.db')
let store: Store
let first: SqlAcsLedger
let second: SqlAcsLedger
let a: AcsSessionState
let b: AcsSessionState

beforeAll(async () => {
  store = await openStore(file, { cwd: dir })
  first = openAcsLedger(file)
  second = openAcsLedger(file)
  a = first.sessions as AcsSessionState
  b = second.sessions as AcsSessionState
})
afterAll(async () => {
  await Promise.all([first.close(), second.close(), store.close()])
  rmSync(dir, { recursive: true, force: true })
})

const ASK: PendingAskRecord = {
  method: 'steps/toolCallRequest',
  capability: 'network.egress',
  agentId: 'agent-1',
  requestHash: 'h'.repeat(64),
  approverId: 'approver-1',
  expiresAt: Date.now() + 60_000,
}

describe('ACS session state shared on the database', () => {
  it('keeps two tenants apart under the same session id', async () => {
    const acme = { tenant: 'acme', session: 'session-1' }
    const globex = { tenant: 'globex', session: 'session-1' }
    await a.claimHandshake(acme, { methods: ['steps/toolCallRequest'], terms: 'acme-terms' })
    await a.establishIntent(acme, '{"parsed":["filesystem.read"],"scope_mode":"strict"}')
    await a.extendIntent(acme, { capabilities: ['network.egress'], scope: 'session' })
    await a.raiseAsk(acme, 'step-1', ASK)
    await a.countDeferral(acme)

    expect(await b.load(globex)).toEqual({ deferrals: 0 })
    expect(await b.pendingAsk(globex, 'step-1')).toBeUndefined()
    expect(await b.takeAsk(globex, 'step-1')).toBe(false)
    expect(await b.claimHandshake(globex, { methods: null, terms: 'globex-terms' })).toEqual({
      methods: null,
      terms: 'globex-terms',
    })
    expect(await b.establishIntent(globex, '{"parsed":["*"],"scope_mode":"permissive"}')).toBe(
      '{"parsed":["*"],"scope_mode":"permissive"}',
    )

    const kept = await b.load(acme)
    expect(kept.handshake).toEqual({ methods: ['steps/toolCallRequest'], terms: 'acme-terms' })
    expect(kept.intent).toEqual({
      canonical: '{"parsed":["filesystem.read"],"scope_mode":"strict"}',
      extensions: [{ capabilities: ['network.egress'], scope: 'session' }],
    })
    expect(kept.deferrals).toBe(1)
    expect(await b.pendingAsk(acme, 'step-1')).toEqual(ASK)
  })

  it('gives an approver answer to one taker and keeps the first handshake and Intent', async () => {
    const ref = { tenant: '', session: 'session-2' }
    await a.raiseAsk(ref, 'step-9', ASK)
    const taken = await Promise.all([a.takeAsk(ref, 'step-9'), b.takeAsk(ref, 'step-9')])
    expect(taken.filter(Boolean)).toHaveLength(1)
    expect(await a.pendingAsk(ref, 'step-9')).toBeUndefined()

    const claimed = await Promise.all([
      a.claimHandshake(ref, { methods: null, terms: 'first' }),
      b.claimHandshake(ref, { methods: null, terms: 'second' }),
    ])
    expect(claimed[0]).toEqual(claimed[1])
    expect(await b.establishIntent(ref, 'one')).toBe('one')
    expect(await a.establishIntent(ref, 'other')).toBe('one')
    await Promise.all([a.countDeferral(ref), b.countDeferral(ref), a.countDeferral(ref)])
    expect((await b.load(ref)).deferrals).toBe(3)
  })

  it('remembers a request id once across instances until it expires, then takes it over', async () => {
    const t = Date.now()
    expect(await first.remember('r:replay-1', t + 1000, t)).toBe(true)
    expect(await second.remember('r:replay-1', t + 1000, t + 10)).toBe(false)
    expect(await first.remember('r:replay-1', t + 1000, t + 999)).toBe(false)
    // Past its expiry the id is free again, for one taker only.
    const taken = await Promise.all([
      first.remember('r:replay-1', t + 5000, t + 1000),
      second.remember('r:replay-1', t + 5000, t + 1000),
    ])
    expect(taken.filter(Boolean)).toHaveLength(1)
    expect(await second.remember('r:replay-1', t + 5000, t + 2000)).toBe(false)
  })
})
