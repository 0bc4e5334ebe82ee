// `handshake/hello` (§4): the ClientHello read from `params.payload`, version negotiation on
// the major version, the transport the Guardian serves, the ServerHello Warden answers
// (methods evaluated, timeouts, failure posture, skew window, algorithms, profiles), and the
// refusals the spec names (UNSUPPORTED_VERSION, PROVENANCE_REQUIRED, SESSION_REFUSED).

import type { Engine, JsonObject } from '../../../core/index.js'
import { lookupEventName } from '../../../core/index.js'
import {
  ACS_ERRORS,
  ACS_VERSION,
  AcsError,
  acsMethod,
  HKDF_INFO,
  HMAC_ALGORITHM,
  STEP_NAMES,
  sameMajor,
} from '../core/index.js'
import { traceEmission } from '../profiles/index.js'
import type { AcsSettings } from './settings.js'
import { verifiedAlgorithms } from './signatures.js'

/** The ACS version Warden speaks. */
/** The transports an ACS Guardian serves (§3). */
export type AcsTransport = 'http' | 'stdio'

/** What a successful handshake opened. */
export interface Negotiated {
  /** The methods the client declared, or undefined when it declared none (all allowed). */
  methods: Set<string> | undefined
  /** What the ClientHello asked for, canonical; a second hello for the session must match it. */
  terms: string
  /** The algorithm the Guardian signs this session's answers with (none: unsigned). */
  answerAlgorithm?: string
}

/**
 * The algorithm a Guardian signs a session's answers with (ACS-Crypto, §10.1): the first of
 * its own — its signing keys in configured order, then HMAC-SHA256 when it has shared keys —
 * that the client offered in `signature_algorithms_supported`. A client that offers none
 * gets HMAC-SHA256 when the Guardian has shared keys, else its first signing key's algorithm.
 * @throws AcsError -32000 when the client offered algorithms and none is the Guardian's.
 */
export function answerAlgorithm(settings: AcsSettings, offered: string[] | undefined): string | undefined {
  const own = [
    ...new Set([
      ...settings.signingKeys.map((k) => k.algorithm as string),
      ...(settings.keys.length > 0 ? [HMAC_ALGORITHM] : []),
    ]),
  ]
  if (offered === undefined) return settings.keys.length > 0 ? HMAC_ALGORITHM : own[0]
  const chosen = own.find((name) => offered.includes(name))
  if (chosen === undefined && own.length > 0) {
    throw new AcsError(
      ACS_ERRORS.sessionRefused,
      `no common signature algorithm: the client verifies ${JSON.stringify(offered.slice(0, 10))}, this Guardian signs with ${JSON.stringify(own)}`,
      { reason: 'no_common_signature_algorithm', signature_algorithms_supported: own },
    )
  }
  return chosen
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The ClientHello of a `handshake/hello` request: its `params.payload`, as the spec's
 * handshake schema places it. A hello with no payload object is read from `params` itself
 * (the form earlier Warden clients sent).
 */
export function clientHelloOf(params: JsonObject): JsonObject {
  return isObject(params.payload) ? params.payload : params
}

function stringList(value: unknown, field: string): string[] | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new AcsError(ACS_ERRORS.invalidParams, `params.${field} must be a list of strings`)
  }
  return value as string[]
}

/** The methods Warden evaluates: all of them, or only those some hook listens to. */
export function methodsEvaluated(engine: Engine, settings: AcsSettings): string[] {
  const fixed = [
    ...STEP_NAMES.map((s) => `steps/${s}`),
    'agbom/snapshot',
    'agbom/changed',
    'protocols/MCP/*',
    'system/ping',
  ]
  if (settings.methodsEvaluated === 'all') return fixed
  const events = new Set<string>(engine.hooks().map((h) => lookupEventName(h.event) ?? h.event))
  return fixed.filter((method) => {
    if (method === 'system/ping') return true
    const probe = method === 'protocols/MCP/*' ? 'protocols/MCP/tools/call' : method
    return events.has(acsMethod(probe, {}).event)
  })
}

/**
 * Answers a ClientHello (the fields of {@link clientHelloOf}) for a Guardian serving
 * `transport`.
 * @throws AcsError -32001 without a common version, -32002 when provenance is required,
 * -32000 when the client does not support the transport it is reaching the Guardian on.
 */
export function serverHello(
  params: JsonObject,
  engine: Engine,
  settings: AcsSettings,
  transport: AcsTransport = 'http',
): { hello: JsonObject; negotiated: Negotiated } {
  const versions =
    stringList(params.acs_versions_supported, 'acs_versions_supported') ??
    (typeof params.acs_version === 'string' ? [params.acs_version] : [])
  const common = versions.filter(sameMajor)
  if (common.length === 0) {
    throw new AcsError(
      ACS_ERRORS.unsupportedVersion,
      `no common ACS version: the client offers ${JSON.stringify(versions.slice(0, 10))}; Warden speaks ${ACS_VERSION} (any 0.y.z)`,
      { supported_versions: [ACS_VERSION] },
    )
  }
  if (settings.policyRequiresProvenance && params.provenance_producer === 'none') {
    throw new AcsError(
      ACS_ERRORS.provenanceRequired,
      'this Guardian requires provenance; re-handshake with provenance_producer "deterministic"',
    )
  }
  const transports = stringList(params.transports_supported, 'transports_supported')
  if (transports !== undefined && !transports.includes(transport)) {
    throw new AcsError(
      ACS_ERRORS.sessionRefused,
      `this Guardian is reached over ${transport} here, and the client supports only ${JSON.stringify(transports.slice(0, 10))}; connect over a transport the client supports`,
      { reason: 'transport_unsupported' },
    )
  }
  const implemented = stringList(params.methods_implemented, 'methods_implemented')
  const offered = stringList(params.signature_algorithms_supported, 'signature_algorithms_supported')
  const selected = answerAlgorithm(settings, offered)
  const profiles = stringList(params.profiles_supported, 'profiles_supported') ?? ['acs-core']
  const accepted = profiles.filter(
    (p) =>
      p === 'acs-core' ||
      p === 'acs-audit' ||
      p === 'acs-inspect' ||
      p === 'acs-inspect-dynamic' ||
      (p === 'acs-trace' && (settings.trace.otel || settings.trace.ocsf)) ||
      // ACS-Crypto needs ML-DSA-65 (conformance.md): accepted with an ML-DSA-65 signing key.
      (p === 'acs-crypto' && settings.signingKeys.some((k) => k.algorithm === 'ML-DSA-65')),
  )
  const hello: JsonObject = {
    negotiated_version: ACS_VERSION,
    methods_evaluated: methodsEvaluated(engine, settings),
    selected_transport: transport,
    signature_algorithms_supported: verifiedAlgorithms(settings),
    signatures_required: settings.requireSignatures,
    timeout_config: { default_ms: settings.defaultTimeoutMs, per_method: {} },
    on_decision_failure: settings.onDecisionFailure,
    skew_window_ms: settings.skewWindowMs,
    approver_types_supported: [...new Set(['human', ...settings.approvers.map((a) => a.type)])],
    policy_requires_provenance: settings.policyRequiresProvenance,
    agbom_serializations_supported: [],
    trace_emission: traceEmission(settings.trace),
    profiles_accepted: accepted.length > 0 ? accepted : ['acs-core'],
    wrapped_protocols: ['mcp'],
  }
  if (selected !== undefined) hello.selected_signature_algorithm = selected
  if (settings.keyDerivation !== 'session-info') {
    hello.key_derivation = { algorithm: 'HKDF-SHA256', salt: 'session_id', info: HKDF_INFO }
  }
  const terms = JSON.stringify([
    [...new Set(implemented ?? ['*'])].sort(),
    [...common].sort(),
    params.provenance_producer ?? null,
    selected ?? null,
  ])
  const negotiated: Negotiated = { methods: implemented ? new Set(implemented) : undefined, terms }
  if (selected !== undefined) negotiated.answerAlgorithm = selected
  return { hello, negotiated }
}
