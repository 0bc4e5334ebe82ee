// The Test tab of the hook page: a dry run of the hook on a sample event, then what it
// decided, what its handler reported (exit code, stdout, judge answer…), the payload diff
// and the trace.

import { Fragment } from 'preact'
import { useState } from 'preact/hooks'
import { ApiError } from '../api'
import { JsonDiff } from '../components/diff'
import { Badge, Json, ms } from '../components/ui'
import { useSession } from '../session'
import type { DryRun, Hook } from '../types'

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** The sample editor and the last result; both are kept by the hook page across tabs. */
export function TestTab({
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
