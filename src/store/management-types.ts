// The management rows of the Store contract: approvals of held asks, access tokens and the
// change record of the management API (see types.ts for the Store itself).

/** An approval of a held `ask`. */
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired' | 'abandoned'

export interface ApprovalRow {
  id: string
  decisionId: string
  tenant: string
  status: ApprovalStatus
  /** The approver's comment, or why it expired. */
  reason?: string
  decidedBy?: string
  requestedAt: number
  decidedAt?: number
  /** The canonical event name of the held action. */
  event?: string
  /** The held event as the approver sees it: `{event, payload, context}`. */
  input?: unknown
  /** The hooks that asked, with their reasons. */
  asks?: { hook: string; reason: string }[]
  /** When the held request stops waiting (epoch ms). */
  deadline?: number
  /** How it was resolved: approve, reject or edit. */
  resolution?: 'approve' | 'reject' | 'edit'
  /** The edited payload of an `edit` resolution. */
  editedPayload?: unknown
  /** The instance holding the request (its random id). */
  instance?: string
}

/** How a pending approval is resolved (see {@link Store.resolveApproval}). */
export interface ApprovalResolution {
  /** `abandoned`: the caller is gone (its connection closed, or its instance died). */
  status: 'approved' | 'rejected' | 'expired' | 'abandoned'
  resolution?: 'approve' | 'reject' | 'edit'
  decidedBy?: string
  reason?: string
  editedPayload?: unknown
  decidedAt: number
}

/** Filters of {@link Store.listApprovals}. */
export interface ApprovalQuery {
  tenant?: string
  /** Only this approval (a link to one approval: its row whatever its status). */
  id?: string
  status?: ApprovalStatus
  /** Rows per page (default 100, at most 1000). */
  limit?: number
  /** Only rows requested before this approval (the previous page's last id). */
  cursor?: string
}

/** A management-API access token, as stored (the secret itself is never stored). */
export type TokenRole = 'admin' | 'editor' | 'viewer' | 'approver' | 'agent'

export interface TokenRow {
  id: string
  name: string
  /** Omitted for a master token (every tenant). */
  tenant?: string
  role: TokenRole
  /** SHA-256 of the secret, hex. */
  hash: string
  createdAt: number
  revokedAt?: number
}

/** One change made through the management API. */
export interface ChangeRow {
  id: string
  at: number
  /** The token id that made it. */
  actor: string
  actorName: string
  /** The tenant whose data changed ("" = global). */
  tenant: string
  /** The method, e.g. `hooks.update`. */
  action: string
  /** What changed, e.g. the hook id. */
  target: string
  /** The object before and after (secrets masked); absent for a create / delete. */
  before?: unknown
  after?: unknown
  /** Why, as the person who made it said (e.g. promoting a hook from shadow to enforce). */
  reason?: string
}

/** Filters of {@link Store.listChanges}, newest first. */
export interface ChangeQuery {
  tenant?: string
  target?: string
  limit?: number
  /** Only changes older than this change id (the previous page's last id). */
  cursor?: string
}
