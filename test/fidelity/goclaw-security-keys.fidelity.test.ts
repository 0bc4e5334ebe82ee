// The rest of GoClaw's `security.hook.*` log keys, each from a real cause through the
// recorder `warden serve` uses: an event past the sub-agent depth cap
// (`loop_depth_exceeded`), a decision whose audit record cannot be written
// (`audit_write_failed`), an LLM judge answering free text (`prompt_parse_error`, from a
// real Chat Completions server on loopback) and a token ledger that fails before or after
// the call (`budget_precheck_failed`, `budget_deduct_failed`).

import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DispatchInput, HookDefinition, Recorder } from '../../src/core/index.js'
import { createPromptHandler, type TokenLedger } from '../../src/handlers/index.js'
import { createEngine } from '../../src/index.js'
import { createOutboundClient } from '../../src/net/index.js'
import { createLogger, SECURITY_HOOK_EVENTS, securityLogRecorder } from '../../src/observability/index.js'
import { decideAnswer, type FakeLlm, reply, startFakeLlm, textAnswer } from '../handlers/prompt-fake-llm.js'

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

const judge: HookDefinition = {
  name: 'judge',
  event: 'tool.pre',
  matcher: 'exec',
  handler: { type: 'prompt', prompt: 'Deny destructive commands.' },
}
const exec = {
  event: 'tool.pre',
  payload: { tool: { name: 'exec', input: { cmd: 'ls' } } },
  context: { tenantId: 'acme' },
}

let llm: FakeLlm
const client = createOutboundClient({ allow: ['127.0.0.1'] })
beforeAll(async () => {
  llm = await startFakeLlm()
})
afterAll(async () => {
  await client.close()
  await llm.close()
})

const failing = (which: 'used' | 'add'): TokenLedger => ({
  used: () => (which === 'used' ? Promise.reject(new Error('ledger offline')) : 0),
  add: () => (which === 'add' ? Promise.reject(new Error('ledger offline')) : undefined),
})

const rows: {
  name: string
  event: string
  hooks?: HookDefinition[]
  ledger?: TokenLedger
  answer?: 'text' | 'decide'
  input?: DispatchInput
  recorder?: Recorder
}[] = [
  {
    name: 'an event deeper than the sub-agent cap',
    event: SECURITY_HOOK_EVENTS.loopDepthExceeded,
    input: {
      event: 'subagent.start',
      payload: { subagent: { name: 'x' } },
      context: { depth: 3, tenantId: 'acme' },
    },
  },
  {
    name: 'an audit record that cannot be written',
    event: SECURITY_HOOK_EVENTS.auditWriteFailed,
    hooks: [{ name: 'ok', event: 'tool.pre', handler: { type: 'allow' } }],
    recorder: { record: () => Promise.reject(new Error('disk full')) },
  },
  {
    name: 'a judge answering free text',
    event: SECURITY_HOOK_EVENTS.promptParseError,
    hooks: [judge],
    answer: 'text',
  },
  {
    name: 'a budget that cannot be read',
    event: SECURITY_HOOK_EVENTS.budgetPrecheckFailed,
    hooks: [judge],
    ledger: failing('used'),
  },
  {
    name: 'tokens that cannot be counted',
    event: SECURITY_HOOK_EVENTS.budgetDeductFailed,
    hooks: [judge],
    ledger: failing('add'),
  },
]

describe('security.hook.* keys GoClaw logs', () => {
  it.each(rows)('$name', async (row) => {
    llm.script = (_r, res) =>
      reply(
        res,
        row.answer === 'text'
          ? textAnswer('looks fine to me')
          : decideAnswer({ decision: 'allow', reason: 'ok', injection_detected: false }),
      )
    const { logger, lines } = memoryLogger()
    const engine = createEngine({
      hooks: row.hooks ?? [],
      handlers: [
        createPromptHandler({
          client,
          judge: { baseUrl: llm.baseUrl, model: 'm' },
          ...(row.ledger ? { ledger: row.ledger } : {}),
        }),
      ],
      recorder: securityLogRecorder(logger, row.recorder ?? { record() {} }),
    })
    try {
      const decision = await engine.dispatch(row.input ?? exec)
      expect(decision.decision).toBe('deny')
      const security = lines.filter((l) => String(l.event).startsWith('security.hook.'))
      expect(security.map((l) => l.event)).toEqual([row.event])
      expect(security[0]).toMatchObject({
        hook_event: (row.input?.event as string) ?? 'tool.pre',
        decision_id: decision.id,
      })
      expect(Number(security[0]?.level)).toBeGreaterThanOrEqual(40)
    } finally {
      await engine.close()
    }
  })
})
