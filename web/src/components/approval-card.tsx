// One approval: what is asked (event, tenant, tool and its whole input, hidden characters
// made visible), who asked (agent, session, turn) and which hooks asked and why, a live
// countdown to its deadline, and — for approvers — Approve, Reject (with a comment) and
// Edit (a JSON editor for the tool input, then "Approve edited").

import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import { ApiError } from '../api'
import { useSession } from '../session'
import type { Approval } from '../types'
import { JsonEditor, parseJsonObject } from './json-editor'
import { Badge, ErrorText, exactTime, Time } from './ui'
import { describeFindings, noFindings, visibleJson, visibleNodes } from './visible-text'

/** The tool an approval is about, when its payload names one. */
export function approvalTool(approval: Approval): { name?: string; input?: Record<string, unknown> } {
  const tool = approval.input?.payload?.tool
  if (typeof tool !== 'object' || tool === null || Array.isArray(tool)) return {}
  const { name, input } = tool as { name?: unknown; input?: unknown }
  return {
    ...(typeof name === 'string' ? { name } : {}),
    ...(typeof input === 'object' && input !== null && !Array.isArray(input)
      ? { input: input as Record<string, unknown> }
      : {}),
  }
}

/** "0:27", "12:05", "1:02:03". */
function clock(ms: number): string {
  const total = Math.ceil(ms / 1000)
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = String(total % 60).padStart(2, '0')
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`
}

/** The time left before a deadline, ticking with `now`. */
export function ApprovalCountdown({ deadline, now }: { deadline: number | undefined; now: number }) {
  if (deadline === undefined) return null
  const left = deadline - now
  const expired = left <= 0
  return (
    <span
      class={`ap-countdown${expired ? ' ap-expired' : left < 10_000 ? ' ap-soon' : ''}`}
      role="timer"
      title={exactTime(deadline)}
    >
      {expired ? 'expired' : `expires in ${clock(left)}`}
    </span>
  )
}

type Action = 'approve' | 'reject' | 'edit'

/** A context field as text: a string, or an object's `name (id)`. */
function contextText(value: unknown): string | undefined {
  if (typeof value === 'string' && value) return value
  if (typeof value !== 'object' || value === null) return undefined
  const { id, name } = value as { id?: unknown; name?: unknown }
  const ids = [name, id].filter((v): v is string => typeof v === 'string' && v !== '')
  if (ids.length === 2 && ids[0] !== ids[1]) return `${ids[0]} (${ids[1]})`
  return ids[0]
}

/** Who asked: the agent, session, turn and user of the event, as far as it names them. */
function Requester({ context }: { context: unknown }) {
  const ctx = (typeof context === 'object' && context !== null ? context : {}) as Record<string, unknown>
  const rows: [string, string | undefined][] = [
    ['Agent', contextText(ctx.agent)],
    ['Session', contextText(ctx.session)],
    ['Turn', contextText(ctx.turnId)],
    ['User', contextText(ctx.user)],
  ]
  const found = noFindings()
  return (
    <>
      {rows.map(([label, text]) => [
        <dt key={`${label}-t`}>{label}</dt>,
        <dd key={`${label}-d`} class="vis-text">
          {text === undefined ? <span class="hint">not given</span> : visibleNodes(text, found)}
        </dd>,
      ])}
    </>
  )
}

/** The whole input, wrapped, with hidden characters visible and a notice when the box cuts it. */
function ApprovalInput({ value, label }: { value: unknown; label: string }) {
  const { nodes, found } = useMemo(() => {
    const found = noFindings()
    return { nodes: visibleJson(value, found), found }
  }, [value])
  const box = useRef<HTMLPreElement>(null)
  const [expanded, setExpanded] = useState(false)
  const [cut, setCut] = useState(false)
  useLayoutEffect(() => {
    const el = box.current
    setCut(!expanded && el !== null && el.scrollHeight > el.clientHeight + 1)
  }, [nodes, expanded])
  const summary = describeFindings(found)
  return (
    <>
      {found.bidi.length > 0 && (
        <p class="notice ap-warn" role="alert">
          Bidirectional controls ({found.bidi.join(', ')}) in the input: they can make text read in another
          order than it runs. Each is shown as its code point.
        </p>
      )}
      <pre ref={box} class={`json vis-json${expanded ? ' ap-expanded' : ''}`} title={label}>
        {nodes}
      </pre>
      {summary && <p class="hint ap-found">{summary}</p>}
      {cut && (
        <p class="notice ap-cut" role="status">
          The input is longer than this box: scroll it, or{' '}
          <button type="button" class="link" onClick={() => setExpanded(true)}>
            show all of it
          </button>
          .
        </p>
      )}
    </>
  )
}

export function ApprovalCard({
  approval,
  now,
  onResolved,
  onEngaged,
  onDismiss,
  target = false,
}: {
  approval: Approval
  /** The approval a link named (`#/approvals?id=…`): marked, scrolled to and focused. */
  target?: boolean
  /** The current time, as the server's clock reads it (best guess). */
  now: number
  /** This card's resolution went through: the server's view of the approval. */
  onResolved: (approval: Approval) => void
  /** Whether an answer is in flight or its error is shown (the card must then stay). */
  onEngaged: (id: string, engaged: boolean) => void
  onDismiss: (id: string) => void
}) {
  const { client, can } = useSession()
  const [comment, setComment] = useState('')
  const [editing, setEditing] = useState(false)
  const [text, setText] = useState('')
  const [parseError, setParseError] = useState<string>()
  const [busy, setBusy] = useState<Action>()
  const [error, setError] = useState<unknown>()
  const { id } = approval
  const pending = approval.status === 'pending'
  const tool = approvalTool(approval)
  const editsTool = tool.input !== undefined
  const base = `ap-${id.replace(/[^\w-]/g, '_')}`

  useEffect(() => onEngaged(id, busy !== undefined || Boolean(error)), [onEngaged, id, busy, error])
  useEffect(() => {
    if (!target) return
    const card = document.getElementById(base)
    card?.scrollIntoView({ block: 'center' })
    card?.focus()
  }, [target, base])
  useEffect(() => () => onEngaged(id, false), [onEngaged, id])

  const startEdit = () => {
    if (editing) {
      setEditing(false)
      return
    }
    setText(JSON.stringify(editsTool ? tool.input : (approval.input?.payload ?? {}), null, 2))
    setParseError(undefined)
    setEditing(true)
  }

  const send = async (action: Action) => {
    const params: Record<string, unknown> = { id, action }
    if (comment.trim()) params.comment = comment.trim()
    if (action === 'edit') {
      const parsed = parseJsonObject(text)
      if (parsed.error) {
        setParseError(parsed.error)
        document.getElementById(`${base}-json`)?.focus()
        return
      }
      params[editsTool ? 'input' : 'payload'] = parsed.value
    }
    setBusy(action)
    setError(undefined)
    try {
      const resolved = await client.call<Approval>('approvals.resolve', params)
      setBusy(undefined)
      onResolved(resolved)
    } catch (e) {
      setError(e instanceof ApiError && e.code === 'conflict' ? new Error(`Too late: ${e.message}.`) : e)
      setBusy(undefined)
    }
  }

  const title = tool.name ?? approval.event ?? approval.input?.event ?? 'approval'
  return (
    <article
      id={base}
      tabIndex={-1}
      class={`card ap-card${pending ? '' : ' ap-settled'}${target ? ' ap-target' : ''}`}
      aria-labelledby={`${base}-title`}
      aria-current={target ? 'true' : undefined}
    >
      <header class="ap-head">
        <h3 id={`${base}-title`} class="ap-title">
          {tool.name ? (
            <>
              <span class="hint">Tool</span> <code>{visibleNodes(tool.name, noFindings())}</code>
            </>
          ) : (
            title
          )}
        </h3>
        {pending ? (
          <ApprovalCountdown deadline={approval.deadline} now={now} />
        ) : (
          <Badge value={approval.status} />
        )}
      </header>
      <dl class="summary ap-facts">
        <dt>Event</dt>
        <dd>{approval.event ?? approval.input?.event ?? '-'}</dd>
        <dt>Tenant</dt>
        <dd>{approval.tenant || <span class="hint">none (global)</span>}</dd>
        <dt>Requested</dt>
        <dd>
          <Time at={approval.requestedAt} />
        </dd>
        <Requester context={approval.input?.context} />
      </dl>
      <p class="ap-label">{editsTool ? 'Tool input' : 'Payload'}</p>
      <ApprovalInput
        value={editsTool ? tool.input : (approval.input?.payload ?? null)}
        label={editsTool ? 'Tool input' : 'Payload'}
      />
      <p class="ap-label">Asked by</p>
      {approval.asks.length > 0 ? (
        <ul class="ap-asks">
          {approval.asks.map((ask, i) => (
            <li key={i}>
              <code>{ask.hook}</code>
              {ask.reason && <span> — {ask.reason}</span>}
            </li>
          ))}
        </ul>
      ) : (
        <p class="hint">No hook named.</p>
      )}

      {!pending && busy === undefined && (
        <div class="notice ap-elsewhere" role="status">
          Resolved elsewhere: {approval.status}
          {approval.decidedBy ? ` by ${approval.decidedBy}` : ''}
          {approval.comment ? ` — ${approval.comment}` : ''}.{' '}
          <button type="button" class="link" onClick={() => onDismiss(id)}>
            Dismiss
          </button>
        </div>
      )}

      {pending && can('approvals.resolve') && (
        <div class="ap-actions">
          <textarea
            id={`${base}-comment`}
            aria-label="Comment"
            placeholder="Comment (optional, sent with your answer)"
            rows={2}
            value={comment}
            onInput={(e) => setComment((e.target as HTMLTextAreaElement).value)}
          />
          <div class="ap-buttons">
            <button
              type="button"
              class="primary"
              disabled={busy !== undefined}
              onClick={() => void send('approve')}
            >
              {busy === 'approve' ? 'Approving…' : 'Approve'}
            </button>
            <button
              type="button"
              class="danger"
              disabled={busy !== undefined}
              onClick={() => void send('reject')}
            >
              {busy === 'reject' ? 'Rejecting…' : 'Reject'}
            </button>
            <button
              type="button"
              aria-expanded={editing}
              aria-controls={`${base}-editor`}
              disabled={busy !== undefined}
              onClick={startEdit}
            >
              Edit
            </button>
          </div>
          {editing && (
            <div id={`${base}-editor`} class="ap-editor">
              <JsonEditor
                id={`${base}-json`}
                label={editsTool ? 'New tool input (JSON)' : 'New payload (JSON)'}
                value={text}
                error={parseError}
                onInput={(value) => {
                  setText(value)
                  setParseError(parseJsonObject(value).error)
                }}
              />
              <div class="ap-buttons">
                <button
                  type="button"
                  class="primary"
                  disabled={busy !== undefined || Boolean(parseError)}
                  onClick={() => void send('edit')}
                >
                  {busy === 'edit' ? 'Approving…' : 'Approve edited'}
                </button>
                <button type="button" onClick={() => setEditing(false)}>
                  Cancel edit
                </button>
              </div>
            </div>
          )}
        </div>
      )}
      <ErrorText error={error} />
    </article>
  )
}
