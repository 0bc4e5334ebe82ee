// The overview's charts, drawn as SVG by hand: decisions over time as stacked bars by
// outcome (allow, modify, ask, deny) with the shadow hooks' would-be denials as a mark above
// each bar and the deny rate as a line on its own 0–100 % scale; each bar is a link (to the
// decisions of its time range). A screen reader gets a summary and each bar's counts in its
// link's label. Also a small meter for the top lists.

const OUTCOMES = ['allow', 'modify', 'ask', 'deny'] as const

/** One bar: the counts of [start, end). */
export interface SeriesPoint {
  start: number
  end: number
  total: number
  allow: number
  deny: number
  modify: number
  ask: number
  shadowDeny: number
}

const WIDTH = 720
const HEIGHT = 180
const TOP = 8
const BOTTOM = 2
const PLOT = HEIGHT - TOP - BOTTOM

const SHORT = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
const DAY = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' })

/** A time label fitted to the width of a bar: a clock under a day, a date beyond. */
export function pointLabel(at: number, stepMs: number): string {
  const d = new Date(at)
  return stepMs < 86_400_000 ? `${DAY.format(d)} ${SHORT.format(d)}` : DAY.format(d)
}

/** The deny rate of a count, as a percentage with one decimal ("–" when there were none). */
export function denyRate(c: { total: number; deny: number }): string {
  return c.total === 0 ? '–' : `${((c.deny / c.total) * 100).toFixed(1)} %`
}

/** A round ceiling for the axis: 1, 2, 5 × 10^n. */
function niceMax(value: number): number {
  if (value <= 0) return 1
  const power = 10 ** Math.floor(Math.log10(value))
  for (const m of [1, 2, 5, 10]) if (m * power >= value) return m * power
  return 10 * power
}

/** Decisions over time, stacked by outcome, with the deny rate; each bar links to `hrefOf(point)`. */
export function DecisionsChart({
  points,
  stepMs,
  hrefOf,
}: {
  points: SeriesPoint[]
  stepMs: number
  hrefOf: (p: SeriesPoint) => string
}) {
  const max = niceMax(Math.max(1, ...points.map((p) => Math.max(p.total, p.shadowDeny))))
  const slot = WIDTH / Math.max(1, points.length)
  const bar = Math.max(1, slot * 0.8)
  const y = (n: number) => TOP + PLOT - (n / max) * PLOT
  const rate = points
    .map((p, i) =>
      p.total > 0
        ? `${(i * slot + slot / 2).toFixed(1)},${(TOP + PLOT - (p.deny / p.total) * PLOT).toFixed(1)}`
        : '',
    )
    .filter(Boolean)
    .join(' ')
  const total = points.reduce((a, p) => a + p.total, 0)
  const deny = points.reduce((a, p) => a + p.deny, 0)
  const first = points[0]
  const last = points[points.length - 1]
  return (
    <figure
      class="ov-chart"
      aria-label={`Decisions over time: ${total} in ${points.length} bars, ${deny} denied (${denyRate({ total, deny })})`}
    >
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none">
        <title>Decisions over time by outcome, with the deny rate</title>
        {[0, 0.5, 1].map((f) => (
          <line
            key={f}
            class="ov-grid"
            x1={0}
            x2={WIDTH}
            y1={TOP + PLOT * (1 - f)}
            y2={TOP + PLOT * (1 - f)}
          />
        ))}
        {points.map((p, i) => {
          let base = 0
          const label = `${pointLabel(p.start, stepMs)}: ${p.total} decisions, ${p.allow} allowed, ${p.modify} modified, ${p.ask} asked, ${p.deny} denied (${denyRate(p)}), ${p.shadowDeny} shadow would-deny`
          return (
            <a key={p.start} href={hrefOf(p)} aria-label={label} data-start={p.start} class="ov-bar">
              <title>{label}</title>
              <rect class="ov-hit" x={i * slot} y={TOP} width={slot} height={PLOT} />
              {OUTCOMES.map((o) => {
                const n = p[o]
                if (n === 0) return null
                const top = y(base + n)
                const height = y(base) - top
                base += n
                return (
                  <rect
                    key={o}
                    class={`ov-${o}`}
                    x={i * slot + (slot - bar) / 2}
                    y={top}
                    width={bar}
                    height={Math.max(0.5, height)}
                  />
                )
              })}
              {p.shadowDeny > 0 && (
                <rect
                  class="ov-shadow"
                  x={i * slot + (slot - bar) / 2}
                  y={y(p.shadowDeny) - 1}
                  width={bar}
                  height={2}
                />
              )}
            </a>
          )
        })}
        {rate && <polyline class="ov-rate" points={rate} />}
        {points.map((p, i) =>
          p.total > 0 ? (
            <line
              key={p.start}
              class="ov-rate-mark"
              x1={i * slot + slot * 0.2}
              x2={i * slot + slot * 0.8}
              y1={TOP + PLOT - (p.deny / p.total) * PLOT}
              y2={TOP + PLOT - (p.deny / p.total) * PLOT}
            />
          ) : null,
        )}
      </svg>
      <div class="ov-axis" aria-hidden="true">
        <span>{first ? pointLabel(first.start, stepMs) : ''}</span>
        <span>scale 0–{max} decisions · deny rate 0–100 %</span>
        <span>{last ? pointLabel(last.end, stepMs) : ''}</span>
      </div>
      <figcaption class="ov-legend">
        {OUTCOMES.map((o) => (
          <span key={o}>
            <i class={`ov-key ov-${o}`} aria-hidden="true" />
            {o}
          </span>
        ))}
        <span>
          <i class="ov-key ov-shadow" aria-hidden="true" />
          shadow would-deny
        </span>
        <span>
          <i class="ov-key ov-rate-key" aria-hidden="true" />
          deny rate
        </span>
      </figcaption>
    </figure>
  )
}

/** A bar showing `value` out of `max`, beside a number. */
export function Meter({ value, max, tone }: { value: number; max: number; tone: 'deny' | 'ask' | 'warn' }) {
  const width = max > 0 ? Math.max(2, Math.round((value / max) * 100)) : 0
  return (
    <span class="ov-meter" aria-hidden="true">
      <span class={`ov-meter-fill ov-${tone}`} style={{ width: `${width}%` }} />
    </span>
  )
}
