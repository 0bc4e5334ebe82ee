// One decision: what it decided and why, its payload in and what went out, its context,
// the per-hook timeline, and a replay against today's hooks that marks the hooks whose
// outcome changed.

import { useEffect, useMemo, useState } from 'preact/hooks'
import { ApiError } from '../api'
import { DecisionReplay } from '../components/decision-replay'
import { DecisionTrace } from '../components/decision-trace'
import { Badge, Empty, ErrorText, Json, ms, Time } from '../components/ui'
import { href } from '../router'
import { useSession } from '../session'
import type { DecisionDetail, Replay } from '../types'

/** The output of a decision, when it has more than an empty context list. */
function Output({ detail }: { detail: DecisionDetail }) {
  const out = detail.output ?? {}
  const context = out.additionalContext ?? []
  const parts = [
    out.payload !== undefined && (
      <div key="payload">
        <h3>Modified payload</h3>
        <Json value={out.payload} label="Modified payload" />
      </div>
    ),
    context.length > 0 && (
      <div key="context">
        <h3>Additional context</h3>
        <ul class="dec-context">
          {context.map((line, i) => (
            <li key={i}>{line}</li>
          ))}
        </ul>
      </div>
    ),
    out.approval !== undefined && (
      <div key="approval">
        <h3>Approval</h3>
        <Json value={out.approval} label="Approval" />
      </div>
    ),
  ].filter(Boolean)
  if (parts.length === 0) return <Empty>The payload went out unchanged, with no added context.</Empty>
  return <>{parts}</>
}

export function DecisionPage({ id }: { id: string }) {
  const { client, can } = useSession()
  const [detail, setDetail] = useState<DecisionDetail>()
  const [missing, setMissing] = useState(false)
  const [error, setError] = useState<unknown>()
  const [attempt, setAttempt] = useState(0)
  const [replay, setReplay] = useState<Replay>()
  const [replaying, setReplaying] = useState(false)
  const [replayError, setReplayError] = useState<unknown>()

  useEffect(() => {
    let current = true
    setError(undefined)
    setMissing(false)
    setReplay(undefined)
    setReplayError(undefined)
    client
      .call<DecisionDetail>('decisions.get', { id })
      .then((d) => {
        if (current) setDetail(d)
      })
      .catch((e: unknown) => {
        if (!current) return
        setDetail(undefined)
        if (e instanceof ApiError && e.code === 'not-found') setMissing(true)
        else setError(e)
      })
    return () => {
      current = false
    }
  }, [client, id, attempt])

  const runReplay = async () => {
    setReplaying(true)
    setReplayError(undefined)
    try {
      setReplay(await client.call<Replay>('decisions.replay', { id }))
    } catch (e) {
      setReplayError(e)
    } finally {
      setReplaying(false)
    }
  }

  const changed = useMemo(
    () => (replay ? new Set(replay.hooks.filter((h) => h.changed).map((h) => h.hook)) : undefined),
    [replay],
  )

  const back = (
    <p class="dec-back">
      <a href={href('decisions')}>← Decisions</a>
    </p>
  )
  if (missing)
    return (
      <section>
        {back}
        <h1>Decision not found</h1>
        <p>
          There is no decision <code>{id}</code> that this token may see. It may belong to another tenant, or
          have been made a moment ago and not be recorded yet.
        </p>
        <button type="button" onClick={() => setAttempt((n) => n + 1)}>
          Try again
        </button>
      </section>
    )
  if (error)
    return (
      <section>
        {back}
        <h1>Decision</h1>
        <ErrorText error={error} />
        <button type="button" onClick={() => setAttempt((n) => n + 1)}>
          Try again
        </button>
      </section>
    )
  if (!detail || detail.id !== id)
    return (
      <section>
        {back}
        <Empty>Loading…</Empty>
      </section>
    )

  const at = detail.createdAt ?? detail.at
  const input = detail.input ?? {}
  return (
    <section class="dec-detail">
      {back}
      <div class="titlebar">
        <h1>
          Decision <Badge value={detail.decision} />
        </h1>
        {can('decisions.replay') && (
          <button type="button" class="primary" onClick={() => void runReplay()} disabled={replaying}>
            {replaying ? 'Replaying…' : 'Replay'}
          </button>
        )}
      </div>
      <div class="card">
        <dl class="summary">
          <dt>Id</dt>
          <dd>
            <code>{detail.id}</code>
          </dd>
          <dt>Time</dt>
          <dd>
            <Time at={at} />
          </dd>
          <dt>Event</dt>
          <dd>{detail.event}</dd>
          <dt>Decision</dt>
          <dd>
            <Badge value={detail.decision} />
          </dd>
          <dt>Reason</dt>
          <dd>{detail.reason || <span class="hint">none</span>}</dd>
          <dt>Reason code</dt>
          <dd>
            {detail.reasonCode.length > 0 ? (
              detail.reasonCode.map((code) => (
                <code key={code} class="dec-code">
                  {code}
                </code>
              ))
            ) : (
              <span class="hint">none</span>
            )}
          </dd>
          <dt>Tenant</dt>
          <dd>{detail.tenant || <span class="hint">none (global)</span>}</dd>
          <dt>Agent</dt>
          <dd>{detail.agentId ?? <span class="hint">-</span>}</dd>
          <dt>Session</dt>
          <dd>{detail.sessionId ?? <span class="hint">-</span>}</dd>
          <dt>Duration</dt>
          <dd>{ms(detail.durationMs)}</dd>
          <dt>Blocking</dt>
          <dd>{detail.blocking ? 'yes — the caller waited' : 'no — the hooks ran in the background'}</dd>
        </dl>
      </div>

      {(replay || replayError) && (
        <section aria-labelledby="dec-replay-title">
          <h2 id="dec-replay-title">Replay against today's hooks</h2>
          <ErrorText error={replayError} />
          {replay && <DecisionReplay replay={replay} />}
        </section>
      )}

      <div class="dec-sides">
        <section aria-labelledby="dec-in-title" class="dec-side">
          <h2 id="dec-in-title">Payload in</h2>
          <Json value={input.payload ?? null} label="Payload in" />
        </section>
        <section aria-labelledby="dec-out-title" class="dec-side">
          <h2 id="dec-out-title">Out</h2>
          <Output detail={detail} />
        </section>
      </div>

      <h2>Context</h2>
      <Json value={input.context ?? null} label="Context" />

      <h2>
        Hooks <span class="hint">({detail.trace.length}, in the order they ran)</span>
      </h2>
      <p class="hint">Each bar is the hook's share of the decision's {ms(detail.durationMs)}.</p>
      <DecisionTrace trace={detail.trace} durationMs={detail.durationMs} changed={changed} />
    </section>
  )
}
