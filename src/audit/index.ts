// The audit trail: the writer that records every decision (batched or synchronous), the
// rows a decision becomes, replay of a recorded decision against today's hooks, and the
// impact preview of a hook change over recorded history.

export type { ImpactEvent, ImpactOptions, ImpactReport } from './impact.js'
export { formatImpact, previewImpact, recordedPages, TRANSITION_ARROW } from './impact.js'
export type { OcsfDropLog, OcsfEvent, OcsfSettings, OcsfSetup, OcsfSink } from './ocsf/index.js'
export {
  API_ACTIVITY_CLASS,
  FileSink,
  HttpSink,
  OCSF_VERSION,
  OcsfEmitter,
  ocsfEmitterFromConfig,
  ocsfEventOf,
  resolveOcsfSettings,
} from './ocsf/index.js'
export { auditOptionsFromSetting, auditSettingSchema } from './options.js'
export type { Persistence, PersistenceOptions } from './persistence.js'
export { openPersistence, secretBoxFrom } from './persistence.js'
export type { Redactor, RedactRule } from './redact.js'
export {
  createRedactor,
  DEFAULT_REDACT_RULES,
  redactedMark,
  redactingRecorder,
  redactSettingSchema,
} from './redact.js'
export type { HookComparison, ReplayResult } from './replay.js'
export { formatReplay, replayDecision } from './replay.js'
export type { AuditRows, RowOptions } from './rows.js'
export { ERROR_CLEAR_CHARS, toAuditRows } from './rows.js'
export type { HookSources } from './sources.js'
export { recordedSources, sourcesAsFlags, sourcesRecord } from './sources.js'
export type { AuditDrop, AuditMode, AuditOptions, AuditWriter } from './writer.js'
export { AUDIT_DEFAULTS, createAuditWriter, fanOutRecorders } from './writer.js'
