// Packs in warden.yaml: each pack adds its hooks (source builtin:<pack>), a hook of the same
// name under `hooks:` overrides only the fields it gives (handler options merge), a pack
// entry can set action/options/enabled for all its hooks, and unknown packs are refused.

import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/index.js'
import { PACK_NAMES, PACKS, parseConfig } from '../../src/sources/index.js'

const load = (yaml: string) => parseConfig(yaml, '/tmp', 'warden.yaml')

describe('packs', () => {
  it('name the six built-in packs, each with detector hooks', () => {
    expect(PACK_NAMES).toEqual([
      'shell-safety',
      'secrets',
      'pii',
      'egress',
      'protected-paths',
      'prompt-injection',
    ])
    for (const pack of Object.values(PACKS))
      for (const hook of pack.hooks) expect(hook.handler.type).toBe('detector')
  })

  it('add their hooks with source builtin:<pack>, and every one of them registers', () => {
    const config = load(
      `packs: [${PACK_NAMES.join(', ')}]\nhooks:\n  - { name: mine, event: tool.pre, handler: { type: allow } }\n`,
    )
    const builtin = config.hooks.filter((h) => h.source?.startsWith('builtin:'))
    expect(builtin.map((h) => h.name)).toEqual(
      Object.values(PACKS).flatMap((p) => p.hooks.map((h) => h.name)),
    )
    expect(config.hooks.find((h) => h.name === 'secrets:tool-output')?.source).toBe('builtin:secrets')
    expect(config.hooks.at(-1)).toMatchObject({ name: 'mine', source: 'warden.yaml' })
    const engine = createEngine({ hooks: config.hooks })
    expect(engine.hooks().map((h) => h.id)).toEqual(
      expect.arrayContaining(['shell-safety:destructive-commands', 'mine']),
    )
  })

  it('let a hook of the same name override fields and merge handler options', async () => {
    const config = load(`packs: [egress, secrets]
hooks:
  - name: egress:tool-input
    priority: -5
    handler: { action: ask, options: { allow: [github.com] } }
  - name: secrets:agent-response
    enabled: false
`)
    const egress = config.hooks.find((h) => h.name === 'egress:tool-input')
    expect(egress).toMatchObject({
      event: 'tool.pre',
      priority: -5,
      source: 'builtin:egress',
      handler: { type: 'detector', detector: 'egress', action: 'ask', options: { allow: ['github.com'] } },
    })
    expect(config.hooks.filter((h) => h.name === 'egress:tool-input')).toHaveLength(1)
    expect(config.hooks.find((h) => h.name === 'secrets:agent-response')?.enabled).toBe(false)
    const engine = createEngine({ hooks: config.hooks })
    const decision = await engine.dispatch({
      event: 'agent.response',
      payload: { message: { role: 'agent', text: 'key AKIAZ7QX3V5N2M4K6J2H' } },
    })
    expect(decision.decision).toBe('allow')
  })

  it('take action, options and enabled for all their hooks from an entry', () => {
    const config = load(
      'packs:\n  - { name: pii, action: deny, options: { kinds: [email] } }\n  - { name: secrets, enabled: false }\n',
    )
    for (const name of ['pii:tool-output', 'pii:agent-response'])
      expect(config.hooks.find((h) => h.name === name)?.handler).toMatchObject({
        action: 'deny',
        options: { kinds: ['email'] },
      })
    expect(config.hooks.filter((h) => h.source === 'builtin:secrets').every((h) => h.enabled === false)).toBe(
      true,
    )
  })

  it('refuse an unknown pack, naming the known ones', () => {
    expect(() => load('packs: [shell-safety, shel]\n')).toThrow(
      /packs\[1\] "shel" is not a known pack; use one of shell-safety, secrets, pii, egress, protected-paths, prompt-injection/,
    )
    expect(() => load('packs: [constructor]\n')).toThrow(/"constructor" is not a known pack/)
    expect(() => load('packs: shell-safety\n')).toThrow(/packs must be a list of pack names/)
  })
})
