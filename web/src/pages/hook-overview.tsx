// The Overview tab of the hook page: the hook's definition, its handler config (secrets
// masked) and its outcomes over the last 24 hours (counts, p50 / p95 of the runs — skipped
// executions are not runs — and a chart per 30 minutes).

import { Fragment } from 'preact'
import { useEffect, useMemo, useState } from 'preact/hooks'
import type { Client } from '../api'
import { bucketize, OutcomeChart } from '../components/outcome-chart'
import { Badge, Empty, ErrorText, Json, ms, Time } from '../components/ui'
import { useSession } from '../session'
import type { Execution, HistoryPage, Hook } from '../types'

function scopeText(hook: Hook): string {
  const parts: string[] = [hook.scope]
  if (hook.tenant) parts.push(`tenant ${hook.tenant}`)
  if (hook.agents.length > 0) parts.push(`agents ${hook.agents.join(', ')}`)
  return parts.join(' · ')
}

/** The definition and handler config side by side, then the last 24 hours. */
export function OverviewTab({ hook }: { hook: Hook }) {
  const none = <span class="hint">none</span>
  return (
    <>
      <div class="grid">
        <div class="card">
          <h2 class="hd-card-title">Definition</h2>
          <dl class="summary">
            {hook.description && (
              <>
                <dt>Description</dt>
                <dd>{hook.description}</dd>
              </>
            )}
            <dt>Event</dt>
            <dd>
              <code>{hook.event}</code>
            </dd>
            <dt>Handler</dt>
            <dd>{hook.handlerType}</dd>
            <dt>Scope</dt>
            <dd>{scopeText(hook)}</dd>
            <dt>Matcher</dt>
            <dd>{hook.matcher ? <code>{hook.matcher}</code> : <span class="hint">any</span>}</dd>
            <dt>If</dt>
            <dd>{hook.if ? <code>{hook.if}</code> : none}</dd>
            <dt>Priority</dt>
            <dd>{hook.priority}</dd>
            <dt>Timeout</dt>
            <dd>{hook.timeoutMs} ms</dd>
            <dt>On timeout</dt>
            <dd>{hook.onTimeout}</dd>
            <dt>On error</dt>
            <dd>{hook.onError}</dd>
            <dt>Policy</dt>
            <dd>
              {hook.policy
                ? `${hook.policy.id}${hook.policy.version ? ` @ ${hook.policy.version}` : ''}`
                : none}
            </dd>
            <dt>Version</dt>
            <dd>v{hook.version}</dd>
            <dt>Source</dt>
            <dd>
              {hook.source}
              {hook.origin && <span class="sub">{hook.origin}</span>}
            </dd>
            <dt>Created</dt>
            <dd>
              <Time at={hook.createdAt} />
            </dd>
            <dt>Updated</dt>
            <dd>
              <Time at={hook.updatedAt} />
            </dd>
          </dl>
        </div>
        <div class="card">
          <h2 class="hd-card-title">Handler config</h2>
          <HandlerConfig handler={hook.handler} />
        </div>
      </div>
      <Outcomes id={hook.id} />
    </>
  )
}

/** The handler's config as JSON, with multi-line text (scripts, prompts) shown as text below. */
function HandlerConfig({ handler }: { handler: Record<string, unknown> }) {
  const texts = Object.entries(handler).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].includes('\n'),
  )
  const rest: Record<string, unknown> = { ...handler }
  for (const [key] of texts) rest[key] = '(shown below)'
  return (
    <>
      <Json value={rest} label="Handler config (secrets masked)" />
      {texts.map(([key, text]) => (
        <Fragment key={key}>
          <h3 class="hd-sub">{key}</h3>
          <pre class="json">{text}</pre>
        </Fragment>
      ))}
      <p class="hint">Secret values are shown masked.</p>
    </>
  )
}

const DAY = 86_400_000
const MAX_ROWS = 5000

/** Every execution since `since`, newest first, page by page, at most `max` rows. */
async function loadSince(
  client: Client,
  id: string,
  since: number,
  max: number,
): Promise<{ rows: Execution[]; capped: boolean }> {
  const rows: Execution[] = []
  let cursor: string | undefined
  for (;;) {
    const page = await client.call<HistoryPage>('hooks.history', {
      id,
      since,
      limit: Math.min(1000, max - rows.length),
      ...(cursor ? { cursor } : {}),
    })
    rows.push(...page.executions)
    if (!page.next) return { rows, capped: false }
    if (rows.length >= max) return { rows: rows.slice(0, max), capped: true }
    cursor = page.next
  }
}

/** The nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]
}

const COUNTED = ['allow', 'deny', 'modify', 'ask'] as const

function Outcomes({ id }: { id: string }) {
  const { client } = useSession()
  const [data, setData] = useState<{ rows: Execution[]; capped: boolean; now: number }>()
  const [error, setError] = useState<unknown>()
  const [round, setRound] = useState(0)

  useEffect(() => {
    let live = true
    const now = Date.now()
    setError(undefined)
    loadSince(client, id, now - DAY, MAX_ROWS)
      .then((loaded) => live && setData({ ...loaded, now }))
      .catch((e: unknown) => live && setError(e))
    return () => {
      live = false
    }
  }, [client, id, round])

  const stats = useMemo(() => {
    if (!data) return undefined
    const counts: Record<string, number> = {}
    let errors = 0
    for (const row of data.rows) {
      counts[row.decision] = (counts[row.decision] ?? 0) + 1
      if (row.error) errors++
    }
    // A skipped execution (matcher or condition false) did not run: not a run, no duration.
    const ran = data.rows.filter((r) => r.decision !== 'skipped')
    const durations = ran.map((r) => r.durationMs).sort((a, b) => a - b)
    return {
      counts,
      errors,
      runs: ran.length,
      p50: percentile(durations, 0.5),
      p95: percentile(durations, 0.95),
      buckets: bucketize(data.rows, data.now),
    }
  }, [data])

  return (
    <section class="hd-outcomes" aria-labelledby="hd-outcomes-title">
      <div class="titlebar">
        <h2 id="hd-outcomes-title">Last 24 hours</h2>
        <button type="button" class="link" onClick={() => setRound((r) => r + 1)}>
          Refresh
        </button>
      </div>
      <ErrorText error={error} />
      {!data || !stats ? (
        !error && <Empty>Loading outcomes…</Empty>
      ) : (
        <div class="card">
          <dl class="hd-stats">
            <div>
              <dt>runs</dt>
              <dd>{stats.runs}</dd>
            </div>
            {COUNTED.map((name) => (
              <div key={name}>
                <dt>
                  <Badge value={name} />
                </dt>
                <dd>{stats.counts[name] ?? 0}</dd>
              </div>
            ))}
            {(stats.counts.abstain ?? 0) > 0 && (
              <div>
                <dt>
                  <Badge value="abstain" />
                </dt>
                <dd>{stats.counts.abstain}</dd>
              </div>
            )}
            <div>
              <dt>
                <Badge value="error" />
              </dt>
              <dd>{stats.errors}</dd>
            </div>
            <div title="Executions whose matcher or condition did not hold: the hook did not run">
              <dt>
                <Badge value="skipped" />
              </dt>
              <dd>{stats.counts.skipped ?? 0}</dd>
            </div>
            <div>
              <dt>p50</dt>
              <dd>{ms(stats.p50)}</dd>
            </div>
            <div>
              <dt>p95</dt>
              <dd>{ms(stats.p95)}</dd>
            </div>
          </dl>
          <OutcomeChart buckets={stats.buckets} now={data.now} />
          {data.capped && (
            <p class="hint">
              Only the latest {MAX_ROWS} runs are counted; there were more in the last 24 hours.
            </p>
          )}
        </div>
      )}
    </section>
  )
}
