// The History tab of the hook page: the hook's executions, newest first, filtered by
// decision and paged; each row links to its decision.

import { useEffect, useRef, useState } from 'preact/hooks'
import { Badge, Empty, ErrorText, ms, Time } from '../components/ui'
import { href } from '../router'
import { useSession } from '../session'
import type { Execution, HistoryPage } from '../types'

const DECISIONS = ['allow', 'deny', 'modify', 'ask', 'abstain', 'skipped']
const PAGE = 50

/** The executions of the hook `id`. */
export function HistoryTab({ id }: { id: string }) {
  const { client } = useSession()
  const [decision, setDecision] = useState('')
  const [rows, setRows] = useState<Execution[]>()
  const [next, setNext] = useState<string>()
  const [loading, setLoading] = useState(false)
  const [error, setError] = useState<unknown>()
  const [round, setRound] = useState(0)
  /** The latest request: answers to older ones (another filter) are dropped. */
  const latest = useRef(0)

  const fetchPage = async (cursor: string | undefined) => {
    const mine = ++latest.current
    setLoading(true)
    setError(undefined)
    try {
      const page = await client.call<HistoryPage>('hooks.history', {
        id,
        limit: PAGE,
        ...(decision ? { decision } : {}),
        ...(cursor ? { cursor } : {}),
      })
      if (mine !== latest.current) return
      setRows((before) => (cursor ? [...(before ?? []), ...page.executions] : page.executions))
      setNext(page.next)
    } catch (e) {
      if (mine === latest.current) setError(e)
    } finally {
      if (mine === latest.current) setLoading(false)
    }
  }

  useEffect(() => {
    setRows(undefined)
    setNext(undefined)
    void fetchPage(undefined)
  }, [client, id, decision, round])

  return (
    <section class="hd-history" aria-label="History">
      <div class="filters">
        <select
          aria-label="Decision"
          value={decision}
          onChange={(e) => setDecision((e.target as HTMLSelectElement).value)}
        >
          <option value="">All decisions</option>
          {DECISIONS.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        <button type="button" disabled={loading} onClick={() => setRound((r) => r + 1)}>
          Refresh
        </button>
      </div>
      <ErrorText error={error} />
      {rows === undefined ? (
        !error && <Empty>Loading…</Empty>
      ) : rows.length === 0 ? (
        <Empty>{decision ? `No ${decision} runs recorded.` : 'This hook has not run yet.'}</Empty>
      ) : (
        <div class="table-wrap">
          <table class="hd-history-table">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Decision</th>
                <th scope="col">Duration</th>
                <th scope="col">Reason</th>
                <th scope="col">Error</th>
                <th scope="col">Version</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={`${row.decisionId}-${row.at}`}>
                  <td class="hd-nowrap">
                    <a href={href('decisions', row.decisionId)} title={`Decision ${row.decisionId}`}>
                      <Time at={row.at} />
                    </a>
                  </td>
                  <td>
                    <Badge value={row.decision} />
                    {row.skipped && <span class="sub">{row.skipped}</span>}
                  </td>
                  <td class="hd-nowrap">{ms(row.durationMs)}</td>
                  <td class="hd-reason">{row.reason ?? ''}</td>
                  <td class="hd-reason">
                    {row.error && (
                      <span class="hd-error">
                        {row.errorKind && <code>{row.errorKind}</code>} {row.error}
                      </span>
                    )}
                  </td>
                  <td>v{row.version}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="hd-more">
        {rows && rows.length > 0 && (
          <span class="hint">
            {rows.length} run{rows.length === 1 ? '' : 's'} shown{next ? '' : ', no more'}
          </span>
        )}
        {next && (
          <button type="button" disabled={loading} onClick={() => void fetchPage(next)}>
            {loading ? 'Loading…' : 'Load more'}
          </button>
        )}
      </div>
    </section>
  )
}
