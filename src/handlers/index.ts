// Handler types, one module each: fn, command, http, guardian (remote AOS), prompt (LLM
// judge), script (Starlark), the static allow/deny/ask and the built-in detectors.
// `defaultHandlers()` is what engines get unless an embedder passes its own list.

import type { HandlerFactory } from '../core/index.js'
import { commandHandler } from './command.js'
import { detectorHandler } from './detectors/index.js'
import { fnHandler } from './fn.js'
import { allowHandler, askHandler, denyHandler } from './static.js'

export type { CommandConfig, ProcessOutput, ProcessResult } from './command.js'
export {
  commandHandler,
  DETAIL_CAP_BYTES,
  hookEnvironment,
  interpretProcess,
  OUTPUT_CAP_BYTES,
  runProcess,
  splitCommand,
} from './command.js'
export type {
  DetectorAction,
  DetectorConfig,
  DetectorHandlerOptions,
  EgressOptions,
  Finding,
  InjectionOptions,
  PathsOptions,
  PiiOptions,
  ScanContext,
  SecretsOptions,
  ShellOptions,
} from './detectors/index.js'
export {
  createDetectorHandler,
  DETECTOR_NAMES,
  DETECTORS,
  detectorHandler,
  newReading,
  parseShell,
  runCommands,
  SCAN_LIMIT_KIND,
  SHELL_LIMITS,
  scanEgress,
  scanInjection,
  scanPaths,
  scanPii,
  scanSecrets,
  scanShell,
} from './detectors/index.js'
export type { HookFunction, LoomHookContext } from './fn.js'
export { fnHandler } from './fn.js'
export type { GuardianCodec, GuardianHandlerOptions, RemoteGuardian } from './guardian.js'
export { guardianHandler, guardiansHandler, mergeModifications } from './guardian.js'
export type { HttpConfig, HttpHandlerOptions } from './http.js'
export { createHttpHandler, HTTP_RETRY_DELAY_MS, interpretResponse, redactSecrets } from './http.js'
export { loomEventName, loomWireContext } from './loom-context.js'
export type { PromptConfig, PromptHandlerOptions } from './prompt.js'
export { createPromptHandler, JUDGE_MAX_INPUT_BYTES, toVerdict } from './prompt.js'
export type { JudgeAnswer, JudgedCall, JudgeEndpoint } from './prompt-judge.js'
export { DECIDE_TOOL, judgeRequest, readJudgeAnswer } from './prompt-judge.js'
export type { TokenLedger } from './prompt-limits.js'
export {
  BUDGET_FAILURE_PREFIX,
  JUDGE_CACHE_TTL_MS,
  JUDGE_CALLS_PER_TURN,
  JUDGE_MONTHLY_TOKENS,
  judgeCacheKey,
  memoryTokenLedger,
} from './prompt-limits.js'
export type { JudgeSettings } from './prompt-settings.js'
export { judgeSettings, judgeSettingsSchema } from './prompt-settings.js'
export type { ScriptHandlerOptions, ScriptProblem } from './script.js'
export { checkScriptHook, createScriptHandler, MAX_SCRIPT_CHARS, scriptHandler } from './script.js'
export { fromPayloadView, type HooksViewer, payloadView, withHooksViewer } from './script-view.js'
export type { StaticConfig, StaticHandlerType } from './static.js'
export { allowHandler, askHandler, denyHandler, STATIC_HANDLER_TYPES } from './static.js'

/** The handler types available without extra configuration. */
export function defaultHandlers(): HandlerFactory[] {
  return [fnHandler, commandHandler, denyHandler, allowHandler, askHandler, detectorHandler]
}
