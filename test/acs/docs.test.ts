// docs/acs.md: the configuration block a user pastes is loaded and resolved as Warden
// would, and the documented choice on bare wrapped-MCP messages holds (extend_mcp.md vs §3).

import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { canonicalJson, flatCanonical, resolveAcsSettings } from '../../src/protocols/acs/index.js'
import { type AcsGuardian, startAcs } from './helper.js'

const DOC = readFileSync(new URL('../../docs/acs.md', import.meta.url), 'utf8')

let g: AcsGuardian | undefined
afterEach(async () => {
  await g?.close()
  g = undefined
})

describe('docs/acs.md', () => {
  it('the configuration block resolves: two keys, the old one with its rotation end', () => {
    const block = /```yaml\n([\s\S]*?)```/.exec(DOC)?.[1]
    expect(block).toBeDefined()
    const settings = resolveAcsSettings(parse(block as string).acs, undefined, {
      ACS_KEY_K2: 'new',
      ACS_KEY_K1: 'old',
    })
    expect(settings.keys.map((k) => k.id)).toEqual(['k2', 'k1'])
    expect(settings.keys[1]?.notAfter).toBe(Date.parse('2026-12-01T00:00:00Z'))
    expect(settings.requireSignatures).toBe(true)
    expect(() => resolveAcsSettings(parse(block as string).acs, undefined, {})).toThrow(
      /ACS_KEY_K2 is not set/,
    )
  })

  it('extend_mcp.md example form (bare MCP message as params) is refused -32602 naming the envelope field', async () => {
    g = await startAcs({ settings: { requireHandshake: false } })
    const { body } = await g.post({
      jsonrpc: '2.0',
      id: 70,
      method: 'protocols/MCP/tools/call',
      params: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_weather', arguments: { city: 'Barcelona' } },
      },
    })
    expect(body.error.code).toBe(-32602)
    expect(body.error.message).toMatch(/params\.acs_version/)
  })

  it('§8.2 the flat fast path of the chain hash equals RFC 8785 canonicalization', () => {
    const entry = {
      step_type: 'steps/toolCallRequest',
      entry_id: randomUUID(),
      b: 'é\u2028"\\',
      a: '\ud83d\ude00',
    }
    expect(flatCanonical(entry)).toBe(canonicalJson(entry))
    expect(flatCanonical({ a: 1 })).toBeUndefined()
    expect(flatCanonical({ a: '\ud800' })).toBeUndefined()
  })
})
