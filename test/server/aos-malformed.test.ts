// The malformed-request corpus (test/fixtures/aos/malformed.json): each case gets its
// JSON-RPC error code, a `data.field` naming what was wrong, the right id — and the server
// keeps answering afterwards.

import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startGuardian, type TestGuardian } from './aos-helper.js'

interface MalformedCase {
  name: string
  raw?: string
  hex?: string
  json?: unknown
  headers?: Record<string, string>
  code: number
  field: string
  id: string | number | null
}

const corpus = JSON.parse(
  readFileSync(new URL('../fixtures/aos/malformed.json', import.meta.url), 'utf8'),
) as {
  cases: MalformedCase[]
}

let guardian: TestGuardian
beforeAll(async () => {
  guardian = await startGuardian({
    hooks: [
      { name: 'allow-all', event: 'tool.pre', handler: { type: 'fn', fn: () => ({ decision: 'allow' }) } },
    ],
  })
})
afterAll(async () => {
  await guardian.close()
})

describe('malformed requests', () => {
  it('has at least 30 cases', () => {
    expect(corpus.cases.length).toBeGreaterThanOrEqual(30)
  })

  for (const testCase of corpus.cases) {
    it(`${testCase.name} → ${testCase.code} naming ${testCase.field}`, async () => {
      const body =
        testCase.hex !== undefined
          ? Buffer.from(testCase.hex, 'hex')
          : testCase.raw !== undefined
            ? testCase.raw
            : JSON.stringify(testCase.json)
      const answer = await guardian.post(body, testCase.headers)
      expect(answer.body, JSON.stringify(answer.body)).toMatchObject({
        jsonrpc: '2.0',
        id: testCase.id,
        error: { code: testCase.code, data: { field: testCase.field, reason: expect.any(String) } },
      })
      expect(answer.body.error.data.reason.length).toBeGreaterThan(5)
    })
  }

  it('keeps serving after every malformed request', async () => {
    const answer = await guardian.post({ jsonrpc: '2.0', id: 'after', method: 'ping' })
    expect(answer.body.result.status).toBe('connected')
  })

  it('answers a body that claims a huge length without reading it', async () => {
    const small = await startGuardian({ bodyLimitBytes: 1024 })
    try {
      const answer = await small.post(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'ping',
          params: { metadata: { pad: 'y'.repeat(5000) } },
        }),
      )
      expect(answer.status).toBe(413)
      expect(answer.body.error).toMatchObject({ code: -32600, data: { field: 'body' } })
    } finally {
      await small.close()
    }
  })
})
