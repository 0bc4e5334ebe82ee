// The Changes tab of the hook page: every change made to the hook through the API, newest
// first, from the change record (`audit.changes`): who created, edited, switched it off or
// on, promoted or deleted it, when, the reason they gave, and what changed as a diff.

import { useEffect, useState } from 'preact/hooks'
import { JsonDiff } from '../components/diff'
import { Empty, ErrorText, Time } from '../components/ui'
import { useSession } from '../session'
import type { Change } from '../types'

const PAGE = 50

/** What a change did, in words. */
function describe(change: Change): string {
  const after = change.after as { enabled?: boolean } | undefined
  switch (change.action) {
    case 'hooks.create':
      return 'created it'
    case 'hooks.update':
      return 'edited it'
    case 'hooks.delete':
      return 'deleted it'
    case 'hooks.toggle':
      return after?.enabled ? 'switched it on' : 'switched it off'
    case 'hooks.promote':
      return 'promoted it to enforce'
    default:
      return change.action
  }
}

/** A hook view without the fields every save changes (they would fill every diff). */
function comparable(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value ?? {}
  const {
    updatedAt: _updated,
    createdAt: _created,
    breaker: _breaker,
    ...rest
  } = value as Record<string, unknown>
  return rest
}

export function ChangesTab({ id }: { id: string }) {
  const { client, can } = useSession()
  const [changes, setChanges] = useState<Change[]>()
  const [next, setNext] = useState<string>()
  const [error, setError] = useState<unknown>()
  const allowed = can('audit.changes')

  const load = async (cursor?: string) => {
    setError(undefined)
    try {
      const page = await client.call<{ changes: Change[]; next?: string }>('audit.changes', {
        target: id,
        limit: PAGE,
        ...(cursor ? { cursor } : {}),
      })
      setChanges((list) => (cursor ? [...(list ?? []), ...page.changes] : page.changes))
      setNext(page.next)
    } catch (e) {
      setError(e)
    }
  }

  useEffect(() => {
    if (!allowed) return
    void load()
    return client.on('hook.changed', (payload) => {
      if ((payload as { id?: string }).id === id) void load()
    })
  }, [client, id, allowed])

  if (!allowed) return <Empty>This token may not read the change record.</Empty>
  return (
    <section aria-labelledby="hc-title">
      <h2 id="hc-title">Changes</h2>
      <ErrorText error={error} />
      {changes === undefined ? (
        error ? null : (
          <Empty>Loading…</Empty>
        )
      ) : changes.length === 0 ? (
        <Empty>
          No change was made to this hook through the API. Hooks from files change in their file; switching
          one on or off shows here.
        </Empty>
      ) : (
        <ol class="hc-list">
          {changes.map((change, i) => (
            <li key={change.id} class="card hc-item" data-change={change.action}>
              <div class="hc-head">
                <strong>{change.actorName}</strong>
                <span>{describe(change)}</span>
                <span class="hint">
                  <Time at={change.at} />
                </span>
              </div>
              {change.reason && (
                <p class="hc-reason">
                  Reason: <q>{change.reason}</q>
                </p>
              )}
              <details open={i === 0}>
                <summary>What changed</summary>
                <JsonDiff
                  before={comparable(change.before)}
                  after={comparable(change.after)}
                  beforeLabel="Before"
                  afterLabel="After"
                  label={`Change by ${change.actorName}`}
                />
              </details>
            </li>
          ))}
        </ol>
      )}
      {next && (
        <button type="button" onClick={() => void load(next)}>
          Load older changes
        </button>
      )}
    </section>
  )
}
