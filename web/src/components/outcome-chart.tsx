// A hook's outcomes of the last 24 hours as stacked bars, one per 30 minutes ending now,
// drawn as SVG by hand, under a time axis with ticks at whole hours (every 6 h, 24-hour
// clock). Skipped executions did not run and are not drawn. The picture is one image with a
// summary for screen readers; the counts are also in a visually hidden table.

/** The outcomes the chart stacks, bottom to top (a skipped run did not run: not drawn). */
export const OUTCOMES = ['allow', 'abstain', 'modify', 'ask', 'deny'] as const
export type Outcome = (typeof OUTCOMES)[number]

export interface TimeBucket {
  /** The bucket's start (ms). */
  start: number
  counts: Record<Outcome, number>
  errors: number
  total: number
}

const HOUR = 3_600_000
/** The window the chart covers and the buckets it is cut into (30 minutes each). */
const SPAN = 24 * HOUR
const BUCKETS = 48

const zero = (): Record<Outcome, number> => ({ allow: 0, abstain: 0, modify: 0, ask: 0, deny: 0 })

/** The 24 hours before `now` in 48 buckets of 30 minutes; skipped executions are left out. */
export function bucketize(
  rows: { at: number; decision: string; error?: string }[],
  now: number = Date.now(),
): TimeBucket[] {
  const first = now - SPAN
  const width = SPAN / BUCKETS
  const buckets: TimeBucket[] = Array.from({ length: BUCKETS }, (_, i) => ({
    start: first + i * width,
    counts: zero(),
    errors: 0,
    total: 0,
  }))
  for (const row of rows) {
    if (!(OUTCOMES as readonly string[]).includes(row.decision)) continue
    const bucket = buckets[Math.min(BUCKETS - 1, Math.floor((row.at - first) / width))]
    if (!bucket || row.at < first) continue
    bucket.counts[row.decision as Outcome]++
    bucket.total++
    if (row.error) bucket.errors++
  }
  return buckets
}

const CLOCK = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
const hourLabel = (at: number) => CLOCK.format(new Date(at))

/** Ticks at whole local hours every 6 hours within the window, as [time, label, % from the left]. */
export function timeTicks(first: number, last: number): [number, string, number][] {
  const ticks: [number, string, number][] = []
  const start = new Date(first)
  start.setMinutes(0, 0, 0)
  for (let at = start.getTime() + HOUR; at < last; at += HOUR) {
    const hour = new Date(at).getHours()
    if (hour % 6 !== 0) continue
    const percent = ((at - first) / (last - first)) * 100
    // Leave room for "now" at the right edge.
    if (percent > 92) continue
    ticks.push([
      at,
      hour === 0 ? new Date(at).toLocaleDateString([], { day: 'numeric', month: 'short' }) : hourLabel(at),
      percent,
    ])
  }
  return ticks
}

/** A "nice" top for the y axis: 1, 2 or 5 × a power of ten, at least the largest bar. */
function niceMax(max: number): number {
  if (max <= 1) return 1
  const power = 10 ** Math.floor(Math.log10(max))
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power
  return max
}

const W = 480
const H = 120
const TOP = 6
const GAP = 3

/** Stacked bars of a hook's outcomes, 30 minutes each, over the last 24 hours. */
export function OutcomeChart({ buckets, now }: { buckets: TimeBucket[]; now: number }) {
  const max = niceMax(Math.max(0, ...buckets.map((b) => b.total)))
  const slot = W / buckets.length
  const scale = (H - TOP) / max
  const totals = zero()
  let errors = 0
  for (const b of buckets) {
    for (const o of OUTCOMES) totals[o] += b.counts[o]
    errors += b.errors
  }
  const runs = buckets.reduce((sum, b) => sum + b.total, 0)
  const busiest = buckets.reduce<TimeBucket | undefined>(
    (best, b) => (b.total > (best?.total ?? 0) ? b : best),
    undefined,
  )
  const summary =
    runs === 0
      ? 'Outcomes per 30 minutes, last 24 hours: no runs.'
      : `Outcomes per 30 minutes, last 24 hours: ${runs} runs (${OUTCOMES.filter((o) => totals[o] > 0)
          .map((o) => `${totals[o]} ${o}`)
          .join(
            ', ',
          )}${errors ? `, ${errors} with errors` : ''}); busiest half hour from ${busiest ? hourLabel(busiest.start) : ''} with ${busiest?.total ?? 0}.`
  const shown = OUTCOMES.filter((o) => o !== 'abstain' || totals.abstain > 0)
  return (
    <div class="chart">
      <div class="chart-frame">
        <span class="chart-max" aria-hidden="true">
          {max}
        </span>
        <svg
          class="chart-svg"
          role="img"
          aria-label={summary}
          viewBox={`0 0 ${W} ${H}`}
          preserveAspectRatio="none"
        >
          <line class="chart-grid" x1={0} x2={W} y1={TOP} y2={TOP} vector-effect="non-scaling-stroke" />
          <line
            class="chart-grid"
            x1={0}
            x2={W}
            y1={TOP + (H - TOP) / 2}
            y2={TOP + (H - TOP) / 2}
            vector-effect="non-scaling-stroke"
          />
          <line
            class="chart-axis"
            x1={0}
            x2={W}
            y1={H - 0.5}
            y2={H - 0.5}
            vector-effect="non-scaling-stroke"
          />
          {buckets.map((b, i) => {
            let y = H
            const x = i * slot + GAP / 2
            return (
              <g key={b.start}>
                <title>
                  {`${hourLabel(b.start)}: ${b.total} run${b.total === 1 ? '' : 's'}${OUTCOMES.filter(
                    (o) => b.counts[o] > 0,
                  )
                    .map((o) => `, ${b.counts[o]} ${o}`)
                    .join('')}${b.errors ? `, ${b.errors} errors` : ''}`}
                </title>
                {/* A transparent full-height bar so that the tooltip shows on empty hours too. */}
                <rect class="chart-hit" x={x} y={0} width={slot - GAP} height={H} />
                {OUTCOMES.map((o) => {
                  const h = b.counts[o] * scale
                  if (h <= 0) return null
                  y -= h
                  return <rect key={o} class={`chart-${o}`} x={x} y={y} width={slot - GAP} height={h} />
                })}
                {b.errors > 0 && (
                  <rect class="chart-error" x={x} y={Math.max(0, y - 4)} width={slot - GAP} height={3} />
                )}
              </g>
            )
          })}
        </svg>
      </div>
      <div class="chart-axis-labels" aria-hidden="true">
        <span class="chart-tick" style={{ left: '0%' }}>
          −24 h
        </span>
        {timeTicks(now - SPAN, now).map(([at, label, percent]) => (
          <span key={at} class="chart-tick" style={{ left: `${percent}%` }}>
            {label}
          </span>
        ))}
        <span class="chart-tick chart-tick-now">now</span>
      </div>
      <ul class="chart-legend" aria-hidden="true">
        {shown.map((o) => (
          <li key={o}>
            <span class={`chart-swatch chart-${o}`} />
            {o}
          </li>
        ))}
        <li>
          <span class="chart-swatch chart-error" />
          error
        </li>
      </ul>
      {runs > 0 && (
        <div class="visually-hidden">
          <table>
            <caption>Runs per 30 minutes, last 24 hours (those with runs)</caption>
            <thead>
              <tr>
                <th scope="col">From</th>
                {shown.map((o) => (
                  <th key={o} scope="col">
                    {o}
                  </th>
                ))}
                <th scope="col">errors</th>
              </tr>
            </thead>
            <tbody>
              {buckets
                .filter((b) => b.total > 0)
                .map((b) => (
                  <tr key={b.start}>
                    <th scope="row">{hourLabel(b.start)}</th>
                    {shown.map((o) => (
                      <td key={o}>{b.counts[o]}</td>
                    ))}
                    <td>{b.errors}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  )
}
