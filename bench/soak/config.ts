// The warden.yaml the soak serves: the command hook faults are injected into (its mode read
// from a file), the webhook hook, a deny rule, a tenant-scoped hook; a breaker that trips
// after 5 failures in 30 s; the audit mode asked for.

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './warden.js'

/** Failures in the breaker's window that open it (per hook and tenant). */
export const BREAKER_FAILURES = 5

/** The async audit interval the soak configures; the documented loss window after kill -9. */
export const ASYNC_INTERVAL_MS = 100

/** Writes warden.yaml into `dir`; returns its path. */
export function writeConfig(
  dir: string,
  mode: 'sync' | 'async',
  webhookPort: number,
  modeFile: string,
): string {
  const hook = join(ROOT, 'bench/soak/faulty-hook.sh')
  const audit = mode === 'sync' ? 'sync' : `{ mode: async, intervalMs: ${ASYNC_INTERVAL_MS} }`
  const config = `# written by the soak
limits: { chainBudgetMs: 3000, breaker: { failures: ${BREAKER_FAILURES}, windowMs: 30000 } }
audit: ${audit}
network: { allow: ["127.0.0.1"] }
hooks:
  - name: soak-cmd
    event: tool.pre
    matcher: "^soak_cmd$"
    timeoutMs: 300
    handler: { type: command, command: /bin/sh, args: [${JSON.stringify(hook)}, ${JSON.stringify(modeFile)}] }
  - name: soak-web
    event: tool.pre
    matcher: "^soak_web$"
    timeoutMs: 2500
    handler: { type: http, url: "http://127.0.0.1:${webhookPort}/hook" }
  - name: no-rm
    event: tool.pre
    if: "has(tool_input.cmd) && tool_input.cmd.contains('rm -rf')"
    handler: { type: deny, reason: "no rm -rf" }
  - name: tenant-t3-no-memory
    event: memory.store
    scope: { tenant: t3 }
    handler: { type: deny, reason: "t3 stores no memories" }
`
  const path = join(dir, 'warden.yaml')
  writeFileSync(path, config)
  return path
}
