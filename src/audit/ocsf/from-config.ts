// Builds the OCSF emitter of `warden serve` from warden.yaml's `ocsf:` section: the file
// sink and the HTTP sink (through an outbound client with the deployment's `network:`
// policy, so the collector's address is checked as every outbound call's is).

import type { Registry } from 'prom-client'
import { createOutboundClient, networkOptions } from '../../net/index.js'
import type { SealedOpener } from '../../secrets/index.js'
import { type OcsfDropLog, OcsfEmitter } from './emitter.js'
import { resolveOcsfSettings } from './settings.js'
import { FileSink, HttpSink, type OcsfSink } from './sinks.js'

/** Options of {@link ocsfEmitterFromConfig}. */
export interface OcsfSetup {
  /** The config's sections (`ocsf`, `network`). */
  raw: Record<string, unknown>
  env: Record<string, string | undefined>
  /** Where relative paths and file: secrets are read from (warden.yaml's folder). */
  baseDir: string
  /** Opens sealed secrets; asked for only when one is used. */
  box?: () => SealedOpener
  version: string
  registry?: Registry
  log?: OcsfDropLog
}

/**
 * The emitter the config asks for, or undefined without `ocsf:`.
 * @throws WardenError `invalid-config` naming the field.
 */
export function ocsfEmitterFromConfig(setup: OcsfSetup): OcsfEmitter | undefined {
  const section = setup.raw.ocsf
  const sealed = JSON.stringify(section ?? {}).includes('wsec:v1:')
  const settings = resolveOcsfSettings(section, {
    env: setup.env,
    baseDir: setup.baseDir,
    ...(sealed && setup.box ? { box: setup.box() } : {}),
  })
  if (!settings) return undefined
  const sinks: OcsfSink[] = []
  if (settings.file) sinks.push(new FileSink(settings.file))
  if (settings.http) {
    const client = createOutboundClient({
      ...networkOptions(setup.raw.network),
      timeoutMs: settings.http.timeoutMs,
    })
    sinks.push(new HttpSink(settings.http, client))
  }
  return new OcsfEmitter({
    sinks,
    maxQueue: settings.maxQueue,
    version: setup.version,
    ...(setup.registry ? { registry: setup.registry } : {}),
    ...(setup.log ? { log: setup.log } : {}),
  })
}
