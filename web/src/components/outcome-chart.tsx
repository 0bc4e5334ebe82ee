// A hook's outcomes of the last 24 hours as stacked bars, one per hour, drawn as SVG by
// hand. The picture is one image with a summary for screen readers; the hourly counts
// are also in a visually hidden table.

/** The outcomes the chart stacks, bottom to top. */
export const OUTCOMES = ['allow', 'abstain', 'modify', 'ask', 'deny', 'skipped'] as const
export type Outcome = (typeof OUTCOMES)[number]

export interface HourBucket {
  /** The hour's start (ms). */
  start: number
  counts: Record<Outcome, number>
  errors: number
  total: number
}

const HOUR = 3_600_000

const zero = (): Record<Outcome, number> => ({
  allow: 0,
  abstain: 0,
  modify: 0,
  ask: 0,
  deny: 0,
  skipped: 0,
})

/** The 24 hours ending with the current one, each with its outcome counts. */
export function bucketByHour(
  rows: { at: number; decision: string; error?: string }[],
  now: number = Date.now(),
): HourBucket[] {
  const last = Math.floor(now / HOUR) * HOUR
  const first = last - 23 * HOUR
  const buckets: HourBucket[] = Array.from({ length: 24 }, (_, i) => ({
    start: first + i * HOUR,
    counts: zero(),
    errors: 0,
    total: 0,
  }))
  for (const row of rows) {
    const bucket = buckets[Math.floor((row.at - first) / HOUR)]
    if (!bucket) continue
    const outcome = (OUTCOMES as readonly string[]).includes(row.decision)
      ? (row.decision as Outcome)
      : 'skipped'
    bucket.counts[outcome]++
    bucket.total++
    if (row.error) bucket.errors++
  }
  return buckets
}

const hourLabel = (at: number) => new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })

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

/** Stacked hourly bars of a hook's outcomes. */
export function OutcomeChart({ buckets }: { buckets: HourBucket[] }) {
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
  const busiest = buckets.reduce<HourBucket | undefined>(
    (best, b) => (b.total > (best?.total ?? 0) ? b : best),
    undefined,
  )
  const summary =
    runs === 0
      ? 'Outcomes by hour, last 24 hours: no runs.'
      : `Outcomes by hour, last 24 hours: ${runs} runs (${OUTCOMES.filter((o) => totals[o] > 0)
          .map((o) => `${totals[o]} ${o}`)
          .join(
            ', ',
          )}${errors ? `, ${errors} with errors` : ''}); busiest hour ${busiest ? hourLabel(busiest.start) : ''} with ${busiest?.total ?? 0}.`
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
        <span>{hourLabel(buckets[0]?.start ?? 0)}</span>
        <span>{hourLabel(buckets[12]?.start ?? 0)}</span>
        <span>now</span>
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
            <caption>Runs per hour, last 24 hours (hours with runs)</caption>
            <thead>
              <tr>
                <th scope="col">Hour</th>
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
