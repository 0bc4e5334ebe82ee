// The `prompt` handler: an LLM judge. It sends the hook's policy and only the tool name and
// input (never the user's message) to an OpenAI-compatible Chat Completions endpoint and
// forces a `decide` call. Answers are cached per hook version and input (60 s); judge calls
// are capped per turn and tokens per tenant per month, each with a clear deny reason.
// A hook needs a matcher or `if`, so the judge only runs where it is meant to.

import { z } from 'zod'
import {
  errorMessage,
  formatZodError,
  type HandlerFactory,
  type HookCall,
  type JsonObject,
  toolOf,
  type Verdict,
  WardenError,
  withToolInput,
} from '../core/index.js'
import type { OutboundClient } from '../net/index.js'
import { redactSecrets } from './http.js'
import {
  askJudge,
  type JudgeAnswer,
  JudgeAnswerError,
  type JudgeEndpoint,
  judgeRequest,
} from './prompt-judge.js'
import {
  BUDGET_FAILURE_PREFIX,
  DecisionCache,
  JUDGE_CACHE_TTL_MS,
  JUDGE_CALLS_PER_TURN,
  JUDGE_MONTHLY_TOKENS,
  judgeCacheKey,
  memoryTokenLedger,
  monthOf,
  type TokenLedger,
  TurnCounter,
} from './prompt-limits.js'

/** Largest tool input sent to the judge, as JSON bytes. */
export const JUDGE_MAX_INPUT_BYTES = 32 * 1024

const configSchema = z
  .object({
    type: z.literal('prompt'),
    prompt: z
      .string({
        error: 'is required: the policy the judge applies, e.g. "Deny shell commands that delete files"',
      })
      .min(1, 'must not be empty')
      .max(16_000, 'must be at most 16000 characters'),
    model: z.string().min(1, 'must not be empty').optional(),
    maxTokens: z.number().int().positive().max(32_000).optional(),
  })
  .strict()

export type PromptConfig = z.infer<typeof configSchema>

/** What the prompt handler needs from the runtime. */
export interface PromptHandlerOptions {
  client: OutboundClient
  /** The judge endpoint; without one, prompt hooks are refused at load. */
  judge?: JudgeEndpoint
  cacheTtlMs?: number
  maxCallsPerTurn?: number
  /** Tokens per tenant per calendar month (UTC); 0 = no budget. */
  monthlyTokenBudget?: number
  /**
   * Monthly token budgets of named tenants (GoClaw's `budget_total`), each replacing
   * `monthlyTokenBudget` for its tenant; 0 = no budget for that tenant.
   */
  tenantTokenBudgets?: Readonly<Record<string, number>>
  ledger?: TokenLedger
  maxInputBytes?: number
  now?: () => number
}

/** Creates the `prompt` handler factory (the LLM judge). */
export function createPromptHandler(options: PromptHandlerOptions): HandlerFactory {
  const now = options.now ?? Date.now
  const cache = new DecisionCache(options.cacheTtlMs ?? JUDGE_CACHE_TTL_MS, now)
  const turns = new TurnCounter(options.maxCallsPerTurn ?? JUDGE_CALLS_PER_TURN)
  const budget = options.monthlyTokenBudget ?? JUDGE_MONTHLY_TOKENS
  const tenantBudgets = new Map(Object.entries(options.tenantTokenBudgets ?? {}))
  const ledger = options.ledger ?? memoryTokenLedger()
  const maxInputBytes = options.maxInputBytes ?? JUDGE_MAX_INPUT_BYTES
  const secrets = options.judge?.apiKey ? [options.judge.apiKey] : []
  return {
    type: 'prompt',
    validateHook(hook) {
      if (hook.matcher === undefined && hook.if === undefined) {
        return 'a prompt (LLM judge) hook needs a matcher or an if condition, so the judge only runs for the tool calls it is meant for'
      }
      return undefined
    },
    prepare(config, hook) {
      const parsed = configSchema.safeParse(config)
      if (!parsed.success)
        throw new WardenError('invalid-hook', formatZodError(parsed.error, `hook "${hook.name}": handler`))
      const judge = options.judge
      if (!judge) {
        throw new WardenError(
          'invalid-hook',
          `hook "${hook.name}": handler: a prompt handler needs an LLM judge, and no LLM judge is configured on this Warden; set judge.baseUrl and judge.model in warden.yaml (or WARDEN_JUDGE_BASE_URL and WARDEN_JUDGE_MODEL), or use another handler type`,
        )
      }
      const c = parsed.data
      const endpoint: JudgeEndpoint = { ...judge, model: c.model ?? judge.model }
      return async (call: HookCall) => {
        try {
          return await judgeCall(call, c, endpoint)
        } catch (error) {
          throw new Error(redactSecrets(errorMessage(error), secrets))
        }
      }
    },
  }

  async function judgeCall(call: HookCall, c: PromptConfig, endpoint: JudgeEndpoint): Promise<Verdict> {
    const { event, hook } = call
    const tool = toolOf(event.payload)
    if (!tool)
      throw new Error(`the LLM judge only judges tool calls, and this ${event.event} event carries none`)
    const inputJson = JSON.stringify(tool.input ?? {})
    if (Buffer.byteLength(inputJson) > maxInputBytes) {
      throw new Error(`the tool input is larger than the judge accepts (${maxInputBytes} bytes)`)
    }
    const key = judgeCacheKey(
      hook.id,
      hook.version,
      event.event,
      tool.name,
      tool.input,
      event.context.tenantId,
    )
    const cached = cache.get(key)
    if (cached) {
      call.log('decision taken from the judge cache')
      call.meta?.({ model: endpoint.model, tokens: 0, cached: true })
      call.detail?.({
        judgeDecision: cached.type,
        judgeReason: cached.reason,
        model: endpoint.model,
        cached: true,
      })
      return cached
    }
    const tenant = event.context.tenantId ?? 'default'
    const month = monthOf(now())
    const own = tenantBudgets.get(tenant)
    const limit = own ?? budget
    if (limit > 0) {
      let used: number
      try {
        used = await ledger.used(tenant, month)
      } catch (error) {
        throw new Error(`${BUDGET_FAILURE_PREFIX.precheck}${errorMessage(error)}`)
      }
      if (used >= limit) {
        const setting = own === undefined ? 'judge.monthlyTokenBudget' : `judge.tenantBudgets.${tenant}`
        return {
          type: 'deny',
          reason: `tenant "${tenant}" has used its monthly LLM judge budget (${used} of ${limit} tokens in ${month}); raise ${setting} or wait for next month`,
          reasonCode: ['judge-budget'],
        }
      }
    }
    const turnId = event.context.turnId
    if (turnId !== undefined) {
      const turnKey = `${tenant}\n${event.context.session?.id ?? ''}\n${turnId}`
      if (!turns.take(turnKey)) {
        return {
          type: 'deny',
          reason: `the LLM judge was already asked ${turns.limit} times in turn "${turnId}" (judge.maxCallsPerTurn); denied to bound cost`,
          reasonCode: ['judge-turn-cap'],
        }
      }
    }
    const body = judgeRequest(
      c.prompt,
      { toolName: tool.name, toolInput: tool.input ?? {} },
      endpoint.model,
      c.maxTokens,
    )
    let answer: JudgeAnswer
    try {
      answer = await askJudge(options.client, endpoint, body, call.signal, hook.timeoutMs + 1000)
    } catch (error) {
      // An unusable answer still cost tokens: the budget counts them.
      if (error instanceof JudgeAnswerError) {
        call.meta?.({ model: endpoint.model, tokens: error.tokens })
        await deduct(ledger, tenant, month, error.tokens)
      }
      throw error
    }
    call.meta?.({ model: endpoint.model, tokens: answer.tokens, cached: false })
    await deduct(ledger, tenant, month, answer.tokens)
    call.detail?.({
      judgeDecision: answer.decision,
      judgeReason: answer.reason,
      injectionDetected: answer.injectionDetected,
      model: endpoint.model,
      cached: false,
      tokens: answer.tokens,
    })
    const verdict = toVerdict(answer, event.payload)
    cache.set(key, verdict)
    return verdict
  }
}

/** Maps the judge's decide call onto a verdict; a detected injection always denies. */
export function toVerdict(answer: JudgeAnswer, payload: JsonObject): Verdict {
  if (answer.injectionDetected) {
    return {
      type: 'deny',
      reason: `the LLM judge detected a prompt injection in the tool input: ${answer.reason}`,
      reasonCode: ['prompt-injection'],
    }
  }
  if (answer.decision === 'deny') return { type: 'deny', reason: answer.reason || 'denied by the LLM judge' }
  if (answer.decision === 'ask')
    return { type: 'ask', reason: answer.reason || 'the LLM judge asks for approval' }
  if (answer.updatedInput)
    return { type: 'modify', payload: withToolInput(payload, answer.updatedInput), reason: answer.reason }
  return { type: 'allow', reason: answer.reason }
}

/** Counts a judge call's tokens; a ledger failure names itself (a `budget_deduct_failed` line). */
async function deduct(ledger: TokenLedger, tenant: string, month: string, tokens: number): Promise<void> {
  try {
    await ledger.add(tenant, month, tokens)
  } catch (error) {
    throw new Error(`${BUDGET_FAILURE_PREFIX.deduct}${errorMessage(error)}`)
  }
}
