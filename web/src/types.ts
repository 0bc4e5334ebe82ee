// The shapes the management API answers with, as the UI reads them (mirrors the server's
// views in src/server/management).

export type Role = 'admin' | 'editor' | 'approver' | 'viewer' | 'agent'

export interface ServerInfo {
  version: string
  token: { id: string; name: string; role: Role; tenant: string | null }
  methods: string[]
  events: string[]
  handlerTypes: string[]
  allowCommandHooks: boolean
  approvalTimeoutMs: number
  pushes: string[]
}

export interface Hook {
  id: string
  name: string
  description?: string
  event: string
  scope: 'global' | 'tenant' | 'agent'
  tenant?: string
  agents: string[]
  handlerType: string
  handler: Record<string, unknown>
  matcher?: string
  if?: string
  priority: number
  timeoutMs: number
  onTimeout: string
  onError: string
  enabled: boolean
  /** `shadow`: verdicts recorded, never applied. */
  mode?: 'enforce' | 'shadow'
  version: number
  policy?: { id: string; version?: string }
  source: 'api' | 'file' | 'builtin'
  origin?: string
  readOnly: boolean
  createdAt?: number
  updatedAt?: number
  breaker?: { open: true; openedAt: number; failures: number; lastError: string; tenants: string[] }
}

export interface HookPage {
  hooks: Hook[]
  total: number
  next?: number
}

export interface TraceEntry {
  id?: string
  hook: string
  name?: string
  handler: string
  version: number
  outcome: string
  reason?: string
  durationMs: number
  error?: { kind?: string; message: string }
  skipped?: string
  logs?: string[]
}

export interface DryRun {
  decision: 'allow' | 'deny' | 'modify' | 'ask' | 'skipped'
  reason?: string
  durationMs: number
  trace: TraceEntry
  detail: Record<string, unknown>
  additionalContext: string[]
  input: Record<string, unknown>
  output?: Record<string, unknown>
  skipped?: string
  error?: { kind: string; message: string }
}

export interface Execution {
  decisionId: string
  at: number
  decision: string
  durationMs: number
  version: number
  reason?: string
  error?: string
  errorKind?: string
  skipped?: string
}

/** A page of `hooks.history`: executions newest first, and the cursor of the next page. */
export interface HistoryPage {
  executions: Execution[]
  next?: string
}

export interface DecisionSummary {
  id: string
  at: number
  tenant: string
  agentId?: string
  sessionId?: string
  event: string
  decision: string
  reason: string
  reasonCode: string[]
  durationMs: number
  blocking: boolean
  /** The tool name, or MCP / A2A method. */
  tool?: string
  /** The input on one line, cut short. */
  preview?: string
  /** From decisions.list: the hooks whose verdict decided. */
  decidingHooks?: { hook: string; version: number }[]
  /** From a `decision` push: every hook that took part. */
  hooks?: { hook: string; outcome: string }[]
}

export interface DecisionDetail extends DecisionSummary {
  createdAt: number
  input: { event?: string; payload?: unknown; context?: unknown }
  output: { payload?: unknown; additionalContext?: string[]; approval?: unknown }
  trace: TraceEntry[]
}

export interface Replay {
  decisionId: string
  old: { decision: string; reason: string }
  new: { decision: string; reason: string; trace: TraceEntry[]; payload?: unknown }
  differs: boolean
  hooks: {
    hook: string
    old?: { outcome: string; version: number; reason?: string }
    new?: { outcome: string; version: number; reason?: string }
    changed: boolean
  }[]
  text: string
}

export interface Approval {
  id: string
  decisionId: string
  tenant: string
  status: 'pending' | 'approved' | 'rejected' | 'expired' | 'abandoned'
  event?: string
  asks: { hook: string; reason: string }[]
  requestedAt: number
  deadline?: number
  input?: { event?: string; payload?: Record<string, unknown>; context?: unknown }
  resolution?: string
  decidedBy?: string
  decidedAt?: number
  comment?: string
}

/** One hook's runs and denials over the window of `hooks.activity`. */
export interface HookActivity {
  id: string
  runs: number
  denials: number
  lastRunAt: number
  runsByBucket: number[]
  denialsByBucket: number[]
}

/** A variable an `if` condition can read (`events.reference`). */
export interface ConditionVariable {
  path: string
  type: string
  example: string
}

/** A change made through the API (`audit.changes`). */
export interface Change {
  id: string
  at: number
  actor: string
  actorName: string
  tenant: string
  action: string
  target: string
  before?: unknown
  after?: unknown
  reason?: string
}

/** Decisions counted by outcome (`overview.get`). */
export interface OutcomeCounts {
  total: number
  allow: number
  deny: number
  modify: number
  ask: number
  shadowDeny: number
}

/** A tool, agent or session of the overview's top lists. */
export interface OverviewItem {
  name: string
  total: number
  deny: number
  ask: number
}

/** One hook's activity in the overview's window. */
export interface OverviewHook {
  hook: string
  runs: number
  deny: number
  ask: number
  modify: number
  errors: number
  timeouts: number
  shadowRuns: number
  shadowDeny: number
  p50Ms: number
  p99Ms: number
}

/** What `overview.get` answers. */
export interface OverviewView {
  since: number
  until: number
  now: number
  grainMs: number
  stepMs: number
  tenant: string | null
  totals: OutcomeCounts
  series: (OutcomeCounts & { start: number; end: number })[]
  tools: OverviewItem[]
  agents: OverviewItem[]
  sessions: OverviewItem[]
  hooks: OverviewHook[]
  breakers: { hook: string; tenant: string; openedAt: number; failures: number; lastError: string }[]
  approvals: {
    id: string
    decisionId: string
    tenant: string
    event: string | null
    hooks: string[]
    requestedAt: number
    ageMs: number
    deadline?: number
  }[]
}
