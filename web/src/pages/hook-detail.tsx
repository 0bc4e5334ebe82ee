// One hook: a header (state, breaker, edit / delete / toggle) and three tabs. Overview: the
// definition and the last 24 hours of outcomes. Test: a dry run on a sample event, with
// what the handler reported and the payload diff. History: its executions, filtered and
// paged. Kept live by `hook.changed` and `breaker.tripped` pushes.

import { Fragment } from 'preact'
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { ApiError, type Client } from '../api'
import { JsonDiff } from '../components/diff'
import { bucketByHour, OutcomeChart } from '../components/outcome-chart'
import { Badge, Empty, ErrorText, Json, ms, Time } from '../components/ui'
import { href, navigate } from '../router'
import { useSession } from '../session'
import type { DryRun, Execution, Hook } from '../types'

interface HistoryPage {
  executions: Execution[]
  next?: string
}

const TABS = [
  ['overview', 'Overview'],
  ['test', 'Test'],
  ['history', 'History'],
] as const

/** The hook page; its state starts afresh for another hook. */
export function HookDetail({ id, tab }: { id: string; tab: string }) {
  return <HookPage key={id} id={id} tab={tab} />
}

function HookPage({ id, tab }: { id: string; tab: string }) {
  const { client, can } = useSession()
  const [hook, setHook] = useState<Hook>()
  const [missing, setMissing] = useState(false)
  const [error, setError] = useState<unknown>()
  const [actionError, setActionError] = useState<unknown>()
  const [busy, setBusy] = useState(false)
  // The Test tab's editor and last result outlive switching tabs.
  const [sample, setSample] = useState<string>()
  const [result, setResult] = useState<DryRun>()

  useEffect(() => {
    let live = true
    const load = () =>
      client
        .call<Hook>('hooks.get', { id })
        .then((found) => {
          if (!live) return
          setHook(found)
          setMissing(false)
          setError(undefined)
        })
        .catch((e: unknown) => {
          if (!live) return
          if (e instanceof ApiError && e.code === 'not-found') setMissing(true)
          else setError(e)
        })
    void load()
    const offs = [
      client.on('hook.changed', (payload) => {
        const change = payload as { id?: string; change?: string }
        if (change.id !== id) return
        if (change.change === 'deleted') setMissing(true)
        else void load()
      }),
      client.on('breaker.tripped', (payload) => {
        if ((payload as { hookId?: string }).hookId === id) void load()
      }),
    ]
    return () => {
      live = false
      for (const off of offs) off()
    }
  }, [client, id])

  if (missing) {
    return (
      <section>
        <h1>Hook not found</h1>
        <p>
          There is no hook <code>{id}</code>, or this token may not see it. It may have just been deleted.
        </p>
        <p>
          <a href={href('hooks')}>← Back to hooks</a>
        </p>
      </section>
    )
  }
  if (!hook) {
    return (
      <section>
        <p>
          <a href={href('hooks')}>← Hooks</a>
        </p>
        {error ? <ErrorText error={error} /> : <Empty>Loading…</Empty>}
      </section>
    )
  }

  const act = async (work: () => Promise<void>) => {
    setBusy(true)
    setActionError(undefined)
    try {
      await work()
    } catch (e) {
      setActionError(e)
    } finally {
      setBusy(false)
    }
  }
  const toggle = (enabled: boolean) =>
    act(async () => setHook(await client.call<Hook>('hooks.toggle', { id: hook.id, enabled })))
  const remove = () => {
    if (!confirm(`Delete the hook "${hook.name}"? Agents stop seeing it at once; this cannot be undone.`))
      return
    void act(async () => {
      await client.call('hooks.delete', { id: hook.id })
      navigate('/hooks')
    })
  }

  const current = TABS.some(([name]) => name === tab) ? tab : 'overview'
  return (
    <section class="hd">
      <p class="hd-back">
        <a href={href('hooks')}>← Hooks</a>
      </p>
      <div class="titlebar">
        <div class="hd-title">
          <h1>{hook.name}</h1>
          <p class="hd-meta">
            <code>{hook.id}</code>
            <span class={`badge tone-${hook.enabled ? 'ok' : 'muted'}`}>
              {hook.enabled ? 'enabled' : 'disabled'}
            </span>
            {hook.breaker && (
              <span class="badge tone-bad" title={`breaker open: ${hook.breaker.lastError}`}>
                breaker open
              </span>
            )}
            <Badge value={hook.source} title={hook.origin} />
            <span class="hint">v{hook.version}</span>
          </p>
        </div>
        <div class="hd-actions">
          {can('hooks.toggle') && (
            <button type="button" disabled={busy} onClick={() => void toggle(!hook.enabled)}>
              {hook.enabled ? 'Disable' : 'Enable'}
            </button>
          )}
          {can('hooks.update') && !hook.readOnly && (
            <a class="button" href={href('hooks', hook.id, 'edit')}>
              Edit
            </a>
          )}
          {can('hooks.delete') && hook.source === 'api' && (
            <button type="button" class="danger" disabled={busy} onClick={remove}>
              Delete
            </button>
          )}
        </div>
      </div>
      {hook.breaker && (
        <p class="notice hd-breaker" role="status">
          The circuit breaker switched this hook off <Time at={hook.breaker.openedAt} /> after{' '}
          {hook.breaker.failures} failures; last error: {hook.breaker.lastError}.{' '}
          {can('hooks.toggle') && (
            <button type="button" disabled={busy} onClick={() => void toggle(true)}>
              Re-arm
            </button>
          )}
        </p>
      )}
      {hook.readOnly && (
        <p class="notice">
          This hook comes from <code>{hook.origin ?? 'the configuration'}</code>: change it in that file. Here
          it can only be switched on or off (the switch is kept in the database).
        </p>
      )}
      <ErrorText error={actionError} />
      <nav class="tabs" aria-label="Hook">
        {TABS.map(([name, label]) => (
          <a
            key={name}
            class="tab"
            href={name === 'overview' ? href('hooks', hook.id) : href('hooks', hook.id, name)}
            aria-current={current === name ? 'page' : undefined}
          >
            {label}
          </a>
        ))}
      </nav>
      {current === 'overview' && <Overview hook={hook} />}
      {current === 'test' && (
        <TestTab
          hook={hook}
          text={sample ?? sampleText(hook)}
          setText={setSample}
          result={result}
          setResult={setResult}
        />
      )}
      {current === 'history' && <HistoryTab id={hook.id} />}
    </section>
  )
}

// ---------------------------------------------------------------------------------------
// Overview

function scopeText(hook: Hook): string {
  const parts: string[] = [hook.scope]
  if (hook.tenant) parts.push(`tenant ${hook.tenant}`)
  if (hook.agents.length > 0) parts.push(`agents ${hook.agents.join(', ')}`)
  return parts.join(' · ')
}

function Overview({ hook }: { hook: Hook }) {
  const none = <span class="hint">none</span>
  return (
    <>
      <div class="grid">
        <div class="card">
          <h2 class="hd-card-title">Definition</h2>
          <dl class="summary">
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

const COUNTED = ['allow', 'deny', 'modify', 'ask', 'skipped'] as const

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
    const durations = data.rows.map((r) => r.durationMs).sort((a, b) => a - b)
    return {
      counts,
      errors,
      p50: percentile(durations, 0.5),
      p95: percentile(durations, 0.95),
      buckets: bucketByHour(data.rows, data.now),
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
              <dd>{data.rows.length}</dd>
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
            <div>
              <dt>p50</dt>
              <dd>{ms(stats.p50)}</dd>
            </div>
            <div>
              <dt>p95</dt>
              <dd>{ms(stats.p95)}</dd>
            </div>
          </dl>
          <OutcomeChart buckets={stats.buckets} />
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

// ---------------------------------------------------------------------------------------
// Test

type Sample = { payload: Record<string, unknown>; context: Record<string, unknown> }

/** Tool names a sample tries against a matcher that is a real regex. */
const CANDIDATES = [
  'exec',
  'Bash',
  'shell',
  'write_file',
  'Write',
  'Edit',
  'Read',
  'read_file',
  'fetch',
  'deploy',
]

/** A tool name the hook's matcher matches (a plain name or `a|b` list gives its first). */
export function toolNameFor(matcher: string | undefined): string {
  if (!matcher) return 'exec'
  let inner = matcher.replace(/^\^/, '').replace(/\$$/, '')
  if (inner.startsWith('(') && inner.endsWith(')')) inner = inner.slice(1, -1)
  if (/^[\w\-:/]+(\|[\w\-:/]+)*$/.test(inner)) return inner.split('|')[0] as string
  try {
    const insensitive = matcher.startsWith('(?i)')
    const regex = new RegExp(insensitive ? matcher.slice(4) : matcher, insensitive ? 'i' : '')
    return CANDIDATES.find((name) => regex.test(name)) ?? 'exec'
  } catch {
    return 'exec'
  }
}

/** A plausible input for a tool of that name. */
function toolInput(name: string): Record<string, unknown> {
  if (/bash|shell|exec|command|run|terminal/i.test(name)) return { command: 'ls -la' }
  if (/write|edit/i.test(name)) return { path: 'notes/todo.md', content: 'hello' }
  if (/read|file|path/i.test(name)) return { path: 'README.md' }
  if (/fetch|http|url|web|browse/i.test(name)) return { url: 'https://example.com' }
  if (/search|query|find/i.test(name)) return { query: 'warden' }
  if (/deploy/i.test(name)) return { env: 'staging' }
  return {}
}

/** A sample event for the hook's event, one the hook's matcher and scope let through. */
export function sampleEvent(hook: Pick<Hook, 'event' | 'matcher' | 'agents'>): Sample {
  const agent = hook.agents[0] ?? 'agent-1'
  const context = { agent: { id: agent, name: agent }, session: { id: 'session-1' } }
  const name = toolNameFor(hook.matcher)
  const tool = { name, input: toolInput(name) }
  const event = hook.event
  let payload: Record<string, unknown> = {}
  if (event === 'tool.pre') payload = { tool }
  else if (event === 'tool.post') payload = { tool: { ...tool, output: 'ok', isError: false } }
  else if (event === 'user.message') payload = { message: { role: 'user', text: 'Please tidy up my notes.' } }
  else if (event === 'agent.response')
    payload = { message: { role: 'agent', text: 'Done: I tidied up your notes.' } }
  else if (event === 'system.message')
    payload = { message: { role: 'system', text: 'You are a careful assistant.' } }
  else if (event === 'mcp.outbound')
    payload = {
      mcp: {
        direction: 'outbound',
        method: 'tools/call',
        message: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: tool.input } },
      },
      tool,
    }
  else if (event === 'mcp.inbound')
    payload = {
      mcp: {
        direction: 'inbound',
        message: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'ok' }] } },
      },
      tool,
    }
  else if (event === 'model.pre')
    payload = { model: { name: 'example-model', messages: [{ role: 'user', content: 'Hello' }] } }
  else if (event === 'model.post')
    payload = {
      model: {
        name: 'example-model',
        response: { role: 'assistant', content: 'Hi! How can I help?' },
        usage: { inputTokens: 12, outputTokens: 7 },
      },
    }
  return { payload, context }
}

function sampleText(hook: Hook): string {
  return JSON.stringify(sampleEvent(hook), null, 2)
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

function TestTab({
  hook,
  text,
  setText,
  result,
  setResult,
}: {
  hook: Hook
  text: string
  setText: (text: string | undefined) => void
  result: DryRun | undefined
  setResult: (result: DryRun | undefined) => void
}) {
  const { client, can } = useSession()
  const [problem, setProblem] = useState<{ field?: string; message: string }>()
  const [running, setRunning] = useState(false)
  const allowed = can('hooks.test')

  const run = async () => {
    setProblem(undefined)
    let event: unknown
    try {
      event = JSON.parse(text)
    } catch (e) {
      setProblem({ message: `Not valid JSON: ${e instanceof Error ? e.message : String(e)}` })
      return
    }
    if (!isObject(event) || !isObject(event.payload)) {
      setProblem({ message: 'The sample must be an object like { "payload": {…}, "context": {…} }.' })
      return
    }
    setRunning(true)
    try {
      setResult(await client.call<DryRun>('hooks.test', { id: hook.id, event }))
    } catch (e) {
      setResult(undefined)
      setProblem(
        e instanceof ApiError
          ? { message: e.message, ...(e.field ? { field: e.field } : {}) }
          : { message: String(e) },
      )
    } finally {
      setRunning(false)
    }
  }

  return (
    <div class="hd-test">
      <form
        class="hd-editor"
        onSubmit={(e) => {
          e.preventDefault()
          if (allowed && !running) void run()
        }}
      >
        <label for="hd-sample">Sample event</label>
        <p class="hint" id="hd-sample-hint">
          JSON with the event's <code>payload</code> and, optionally, its <code>context</code> (the tenant is
          set from your token or the hook). A dry run writes no audit record and trips no breaker, but the
          handler really runs.{allowed && ' Ctrl+Enter runs it.'}
        </p>
        <textarea
          id="hd-sample"
          class="code"
          rows={14}
          spellcheck={false}
          value={text}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? 'hd-sample-hint hd-sample-error' : 'hd-sample-hint'}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
              e.preventDefault()
              ;(e.currentTarget as HTMLTextAreaElement).form?.requestSubmit()
            }
          }}
        />
        {problem && (
          <p class="field-error" id="hd-sample-error" role="alert">
            {problem.field && <code>{problem.field}</code>}
            {problem.field && ': '}
            {problem.message}
          </p>
        )}
        <div class="hd-buttons">
          {allowed ? (
            <button type="submit" class="primary" disabled={running}>
              {running ? 'Running…' : 'Run'}
            </button>
          ) : (
            <span class="hint">This token may not run tests.</span>
          )}
          <button
            type="button"
            onClick={() => {
              setText(undefined)
              setProblem(undefined)
            }}
          >
            Reset sample
          </button>
        </div>
      </form>
      <p class="visually-hidden" role="status">
        {running
          ? 'Running…'
          : result
            ? `Result: ${result.decision} in ${ms(result.durationMs)}${result.reason ? `: ${result.reason}` : ''}`
            : ''}
      </p>
      {result && <TestResult result={result} />}
    </div>
  )
}

function TestResult({ result }: { result: DryRun }) {
  return (
    <section class="hd-result" aria-labelledby="hd-result-title">
      <h2 id="hd-result-title">Result</h2>
      <div class="card">
        <dl class="summary">
          <dt>Decision</dt>
          <dd>
            <Badge value={result.decision} />
          </dd>
          <dt>Duration</dt>
          <dd>{ms(result.durationMs)}</dd>
          {result.reason && (
            <>
              <dt>Reason</dt>
              <dd>{result.reason}</dd>
            </>
          )}
          {result.skipped && (
            <>
              <dt>Skipped</dt>
              <dd>{result.skipped}</dd>
            </>
          )}
          {result.error && (
            <>
              <dt>Error</dt>
              <dd class="hd-error">
                {result.error.kind && <code>{result.error.kind}</code>} {result.error.message}
              </dd>
            </>
          )}
          {result.additionalContext.length > 0 && (
            <>
              <dt>Additional context</dt>
              <dd>
                <ul class="hd-list">
                  {result.additionalContext.map((line, i) => (
                    <li key={i}>{line}</li>
                  ))}
                </ul>
              </dd>
            </>
          )}
        </dl>
      </div>
      <HandlerDetail detail={result.detail} />
      {result.output && (
        <>
          <h3>Payload: input → output</h3>
          <JsonDiff before={result.input} after={result.output} />
        </>
      )}
      <details class="hd-trace">
        <summary>Trace</summary>
        <Json value={result.trace} />
      </details>
    </section>
  )
}

/** Short values a handler reports, in the order shown. */
const FACTS: [string, string][] = [
  ['exitCode', 'Exit code'],
  ['signal', 'Signal'],
  ['status', 'HTTP status'],
  ['attempts', 'Attempts'],
  ['judgeDecision', 'Judge decision'],
  ['judgeReason', 'Judge reason'],
  ['model', 'Model'],
  ['cached', 'Cached'],
  ['tokens', 'Tokens'],
  ['injectionDetected', 'Injection detected'],
]
const HANDLED = new Set([
  ...FACTS.map(([key]) => key),
  'stdout',
  'stderr',
  'stdoutTruncated',
  'stderrTruncated',
  'logs',
])

const show = (value: unknown): string =>
  value === null || value === undefined
    ? '-'
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value)

function Output({ title, text, truncated }: { title: string; text: unknown; truncated?: unknown }) {
  const body = typeof text === 'string' ? text : JSON.stringify(text, null, 2)
  return (
    <div class="hd-output">
      <h4>
        {title}
        {truncated ? <span class="hint"> (cut short)</span> : null}
      </h4>
      <pre class="json">{body === '' ? <span class="hint">(empty)</span> : body}</pre>
    </div>
  )
}

function HandlerDetail({ detail }: { detail: Record<string, unknown> }) {
  const keys = Object.keys(detail)
  if (keys.length === 0) return null
  const facts = FACTS.filter(([key]) => key in detail && !(key === 'signal' && detail.signal == null))
  const rest = Object.fromEntries(Object.entries(detail).filter(([key]) => !HANDLED.has(key)))
  return (
    <>
      <h3>Handler detail</h3>
      <div class="card hd-detail">
        {facts.length > 0 && (
          <dl class="summary">
            {facts.map(([key, label]) => (
              <Fragment key={key}>
                <dt>{label}</dt>
                <dd>{show(detail[key])}</dd>
              </Fragment>
            ))}
          </dl>
        )}
        {'stdout' in detail && (
          <Output title="stdout" text={detail.stdout} truncated={detail.stdoutTruncated} />
        )}
        {'stderr' in detail && (
          <Output title="stderr" text={detail.stderr} truncated={detail.stderrTruncated} />
        )}
        {'logs' in detail && (
          <Output
            title="Logs"
            text={Array.isArray(detail.logs) ? detail.logs.map(show).join('\n') : detail.logs}
          />
        )}
        {Object.keys(rest).length > 0 && (
          <div class="hd-output">
            <h4>Other detail</h4>
            <Json value={rest} />
          </div>
        )}
      </div>
    </>
  )
}

// ---------------------------------------------------------------------------------------
// History

const DECISIONS = ['allow', 'deny', 'modify', 'ask', 'abstain', 'skipped']
const PAGE = 50

function HistoryTab({ id }: { id: string }) {
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
