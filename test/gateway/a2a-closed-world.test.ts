// The closed world of `warden a2a` against the official @a2a-js/sdk's own definitions: every
// method its A2A service declares (current and v0.3 names), every part content and every
// streamed answer kind its types declare (`$case` of the current spec's oneofs, `kind` of the
// v0.3 types) is in a table, so a new SDK version adding one fails here until it is mapped or
// refused. Also: answers of unknown kinds are refused or let through by the setting, the
// setting refuses keys it cannot honour, and docs/a2a-gateway.md lists the tables as they are.

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import * as legacy from '@a2a-js/sdk/compat/v0_3'
import { describe, expect, it } from 'vitest'
import type { JsonObject } from '../../src/core/index.js'
import {
  A2A_EVENT_TABLE,
  A2A_METHOD_TABLE,
  A2A_PART_TABLE,
  a2aLimits,
  a2aTablesMarkdown,
  a2aUnknownTypePolicy,
  answerShape,
  REFUSE_UNKNOWN,
} from '../../src/gateway/index.js'
import { ROOT } from '../helpers/cli.js'
import { sdkTypeLiterals } from './sdk-types.js'

const sdkDist = dirname(createRequire(import.meta.url).resolve('@a2a-js/sdk'))

describe('the A2A tables cover what the official SDK declares', () => {
  it('maps every method of the A2A service, in the current and the v0.3 names', () => {
    const grpc = readFileSync(join(sdkDist, 'server/grpc/index.d.ts'), 'utf8')
    const current = [...new Set([...grpc.matchAll(/"\/lf\.a2a\.v1\.A2AService\/(\w+)"/g)].map((m) => m[1]))]
    expect(current.length).toBeGreaterThan(8)
    const v03 = Object.entries(legacy)
      .filter(([name]) => name.startsWith('LEGACY_METHOD_'))
      .map(([, value]) => String(value))
    expect(v03).toContain('message/send')
    for (const method of [...current, ...v03])
      expect(A2A_METHOD_TABLE.rules, method).toHaveProperty([method as string])
  })

  it('maps every part content and streamed answer kind of the current spec', () => {
    const parts = sdkTypeLiterals({
      module: '@a2a-js/sdk',
      type: 'Part',
      member: 'content',
      discriminant: '$case',
    })
    expect(parts).toEqual(['data', 'raw', 'text', 'url'])
    for (const type of parts) expect(A2A_PART_TABLE.rules[type]?.kind, type).toBe('checked')
    const streamed = sdkTypeLiterals({
      module: '@a2a-js/sdk',
      type: 'StreamResponse',
      member: 'payload',
      discriminant: '$case',
    })
    const sent = sdkTypeLiterals({
      module: '@a2a-js/sdk',
      type: 'SendMessageResponse',
      member: 'payload',
      discriminant: '$case',
    })
    for (const type of [...streamed, ...sent]) expect(A2A_EVENT_TABLE.rules[type]?.kind, type).toBe('checked')
  })

  it("maps every v0.3 `kind` the SDK's compat types declare", () => {
    const types = readFileSync(join(sdkDist, 'compat/v0_3/server/index.d.ts'), 'utf8')
    const kinds = [...new Set([...types.matchAll(/^\s+kind: "([\w-]+)";$/gm)].map((m) => m[1] as string))]
    expect(kinds).toEqual(
      expect.arrayContaining(['text', 'file', 'data', 'status-update', 'artifact-update']),
    )
    for (const kind of kinds) {
      const known = Object.hasOwn(A2A_PART_TABLE.rules, kind) || Object.hasOwn(A2A_EVENT_TABLE.rules, kind)
      expect(known, kind).toBe(true)
    }
  })
})

describe('answers in the closed world', () => {
  const task = (parts: JsonObject[]): JsonObject => ({
    task: {
      id: 't1',
      contextId: 'c',
      status: { state: 'TASK_STATE_COMPLETED' },
      artifacts: [{ artifactId: 'a', parts }],
    },
  })

  it('refuses an answer or streamed event of an unknown kind, naming it', () => {
    const verdict = answerShape('stream', { kind: 'progress-update', taskId: 't1' }, REFUSE_UNKNOWN)
    expect(verdict).toMatchObject({ ok: false })
    expect(!verdict.ok && verdict.reason).toContain('"progress-update"')
    const wrapped = answerShape('send', { progressUpdate: { taskId: 't1' } }, REFUSE_UNKNOWN)
    expect(!wrapped.ok && wrapped.reason).toContain('"progressUpdate"')
  })

  it('refuses unknown parts and mistyped text inside a task, and lets a listed type through', () => {
    expect(answerShape('get', task([{ text: 'fine' }]), REFUSE_UNKNOWN)).toEqual({ ok: true, letThrough: [] })
    const unknown = answerShape('get', task([{ image: 'x' }]), REFUSE_UNKNOWN)
    expect(!unknown.ok && unknown.reason).toContain('result.artifacts[0].parts[0]')
    const mistyped = answerShape('get', task([{ text: { secret: 'k' } }]), REFUSE_UNKNOWN)
    expect(!mistyped.ok && mistyped.reason).toContain(
      'result.artifacts[0].parts[0].text must be a string (got an object)',
    )
    const v03Only = answerShape('get', task([{ file: { uri: 'https://example.com/x' } }]), REFUSE_UNKNOWN)
    expect(!v03Only.ok && v03Only.reason).toContain('has file but no kind')
    const policy = a2aUnknownTypePolicy(['a2a/part/image'])
    expect(answerShape('get', task([{ image: 'x' }]), policy)).toEqual({
      ok: true,
      letThrough: ['a2a/part/image'],
    })
  })

  it('refuses settings it cannot honour, naming them', () => {
    expect(() => a2aLimits({ allowUnknownTypes: ['a2a/method/Exec'] })).toThrow(/cannot be let through/)
    expect(() => a2aLimits({ allowUnknownTypes: ['image'] })).toThrow(/not protocol\/place\/type/)
    expect(a2aLimits({ allowUnknownTypes: ['a2a/event/progress-update'] }).allowUnknownTypes).toEqual([
      'a2a/event/progress-update',
    ])
  })
})

describe('docs/a2a-gateway.md', () => {
  it('lists every table entry as the tables say', () => {
    const doc = readFileSync(`${ROOT}docs/a2a-gateway.md`, 'utf8')
    const section = /<!-- a2a-tables:start -->\n([\s\S]*?)<!-- a2a-tables:end -->/.exec(doc)?.[1]
    expect(section).toBe(a2aTablesMarkdown())
  })
})
