// Where hook definitions and settings come from: warden.yaml (with its packs of built-in
// detector hooks), Markdown hook files (watched and reloaded), Claude Code settings and
// plugins, GoClaw hook files, loom agent.json profiles; and the engine built from them.

export { permissionRuleToCel } from './claude-rules.js'
export type { ClaudeSettingsOptions } from './claude-settings.js'
export {
  claudePluginRoot,
  claudeProjectDir,
  loadClaudeSettings,
  parseClaudeSettings,
} from './claude-settings.js'
export type { WardenConfig } from './config.js'
export { allowedHostsOf, breakerDisablesOnTrip, loadConfig, parseConfig } from './config.js'
export {
  API_SOURCE_PREFIX,
  appendConfined,
  isApiSource,
  relativePathProblem,
  tenantDataDir,
} from './data-dir.js'
export type { GoclawSink } from './goclaw.js'
export { goclawBudgets, goclawDefinition, loadGoclawHooks, parseGoclawHooks } from './goclaw.js'
export type { HookFileResult } from './hook-files.js'
export {
  checkHookFile,
  duplicateHookProblems,
  HARNESS_HOOK_DIR,
  hookDirsOrHarness,
  listHookFiles,
  loadHookDir,
  loadHookFile,
} from './hook-files.js'
export type { ParsedHookFile } from './hook-files-parse.js'
export { HOOK_FILE_KEYS, hookNameOf, parseHookFile, SCRIPT_HANDLER_TYPE } from './hook-files-parse.js'
export type { SourceProblem, SourceReport } from './hook-files-report.js'
export { emptyReport, formatProblem, mergeReports } from './hook-files-report.js'
export type { HookSourceOptions } from './hook-files-runtime.js'
export {
  applyKillSwitch,
  DISABLE_HOOKS_ENV,
  hooksDisabled,
  KILL_SWITCH_WARNING,
  loadHookSources,
  scriptHandlerOptions,
  WEBHOOK_ALLOW_ENV,
  webhookAllowList,
} from './hook-files-runtime.js'
export type { AttachReport, HookDirChange, HookDirWatcher, WatchOptions } from './hook-files-watch.js'
export { attachHookDir, hookId, watchHookDir } from './hook-files-watch.js'
export type { Pack, PackEntry } from './packs.js'
export { BUILTIN_SOURCE_PREFIX, expandPacks, PACK_NAMES, PACKS } from './packs.js'
export type { ProfileOptions } from './profile.js'
export { ALLOW_COMMAND_HOOKS_ENV, loadProfile, PROFILE_BUCKETS, parseProfile } from './profile.js'
export type { ProfileActionOptions } from './profile-actions.js'
export { createProfileActionHandler, PROFILE_ACTION_TYPE } from './profile-actions.js'
export type { RuntimeOptions } from './runtime.js'
export { buildEngine, buildHandlers } from './runtime.js'
