// `handler: { type: guardian, protocol: acs, ... }`: a hook that consults a remote ACS
// Guardian as the Observed Agent (./remote.ts does the wire). Keys come from the environment
// (env:NAME) or inline for public keys. Allow and deny are applied; an answer this hook does
// not apply (modify, ask, defer) denies, naming it. A decision failure (unreachable, HTTP
// error, JSON-RPC error, unsigned or forged answer, another request_id, no chain head) denies
// with the cause, or under `onDecisionFailure: proceed` allows, recorded with reason code
// `decision_failure` and the cause.

import type { HandlerConfig, HookCall, HookExecutor, HookSpec, Verdict } from '../../../core/index.js'
import { errorMessage, WardenError } from '../../../core/index.js'
import type { OutboundClient } from '../../../net/index.js'
import { decodeKey } from '../core/index.js'
import { type AsymmetricAlgorithm, isAsymmetric, signingKey, verifyingKey } from '../profiles/index.js'
import { type AcsAnswer, createAcsRemote, type RemoteAcsGuardian } from './remote.js'

const MAX_ANSWER_BYTES = 4 * 1024 * 1024

type Field = Record<string, unknown>

function isField(value: unknown): value is Field {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Prepares `guardian` hooks with `protocol: acs` over the outbound client.
 * @returns the preparer the guardian handler calls; it throws WardenError `invalid-hook`.
 */
export function createAcsGuardianHooks(
  client: OutboundClient,
  env: Record<string, string | undefined> = process.env,
): (config: HandlerConfig, hook: HookSpec) => HookExecutor {
  const remote = createAcsRemote(async (url, body, tenant) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (tenant !== undefined) headers['x-warden-tenant'] = tenant
    const response = await client.request({
      url,
      method: 'POST',
      headers,
      body,
      maxResponseBytes: MAX_ANSWER_BYTES,
    })
    return { status: response.status, text: response.text() }
  })

  return (config, hook) => {
    const label = `hook "${hook.name}": handler`
    const invalid = (message: string) => new WardenError('invalid-hook', `${label}.${message}`)
    const material = (value: unknown, field: string, secret: boolean): string => {
      if (typeof value !== 'string' || value.length === 0) throw invalid(`${field} is required`)
      if (value.startsWith('env:')) {
        const found = env[value.slice(4)]
        if (!found) throw invalid(`${field}: the environment variable ${value.slice(4)} is not set`)
        return found
      }
      if (secret)
        throw invalid(
          `${field} must name an environment variable (env:NAME): secrets are not written in hooks`,
        )
      return value
    }
    const keyed = (
      value: unknown,
      field: string,
    ): { id: string; algorithm?: AsymmetricAlgorithm } & Field => {
      if (!isField(value) || typeof value.id !== 'string' || value.id.length === 0)
        throw invalid(`${field} must be an object with an id`)
      if (value.algorithm !== undefined && !isAsymmetric(value.algorithm))
        throw invalid(`${field}.algorithm must be ECDSA-P256, Ed25519 or ML-DSA-65`)
      return value as { id: string; algorithm?: AsymmetricAlgorithm } & Field
    }
    if (typeof config.url !== 'string' || !/^https?:\/\/[^\s]+$/i.test(config.url))
      throw invalid('url must be an http(s) URL such as http://127.0.0.1:7070/acs')
    const base: RemoteAcsGuardian = {
      name: typeof config.name === 'string' && config.name.length > 0 ? config.name : hook.name,
      url: config.url,
      agentId: typeof config.agentId === 'string' && config.agentId.length > 0 ? config.agentId : 'warden',
    }
    if (config.key === undefined && config.signingKey === undefined)
      throw invalid(
        'key (HMAC-SHA256, {id, secret: env:NAME}) or signingKey is required: ACS requests are signed',
      )
    if (config.key === undefined && config.guardianKey === undefined)
      throw invalid('guardianKey is required without a shared key: the answers must be verified')
    for (const field of ['key', 'signingKey', 'guardianKey'] as const) {
      if (config[field] === undefined) continue
      const key = keyed(config[field], field)
      if (field !== 'key' && !key.algorithm) throw invalid(`${field}.algorithm is required`)
    }
    const posture = config.onDecisionFailure ?? 'deny'
    if (posture !== 'deny' && posture !== 'proceed')
      throw invalid('onDecisionFailure must be "deny" or "proceed"')

    /** The keys, read from the environment at the first call (a missing one fails that call). */
    let resolved: RemoteAcsGuardian | undefined
    const withKeys = (): RemoteAcsGuardian => {
      if (resolved) return resolved
      const guardian: RemoteAcsGuardian = { ...base }
      try {
        if (config.key !== undefined) {
          const key = keyed(config.key, 'key')
          guardian.key = {
            id: key.id,
            material: decodeKey('key.secret', Buffer.from(material(key.secret, 'key.secret', true), 'utf8')),
          }
        }
        if (config.signingKey !== undefined) {
          const key = keyed(config.signingKey, 'signingKey')
          const pem = material(key.privateKey, 'signingKey.privateKey', true)
          guardian.signer = signingKey(key.id, key.algorithm as AsymmetricAlgorithm, pem)
        }
        if (config.guardianKey !== undefined) {
          const key = keyed(config.guardianKey, 'guardianKey')
          const pem = material(key.publicKey, 'guardianKey.publicKey', false)
          guardian.guardianKey = verifyingKey(key.id, key.algorithm as AsymmetricAlgorithm, pem)
        }
      } catch (error) {
        throw new Error(`the hook's keys cannot be used: ${errorMessage(error)}`)
      }
      resolved = guardian
      return guardian
    }

    return async (call: HookCall): Promise<Verdict> => {
      let answer: AcsAnswer
      try {
        answer = await remote.consult(withKeys(), call.event)
      } catch (error) {
        const cause = `decision failure: ${errorMessage(error)}`
        call.log(cause)
        if (posture === 'proceed')
          return {
            type: 'allow',
            reason: `${cause} (onDecisionFailure: proceed)`,
            reasonCode: ['decision_failure'],
          }
        return { type: 'deny', reason: cause, reasonCode: ['decision_failure'] }
      }
      const name = base.name
      call.log(`ACS Guardian ${name}: ${answer.decision}, chain head ${answer.chainHash?.slice(0, 12)}…`)
      const said = answer.reasoning ? `: ${answer.reasoning}` : ''
      if (answer.decision === 'allow')
        return { type: 'allow', ...(answer.reasoning ? { reason: answer.reasoning } : {}) }
      if (answer.decision === 'deny') {
        return {
          type: 'deny',
          reason: `ACS Guardian ${name} denied${said}`,
          reasonCode: answer.reasonCodes.length > 0 ? answer.reasonCodes : [name],
        }
      }
      return {
        type: 'deny',
        reason: `ACS Guardian ${name} answered ${answer.decision}, which this hook does not apply${said}`,
        reasonCode: [`acs_${answer.decision}_not_applied`],
      }
    }
  }
}
