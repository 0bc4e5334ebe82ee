// The `judge:` section of warden.yaml and the WARDEN_JUDGE_* environment: where the LLM
// judge lives and how far it may be used. Environment variables fill in what the file
// leaves out; the API key only ever comes from the environment.

import { z } from 'zod'
import type { PromptHandlerOptions } from './prompt.js'

/**
 * Schema of `judge: { baseUrl, model, apiKeyEnv, maxCallsPerTurn, monthlyTokenBudget,
 * tenantBudgets, cacheTtlMs, maxInputBytes }`.
 */
export const judgeSettingsSchema = z
  .object({
    baseUrl: z
      .string({ error: 'must be the judge API base URL, e.g. "https://api.openai.com/v1"' })
      .regex(/^https?:\/\/\S+$/i, 'must be an http(s) URL such as "https://api.openai.com/v1"')
      .optional(),
    model: z.string({ error: 'must be a model name' }).min(1).optional(),
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the name of an environment variable holding the API key')
      .optional(),
    maxCallsPerTurn: z.number().int().positive().max(1000).optional(),
    monthlyTokenBudget: z.number().int().min(0, 'must be 0 (no budget) or more').optional(),
    tenantBudgets: z
      .record(z.string().min(1), z.number().int().min(0, 'must be 0 (no budget) or more'), {
        error: 'must map tenant ids to monthly token budgets, e.g. { acme: 200000 }',
      })
      .optional(),
    cacheTtlMs: z.number().int().min(0).max(86_400_000).optional(),
    maxInputBytes: z
      .number()
      .int()
      .positive()
      .max(1024 * 1024)
      .optional(),
  })
  .strict()

/** The judge settings of a runtime: everything of the prompt handler's options but the client. */
export type JudgeSettings = Omit<PromptHandlerOptions, 'client'>

/**
 * Reads the judge settings from the `judge:` section (validated at load) and the
 * environment: WARDEN_JUDGE_BASE_URL, WARDEN_JUDGE_MODEL, and the API key from the
 * variable `apiKeyEnv` names (default WARDEN_JUDGE_API_KEY).
 */
export function judgeSettings(section: unknown, env: NodeJS.ProcessEnv = process.env): JudgeSettings {
  const parsed = judgeSettingsSchema.safeParse(section ?? {})
  const s = parsed.success ? parsed.data : {}
  const baseUrl = s.baseUrl ?? env.WARDEN_JUDGE_BASE_URL
  const model = s.model ?? env.WARDEN_JUDGE_MODEL
  const apiKey = env[s.apiKeyEnv ?? 'WARDEN_JUDGE_API_KEY']
  const settings: JudgeSettings = {}
  if (baseUrl && model) settings.judge = { baseUrl, model, ...(apiKey ? { apiKey } : {}) }
  if (s.maxCallsPerTurn !== undefined) settings.maxCallsPerTurn = s.maxCallsPerTurn
  if (s.monthlyTokenBudget !== undefined) settings.monthlyTokenBudget = s.monthlyTokenBudget
  if (s.tenantBudgets !== undefined) settings.tenantTokenBudgets = s.tenantBudgets
  if (s.cacheTtlMs !== undefined) settings.cacheTtlMs = s.cacheTtlMs
  if (s.maxInputBytes !== undefined) settings.maxInputBytes = s.maxInputBytes
  return settings
}
