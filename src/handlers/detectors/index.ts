// The built-in detectors and the `detector` handler type that runs them: secrets, PII,
// egress (URLs), destructive shell commands, protected paths and prompt injection.

export { BASE_WORK, bounded, WORK_PER_CHAR, WorkBudget } from './budget.js'
export type { EgressOptions } from './egress.js'
export { egressDetector, scanEgress } from './egress.js'
export type { DetectorAction, DetectorConfig, DetectorEvent, DetectorHandlerOptions } from './handler.js'
export {
  createDetectorHandler,
  DETECTOR_NAMES,
  DETECTORS,
  detectorHandler,
  prepareDetector,
} from './handler.js'
export type { InjectionOptions } from './injection.js'
export { INJECTION_RULES, injectionDetector, scanInjection } from './injection.js'
export type { DetectorIsolateMode, DetectorIsolation, DetectorJob } from './isolation.js'
export {
  DEFAULT_INLINE_CHARS,
  DETECTOR_GRACE_MS,
  DetectorWorkers,
  defaultDetectorIsolation,
  detectorIsolates,
} from './isolation.js'
export type { PathsOptions } from './paths.js'
export {
  COMMAND_KEYS,
  compilePathGlob,
  DEFAULT_ALLOWED_PATHS,
  DEFAULT_PROTECTED_PATHS,
  pathsDetector,
  scanPaths,
} from './paths.js'
export type { PayloadString } from './payload.js'
export { payloadStrings, redactText } from './payload.js'
export type { PiiKind, PiiOptions } from './pii.js'
export { ibanValid, luhnValid, PII_KINDS, piiDetector, scanPii } from './pii.js'
export type { SecretsOptions } from './secrets.js'
export { SECRET_KINDS, scanSecrets, secretsDetector, shannonEntropy } from './secrets.js'
export type { ShellOptions, ShellRule } from './shell.js'
export { isCriticalPath, SHELL_LIMIT_KIND, SHELL_RULES, scanShell, shellDetector } from './shell.js'
export type { RunCommand } from './shell-commands.js'
export { normalisePath, runCommands } from './shell-commands.js'
export type {
  FunctionDef,
  ParsedScript,
  Redirect,
  ShellBound,
  ShellReading,
  SimpleCommand,
} from './shell-parse.js'
export { newReading, parseShell, SHELL_LIMITS } from './shell-parse.js'
export type { Detector, Finding, ScanContext, ScanTarget } from './types.js'
export { DEFAULT_MAX_SCAN_CHARS, SCAN_LIMIT_KIND } from './types.js'
