// `handshake/hello` (§4): version negotiation on the major version, the ServerHello Warden
// answers (methods evaluated, timeouts, failure posture, skew window, algorithms, profiles),
// and the refusals the spec names (UNSUPPORTED_VERSION, PROVENANCE_REQUIRED).

import type { Engine, JsonObject } from '../../core/index.js'
import { lookupEventName } from '../../core/index.js'
import { HMAC_ALGORITHM } from './crypto.js'
import { ACS_ERRORS, AcsError } from './errors.js'
import { acsMethod, STEP_NAMES } from './methods.js'
import type { AcsSettings } from './settings.js'

/** The ACS version Warden speaks. */
export const ACS_VERSION = '0.1.0'

const VERSION = /^(\d+)\.(\d+)\.(\d+)$/

/** Whether `version` is X.Y.Z with Warden's major version (§3 forward compatibility). */
export function sameMajor(version: unknown): boolean {
  if (typeof version !== 'string') return false
  const match = VERSION.exec(version)
  return match !== null && match[1] === ACS_VERSION.split('.')[0]
}

/** What a successful handshake opened. */
export interface Negotiated {
  /** The methods the client declared, or undefined when it declared none (all allowed). */
  methods: Set<string> | undefined
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
 * Answers a ClientHello.
 * @throws AcsError -32001 without a common version, -32002 when provenance is required.
 */
export function serverHello(
  params: JsonObject,
  engine: Engine,
  settings: AcsSettings,
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
  const implemented = stringList(params.methods_implemented, 'methods_implemented')
  const profiles = stringList(params.profiles_supported, 'profiles_supported') ?? ['acs-core']
  const accepted = profiles.filter(
    (p) => p === 'acs-core' || p === 'acs-audit' || p === 'acs-inspect' || p === 'acs-inspect-dynamic',
  )
  const hello: JsonObject = {
    negotiated_version: ACS_VERSION,
    methods_evaluated: methodsEvaluated(engine, settings),
    selected_transport: typeof params.transport === 'string' ? params.transport : 'http',
    signature_algorithms_supported: [HMAC_ALGORITHM],
    signatures_required: settings.requireSignatures,
    timeout_config: { default_ms: settings.defaultTimeoutMs, per_method: {} },
    on_decision_failure: settings.onDecisionFailure,
    skew_window_ms: settings.skewWindowMs,
    approver_types_supported: ['human'],
    policy_requires_provenance: settings.policyRequiresProvenance,
    agbom_serializations_supported: [],
    trace_emission: { otel: false, ocsf: false },
    profiles_accepted: accepted.length > 0 ? accepted : ['acs-core'],
    wrapped_protocols: ['mcp'],
  }
  return { hello, negotiated: { methods: implemented ? new Set(implemented) : undefined } }
}
