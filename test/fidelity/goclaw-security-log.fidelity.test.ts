// `security.hook.*` log lines, GoClaw's keys for hook security events, from real command
// hooks (child processes) through the recorder `warden serve` uses: one line per hook that
// blocked (info), timed out, failed or answered garbage, was refused by its open breaker or
// its per-turn cap (warn), and one per breaker trip; nothing for hooks that allowed. Lines
// name the hook, the event and the decision, never the payload, and secrets are masked.

import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { type HookDefinition, MemoryBreakerState } from '../../src/core/index.js'
import { commandHandler } from '../../src/handlers/index.js'
import { createEngine } from '../../src/index.js'
import { createLogger, SECURITY_HOOK_EVENTS, securityLogRecorder } from '../../src/observability/index.js'

/** A logger writing JSON lines into `lines`. */
function memoryLogger() {
  const lines: Record<string, unknown>[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    },
  })
  return { logger: createLogger({ level: 'info', destination }), lines }
}

const hook = (command: string, extra: Partial<HookDefinition> = {}): HookDefinition => ({
  name: 'guard',
  event: 'tool.pre',
  handler: { type: 'command', command, shell: true },
  ...extra,
})

const SECRET_PAYLOAD = 'payload-secret-do-not-log'

const rows: {
  name: string
  hook: HookDefinition
  runs: number
  /** The `event` of each security line, in order. */
  events: string[]
  level?: number
  /** Failures that trip the breaker (default 5). */
  trips?: number
}[] = [
  {
    name: 'a block',
    hook: hook('echo no >&2; exit 2'),
    runs: 1,
    events: [SECURITY_HOOK_EVENTS.blocked],
    level: 30,
  },
  { name: 'an allow logs nothing', hook: hook('exit 0'), runs: 1, events: [] },
  {
    name: 'a timeout',
    hook: hook('sleep 5', { timeoutMs: 50 }),
    runs: 1,
    events: [SECURITY_HOOK_EVENTS.timeout],
    level: 40,
  },
  {
    name: 'a crash',
    hook: hook('exit 1', { onError: 'allow' }),
    runs: 1,
    events: [SECURITY_HOOK_EVENTS.error],
    level: 40,
  },
  { name: 'garbage', hook: hook("printf '{nope'"), runs: 1, events: [SECURITY_HOOK_EVENTS.error], level: 40 },
  {
    name: 'a per-turn cap',
    hook: hook('exit 0', { maxInvocationsPerTurn: 1 }),
    runs: 2,
    events: [SECURITY_HOOK_EVENTS.turnCap],
    level: 40,
  },
  {
    name: 'a trip, then the open breaker',
    hook: hook('exit 1'),
    runs: 2,
    events: [
      SECURITY_HOOK_EVENTS.circuitBreaker,
      SECURITY_HOOK_EVENTS.error,
      SECURITY_HOOK_EVENTS.circuitOpen,
    ],
    trips: 1,
  },
]

describe('security.hook.* lines', () => {
  it.each(rows)('$name', async ({ hook: definition, runs, events, level, trips }) => {
    const { logger, lines } = memoryLogger()
    const engine = createEngine({
      hooks: [definition],
      handlers: [commandHandler],
      breaker: new MemoryBreakerState({ failures: trips ?? 5, windowMs: 60_000 }),
      recorder: securityLogRecorder(logger, { record() {} }, { disableOnTrip: true }),
    })
    try {
      for (let i = 0; i < runs; i++) {
        await engine.dispatch({
          event: 'tool.pre',
          payload: { tool: { name: 'exec', input: { cmd: SECRET_PAYLOAD } } },
          context: { turnId: 't1', tenantId: 'acme', agent: { id: 'a1' }, session: { id: 's1' } },
        })
      }
      await new Promise((resolve) => setImmediate(resolve))
      const security = lines.filter((l) => String(l.event).startsWith('security.hook.'))
      expect(security.map((l) => l.event)).toEqual(events)
      for (const line of security) {
        expect(line).toMatchObject({ hook_id: 'guard', hook_event: 'tool.pre' })
        if (line.event !== SECURITY_HOOK_EVENTS.circuitBreaker)
          expect(line).toMatchObject({
            tenant_id: 'acme',
            agent_id: 'a1',
            session_id: 's1',
            handler: 'command',
          })
      }
      if (level !== undefined) expect(security[0]?.level).toBe(level)
      expect(JSON.stringify(lines)).not.toContain(SECRET_PAYLOAD)
    } finally {
      await engine.close()
    }
  })

  it('masks secrets in reasons and cuts them to 256 characters', async () => {
    const { logger, lines } = memoryLogger()
    const long = 'x'.repeat(600)
    const engine = createEngine({
      hooks: [hook(`echo 'see https://ops:hunter2@vault.example/k Bearer abc.def ${long}' >&2; exit 2`)],
      handlers: [commandHandler],
      recorder: securityLogRecorder(logger, { record() {} }),
    })
    try {
      await engine.dispatch({ event: 'tool.pre', payload: { tool: { name: 'exec', input: {} } } })
      const line = lines.find((l) => l.event === SECURITY_HOOK_EVENTS.blocked)
      expect(String(line?.reason).length).toBeLessThanOrEqual(256)
      expect(JSON.stringify(lines)).not.toContain('hunter2')
      expect(JSON.stringify(lines)).not.toContain('abc.def')
    } finally {
      await engine.close()
    }
  })
})
