// The approvals inbox: pending approvals (soonest deadline first) with a live countdown and
// the approver's buttons, kept live by `approval.requested` / `approval.resolved` pushes;
// below, the recent resolved ones with who resolved them and their comment. A link to one
// approval (`#/approvals?id=…`, as notifications send) marks its card and scrolls to it, or
// says what became of it when it no longer waits.

import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { ApprovalCard, approvalTool } from '../components/approval-card'
import { NotifyToggle } from '../components/pending-alerts'
import { Badge, Empty, ErrorText, Time } from '../components/ui'
import { href, useRoute } from '../router'
import { useSession } from '../session'
import type { Approval } from '../types'

const RECENT = 50

function byDeadline(a: Approval, b: Approval): number {
  return (
    (a.deadline ?? Number.MAX_SAFE_INTEGER) - (b.deadline ?? Number.MAX_SAFE_INTEGER) ||
    a.requestedAt - b.requestedAt
  )
}

/** Puts an approval first in a list (replacing an older copy). */
function upsertFirst(list: Approval[], approval: Approval, max: number): Approval[] {
  return [approval, ...list.filter((a) => a.id !== approval.id)].slice(0, max)
}

const RESOLUTION: Record<string, string> = {
  approve: 'approved',
  reject: 'rejected',
  edit: 'approved with edits',
}

function RecentItem({ approval }: { approval: Approval }) {
  const tool = approvalTool(approval)
  const label = approval.resolution ? (RESOLUTION[approval.resolution] ?? approval.status) : approval.status
  return (
    <li class="ap-recent-item">
      <div class="ap-recent-head">
        <Badge value={approval.status} title={label} />
        <span>
          {tool.name ? <code>{tool.name}</code> : null} <span class="hint">{approval.event ?? ''}</span>
        </span>
        {approval.tenant && <span class="tenant">{approval.tenant}</span>}
        <span class="hint ap-recent-when">
          <Time at={approval.decidedAt ?? approval.requestedAt} />
        </span>
      </div>
      <p class="ap-recent-line">
        {approval.resolution === 'edit' ? 'Approved with edits' : capitalize(approval.status)}
        {approval.decidedBy ? ` by ${approval.decidedBy}` : ''}
        {approval.comment ? (
          <>
            {' — '}
            <q>{approval.comment}</q>
          </>
        ) : null}
        {' · '}
        <a href={href('decisions', approval.decisionId)}>View decision</a>
      </p>
    </li>
  )
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

/** What became of a linked approval that no longer waits (or was never visible here). */
function LinkedApproval({ id, waiting }: { id: string; waiting: boolean }) {
  const { client } = useSession()
  const [found, setFound] = useState<Approval | null>()
  useEffect(() => {
    if (waiting) return
    let current = true
    setFound(undefined)
    client
      .call<{ approvals: Approval[] }>('approvals.list', { id, limit: 1 })
      .then((answer) => current && setFound(answer.approvals[0] ?? null))
      .catch(() => current && setFound(null))
    return () => {
      current = false
    }
  }, [client, id, waiting])
  if (waiting || found === undefined || found?.status === 'pending') return null
  if (found === null) {
    return (
      <p class="notice" role="status">
        No approval <code>{id}</code> is visible to this token.
      </p>
    )
  }
  const label = found.resolution ? (RESOLUTION[found.resolution] ?? found.status) : found.status
  return (
    <p class="notice ap-linked" role="status">
      The linked approval no longer waits: {label}
      {found.decidedBy ? ` by ${found.decidedBy}` : ''} <Time at={found.decidedAt ?? found.requestedAt} />
      {' · '}
      <a href={href('decisions', found.decisionId)}>View decision</a>
    </p>
  )
}

export function ApprovalsPage() {
  const { client, can } = useSession()
  const linked = useRoute().query.get('id') ?? undefined
  const [pending, setPending] = useState<Approval[]>()
  const [recent, setRecent] = useState<Approval[]>()
  const [error, setError] = useState<unknown>()
  const [now, setNow] = useState(Date.now)
  /** Browser clock minus the server's, learnt from new requests (deadlines are the server's). */
  const [skew, setSkew] = useState(0)
  /** Cards with an answer in flight or an error shown: kept when resolved elsewhere. */
  const engaged = useRef(new Set<string>())
  const allowed = can('approvals.list')

  useEffect(() => {
    if (!allowed) return
    let current = true
    /** Pushes that arrive while the lists load: the lists may have been read before them. */
    const early = new Map<string, Approval>()
    let loaded = false
    const load = async () => {
      try {
        const [open, all] = await Promise.all([
          client.call<{ approvals: Approval[] }>('approvals.list', { status: 'pending', limit: 1000 }),
          client.call<{ approvals: Approval[] }>('approvals.list', { limit: RECENT }),
        ])
        if (!current) return
        loaded = true
        const waiting = new Map(open.approvals.map((a) => [a.id, a]))
        for (const [id, approval] of early) {
          if (approval.status === 'pending') waiting.set(id, approval)
          else waiting.delete(id)
        }
        const done = all.approvals.filter((a) => a.status !== 'pending' && !early.has(a.id))
        const resolvedEarly = [...early.values()].filter((a) => a.status !== 'pending')
        setPending([...waiting.values()].sort(byDeadline))
        setRecent([...resolvedEarly.reverse(), ...done].slice(0, RECENT))
      } catch (e) {
        if (current) setError(e)
      }
    }
    void load()
    const offs = [
      client.on('approval.requested', (payload) => {
        const approval = payload as Approval
        if (approval.status !== 'pending') return
        setSkew(Date.now() - approval.requestedAt)
        if (!loaded) early.set(approval.id, approval)
        setPending((list) =>
          list ? [...list.filter((a) => a.id !== approval.id), approval].sort(byDeadline) : list,
        )
      }),
      client.on('approval.resolved', (payload) => {
        const approval = payload as Approval
        if (!loaded) early.set(approval.id, approval)
        setPending((list) =>
          list
            ? engaged.current.has(approval.id)
              ? list.map((a) => (a.id === approval.id ? approval : a))
              : list.filter((a) => a.id !== approval.id)
            : list,
        )
        setRecent((list) => (list ? upsertFirst(list, approval, RECENT) : list))
      }),
    ]
    return () => {
      current = false
      for (const off of offs) off()
    }
  }, [client, allowed])

  const ticking = Boolean(pending?.some((a) => a.status === 'pending' && a.deadline !== undefined))
  useEffect(() => {
    if (!ticking) return
    setNow(Date.now())
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [ticking])

  const onEngaged = useCallback((id: string, on: boolean) => {
    if (on) engaged.current.add(id)
    else engaged.current.delete(id)
  }, [])
  const onResolved = useCallback((approval: Approval) => {
    engaged.current.delete(approval.id)
    setPending((list) => list?.filter((a) => a.id !== approval.id))
    setRecent((list) => upsertFirst(list ?? [], approval, RECENT))
    document.getElementById('ap-pending-title')?.focus()
  }, [])
  const onDismiss = useCallback((id: string) => {
    engaged.current.delete(id)
    setPending((list) => list?.filter((a) => a.id !== id))
    document.getElementById('ap-pending-title')?.focus()
  }, [])

  if (!allowed) return <Empty>This token may not read approvals.</Empty>

  const waiting = pending?.filter((a) => a.status === 'pending').length ?? 0
  return (
    <section class="ap-page">
      <div class="titlebar">
        <h1>Approvals</h1>
        {!can('approvals.resolve') && <p class="hint">This token may read approvals but not resolve them.</p>}
        <NotifyToggle />
      </div>
      <ErrorText error={error} />
      {linked && pending && (
        <LinkedApproval
          id={linked}
          waiting={pending.some((a) => a.id === linked && a.status === 'pending')}
        />
      )}
      <section aria-labelledby="ap-pending-title">
        <h2 id="ap-pending-title" tabIndex={-1}>
          Pending{' '}
          <span class="hint" role="status">
            {pending ? `(${waiting})` : ''}
          </span>
        </h2>
        {pending === undefined ? (
          error ? null : (
            <Empty>Loading…</Empty>
          )
        ) : pending.length === 0 ? (
          <Empty>Nothing waits for a decision. New requests appear here as they come.</Empty>
        ) : (
          <div class="ap-list">
            {pending.map((approval) => (
              <ApprovalCard
                key={approval.id}
                approval={approval}
                now={now - skew}
                onResolved={onResolved}
                onEngaged={onEngaged}
                onDismiss={onDismiss}
                target={approval.id === linked}
              />
            ))}
          </div>
        )}
      </section>
      <section aria-labelledby="ap-recent-title">
        <h2 id="ap-recent-title">Recent</h2>
        {recent === undefined ? null : recent.length === 0 ? (
          <Empty>No approval has been resolved yet.</Empty>
        ) : (
          <ul class="ap-recent">
            {recent.map((approval) => (
              <RecentItem key={approval.id} approval={approval} />
            ))}
          </ul>
        )}
      </section>
    </section>
  )
}
