// The `acs:` section of warden.yaml: handshake, signing keys (sealed in the secret store or
// named environment variables, two at once during a rotation), the skew window, failure
// posture and deferral bounds. Validated here; secrets are opened but never echoed.

import { z } from 'zod'
import { errorMessage, formatZodError, WardenError } from '../../../core/index.js'
import {
  DEFAULT_KEY_DERIVATION,
  KEY_FORMS,
  type KeyDerivation,
  keyBytes,
  readKeyFile,
  type SecretOpener,
} from '../core/index.js'
import {
  type AcsApprover,
  type AcsIntentSettings,
  type AcsTraceSettings,
  ASYMMETRIC_ALGORITHMS,
  approverSchema,
  intentSettingsSchema,
  openApprovers,
  type SigningKey,
  signingKey,
  traceSettingsSchema,
  type VerifyingKey,
  verifyingKey,
} from '../profiles/index.js'

export type { SecretOpener }

const keySchema = z
  .object({
    id: z.string().min(1).max(128),
    secret: z
      .string()
      .min(1)
      .regex(/^(wsec:v1:|env:|file:)/, `must be ${KEY_FORMS}`),
    /** After this time the key no longer verifies (the end of a rotation window). */
    notAfter: z.iso.datetime({ offset: true }).optional(),
  })
  .strict()

const algorithmSchema = z.enum(ASYMMETRIC_ALGORITHMS)

/** A private key the Guardian signs its answers with (ACS-Crypto). */
const signingKeySchema = z
  .object({
    id: z.string().min(1).max(128),
    algorithm: algorithmSchema,
    /**
     * PEM PKCS#8 (any algorithm; for ML-DSA-65 also the base64 seed or expanded key), sealed,
     * env:NAME or file:PATH (a key file as OpenSSL writes it).
     */
    privateKey: z
      .string()
      .min(1)
      .regex(
        /^(wsec:v1:|env:|file:)/,
        'must be a sealed secret (wsec:v1:…, see `warden secrets`), env:NAME or file:PATH',
      ),
  })
  .strict()

/** A public key of an Observed Agent whose signed requests the Guardian verifies. */
const agentKeySchema = z
  .object({
    id: z.string().min(1).max(128),
    algorithm: algorithmSchema,
    /** PEM SPKI (any algorithm; for ML-DSA-65 also the base64 public key), env:NAME or file:PATH. */
    publicKey: z.string().min(1).max(16_384),
    /** The agent_id the key belongs to (default: the key's id); it signs for no other agent. */
    agent: z.string().min(1).max(256).optional(),
  })
  .strict()

/** The schema of `acs:`. */
export const acsSettingsSchema = z
  .object({
    requireHandshake: z.boolean().optional(),
    requireSignatures: z.boolean().optional(),
    keys: z
      .array(keySchema)
      .max(2, 'holds at most two keys: the current one and, during a rotation, the previous')
      .optional(),
    skewWindowMs: z.number().int().positive().max(3_600_000).optional(),
    onDecisionFailure: z.enum(['deny', 'proceed']).optional(),
    methodsEvaluated: z.enum(['all', 'hooked']).optional(),
    defaultTimeoutMs: z.number().int().positive().max(600_000).optional(),
    maxDeferralsPerSession: z.number().int().min(0).max(1000).optional(),
    deferTimeoutMs: z.number().int().positive().max(86_400_000).optional(),
    policyRequiresProvenance: z.boolean().optional(),
    keyDerivation: z.enum(['session-info', 'session-salt']).optional(),
    intent: intentSettingsSchema.optional(),
    approvers: z.array(approverSchema).max(16).optional(),
    trace: traceSettingsSchema.optional(),
    signingKeys: z.array(signingKeySchema).max(8).optional(),
    agentKeys: z.array(agentKeySchema).max(64).optional(),
  })
  .strict()

export type AcsSettingsInput = z.infer<typeof acsSettingsSchema>

/** An Observed Agent's public key, bound to the one agent it signs for. */
export interface AgentKey extends VerifyingKey {
  /** The agent_id a request signed with it must claim (default: the key's id). */
  agent?: string
}

/** A verification key: its id, its material, and when it stops verifying. */
export interface AcsKey {
  id: string
  material: Uint8Array
  notAfter?: number
}

/** Settings with every default applied. */
export interface AcsSettings {
  requireHandshake: boolean
  requireSignatures: boolean
  keys: AcsKey[]
  skewWindowMs: number
  onDecisionFailure: 'deny' | 'proceed'
  methodsEvaluated: 'all' | 'hooked'
  defaultTimeoutMs: number
  maxDeferralsPerSession: number
  deferTimeoutMs: number
  policyRequiresProvenance: boolean
  /** How the per-session HMAC key is derived (see {@link KeyDerivation}). */
  keyDerivation: KeyDerivation
  /** IBAC: how a request outside `Intent.parsed` is answered (§8.4, §9.1). */
  intent: AcsIntentSettings
  /** The approvers a client-routed ASK names (§9), with their verification keys. */
  approvers: AcsApprover[]
  /** ACS-Trace emission (announced as `trace_emission`). */
  trace: AcsTraceSettings
  /** The Guardian's asymmetric keys, in order of preference, for signing its answers. */
  signingKeys: SigningKey[]
  /** Observed Agents' public keys, for verifying their asymmetrically signed requests. */
  agentKeys: AgentKey[]
}

export const ACS_DEFAULTS = {
  skewWindowMs: 300_000,
  defaultTimeoutMs: 10_000,
  maxDeferralsPerSession: 3,
  deferTimeoutMs: 60_000,
} as const

/**
 * Checks `acs:` and opens its keys.
 * @throws WardenError `invalid-config` naming the field, or the missing secret.
 */
export function resolveAcsSettings(
  raw: unknown,
  secrets: SecretOpener | undefined,
  env: Record<string, string | undefined> = process.env,
): AcsSettings {
  const parsed = acsSettingsSchema.safeParse(raw ?? {})
  if (!parsed.success) throw new WardenError('invalid-config', formatZodError(parsed.error, 'acs'))
  const input = parsed.data
  const opened = (where: string, value: string): string => {
    if (value.startsWith('env:')) {
      const found = env[value.slice(4)]
      if (!found)
        throw new WardenError(
          'invalid-config',
          `${where}: the environment variable ${value.slice(4)} is not set`,
        )
      return found
    }
    if (value.startsWith('file:')) return readKeyFile(where, value.slice(5)).toString('utf8')
    if (!value.startsWith('wsec:v1:')) return value
    if (!secrets)
      throw new WardenError(
        'invalid-config',
        `${where}: a sealed secret needs the secret key (WARDEN_SECRET_KEY)`,
      )
    return secrets.open(value)
  }
  const built = <T>(where: string, make: () => T): T => {
    try {
      return make()
    } catch (error) {
      throw new WardenError('invalid-config', `${where}: ${errorMessage(error)}`)
    }
  }
  const signingKeys = (input.signingKeys ?? []).map((key) => {
    const where = `acs.signingKeys ${key.id}`
    const material = opened(where, key.privateKey)
    return built(where, () => signingKey(key.id, key.algorithm, material))
  })
  const agentKeys = (input.agentKeys ?? []).map((key) => {
    const where = `acs.agentKeys ${key.id}`
    const material = opened(where, key.publicKey)
    const verifying = built(where, () => verifyingKey(key.id, key.algorithm, material))
    return key.agent === undefined ? verifying : { ...verifying, agent: key.agent }
  })
  const keys: AcsKey[] = (input.keys ?? []).map((key) => {
    return {
      id: key.id,
      material: keyBytes(`acs.keys ${key.id}`, key.secret, secrets, env),
      ...(key.notAfter ? { notAfter: Date.parse(key.notAfter) } : {}),
    }
  })
  const approvers = openApprovers(input.approvers ?? [], secrets, env)
  return settingsWith({
    ...input,
    keys,
    signingKeys,
    agentKeys,
    approvers,
    intent: {
      defaultScopeMode: input.intent?.defaultScopeMode ?? 'ask',
      strictExtensible: input.intent?.strictExtensible ?? [],
    },
    trace: {
      otel: input.trace?.otel ?? true,
      ocsf: false,
      ...(input.trace?.collectorEndpoint ? { collectorEndpoint: input.trace.collectorEndpoint } : {}),
    },
  })
}

/** Settings from already opened keys, defaults applied (tests, the stdio command). */
export function settingsWith(
  input: Partial<Omit<AcsSettings, 'keys'>> & { keys?: AcsKey[] } = {},
): AcsSettings {
  const keys = input.keys ?? []
  const agentKeys = input.agentKeys ?? []
  return {
    requireHandshake: input.requireHandshake ?? true,
    requireSignatures: input.requireSignatures ?? (keys.length > 0 || agentKeys.length > 0),
    keys,
    skewWindowMs: input.skewWindowMs ?? ACS_DEFAULTS.skewWindowMs,
    onDecisionFailure: input.onDecisionFailure ?? 'deny',
    methodsEvaluated: input.methodsEvaluated ?? 'all',
    defaultTimeoutMs: input.defaultTimeoutMs ?? ACS_DEFAULTS.defaultTimeoutMs,
    maxDeferralsPerSession: input.maxDeferralsPerSession ?? ACS_DEFAULTS.maxDeferralsPerSession,
    deferTimeoutMs: input.deferTimeoutMs ?? ACS_DEFAULTS.deferTimeoutMs,
    policyRequiresProvenance: input.policyRequiresProvenance ?? false,
    keyDerivation: input.keyDerivation ?? DEFAULT_KEY_DERIVATION,
    intent: input.intent ?? { defaultScopeMode: 'ask', strictExtensible: [] },
    approvers: input.approvers ?? [],
    trace: input.trace ?? { otel: true, ocsf: false },
    signingKeys: input.signingKeys ?? [],
    agentKeys,
  }
}
