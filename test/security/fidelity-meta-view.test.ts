// The meta-policy view (AI Harness: a script reads the other loaded hooks), attacked: a
// script of one tenant lists the global hooks and its own tenant's, never another tenant's;
// it sees no handler settings (a webhook's URL and secret header, another script's text, a
// command line) nor where the host keeps hook files; what it is given is frozen, so writing
// to it fails the hook closed and changes nothing a later call or another hook sees; and a Markdown hook file in
// Harness's format uses it to refuse running while a guard hook is switched off.

import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CheckedEvent } from '../../src/core/index.js'
import { buildEngine, loadHookFile, parseConfig } from '../../src/sources/index.js'

const CONFIG = `
hooks:
  - name: meta
    event: tool.pre
    matcher: "^list$"
    handler:
      type: script
      source: |
        def handle(event, payload):
            listed = hooks.list()
            if payload["args"].get("tamper"):
                listed[0]["name"] = "tampered"
                listed.append({"name": "planted"})
                return allow()
            return block("seen: " + ",".join([h["name"] + "=" + str(h["tenant"]) for h in hooks.list()]) + " | " + str(listed))
  - name: global-webhook
    event: tool.pre
    matcher: "^never$"
    source: /srv/warden/secret-layout/hooks.yaml
    handler: { type: http, url: "http://127.0.0.1:9/hook?key=url-secret-123", secretHeaders: { Authorization: "Bearer header-secret-456" } }
  - name: acme-guard
    event: tool.pre
    matcher: "^never$"
    scope: { tenant: acme }
    handler: { type: command, command: "echo command-secret-789" }
  - name: globex-guard
    event: tool.pre
    matcher: "^never$"
    scope: { tenant: globex }
    handler:
      type: script
      source: |
        def handle(event, payload):
            return block("script-secret-000")
`

function listEvent(tenant: string, args: Record<string, unknown> = {}): CheckedEvent {
  return {
    event: 'tool.pre',
    payload: { tool: { name: 'list', input: args } },
    context: { tenantId: tenant },
  } as unknown as CheckedEvent
}

describe('the loaded-hooks view a script reads (hooks.list)', () => {
  const engine = buildEngine(parseConfig(CONFIG, '/tmp'), { env: {} })

  it("lists the global hooks and the caller tenant's, never another tenant's", async () => {
    const acme = await engine.dispatch(listEvent('acme'))
    expect(acme.decision).toBe('deny')
    for (const seen of ['meta=None', 'global-webhook=None', 'acme-guard=acme'])
      expect(acme.reason).toContain(seen)
    expect(acme.reason).not.toContain('globex')
    const globex = await engine.dispatch(listEvent('globex'))
    expect(globex.reason).toContain('globex-guard=globex')
    expect(globex.reason).not.toContain('acme-guard')
  })

  it('shows no handler settings, secrets or host paths', async () => {
    for (const tenant of ['acme', 'globex', '']) {
      const decision = await engine.dispatch(listEvent(tenant))
      const text = JSON.stringify(decision)
      for (const secret of ['url-secret-123', 'header-secret-456', 'command-secret-789', 'script-secret-000'])
        expect(text).not.toContain(secret)
      expect(text).not.toContain('/srv/warden')
      expect(decision.reason).toContain('"handler": "http"')
      expect(decision.reason).toContain('"source": "hooks.yaml"')
    }
  })

  it('is read-only: writing to it fails the hook closed and changes nothing', async () => {
    const tampered = await engine.dispatch(listEvent('acme', { tamper: true }))
    expect(tampered.decision).toBe('deny')
    expect(tampered.reason).toContain('frozen')
    const after = await engine.dispatch(listEvent('acme'))
    expect(after.reason).not.toContain('tampered')
    expect(after.reason).not.toContain('planted')
    expect(engine.hooks().map((h) => h.name)).not.toContain('tampered')
  })
})

describe('a Harness hook file with a meta-policy', () => {
  it('refuses while a guard hook is switched off, and allows once it is on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-meta-'))
    writeFileSync(
      join(dir, 'meta.md'),
      `---
name: guard-must-be-on
event: tool.pre
priority: 1
script: |
  def handle(event, payload):
      for h in hooks.list():
          if h["name"] == "no-rm" and not h["enabled"]:
              return block("the guard no-rm is switched off")
      return allow()
---
Refuses every tool call while the no-rm guard is switched off.
`,
    )
    const loaded = await loadHookFile(join(dir, 'meta.md'))
    expect(loaded.problems).toEqual([])
    const guard = {
      name: 'no-rm',
      event: 'tool.pre',
      matcher: '^rm$',
      handler: { type: 'deny', reason: 'no rm' },
    }
    const engine = buildEngine(parseConfig('hooks: []\n', '/tmp'), {
      env: {},
      extraHooks: [loaded.hook!, guard as never],
    })
    const read = { event: 'tool.pre', payload: { tool: { name: 'read', input: {} } }, context: {} }
    expect((await engine.dispatch(read as unknown as CheckedEvent)).decision).toBe('allow')
    engine.register({ ...guard, enabled: false } as never, { replace: true })
    const refused = await engine.dispatch(read as unknown as CheckedEvent)
    expect(refused.decision).toBe('deny')
    expect(refused.reason).toContain('the guard no-rm is switched off')
  })
})
