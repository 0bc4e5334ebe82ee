// OCSF emission: each decision as an OCSF API Activity event, to a rotated JSON-lines file
// and to an HTTP collector, after the answer and off the decision path.

export type { OcsfDropLog, OcsfEmitterOptions } from './emitter.js'
export { OcsfEmitter } from './emitter.js'
export type { OcsfEvent } from './event.js'
export { API_ACTIVITY_CLASS, APPLICATION_CATEGORY, OCSF_VERSION, ocsfEventOf } from './event.js'
export type { OcsfSetup } from './from-config.js'
export { ocsfEmitterFromConfig } from './from-config.js'
export type { OcsfSettings } from './settings.js'
export { OCSF_DEFAULTS, ocsfSettingsSchema, resolveOcsfSettings } from './settings.js'
export type { OcsfSink } from './sinks.js'
export { FileSink, HttpSink } from './sinks.js'
