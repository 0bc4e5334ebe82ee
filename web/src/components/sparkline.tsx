// A small trend line of a hook's runs over the last 24 hours (one point per bucket), with the
// buckets that had denials marked below it. Drawn as SVG by hand; the numbers are in the
// title and beside it as text, so the picture only adds the shape.

const W = 96
const H = 22

/** Runs per bucket as a line, denials as marks on the base line. */
export function Sparkline({ runs, denials, label }: { runs: number[]; denials: number[]; label: string }) {
  const max = Math.max(1, ...runs)
  const step = runs.length > 1 ? W / (runs.length - 1) : W
  const y = (v: number) => H - 3 - (v / max) * (H - 6)
  const points = runs.map((v, i) => `${(i * step).toFixed(1)},${y(v).toFixed(1)}`).join(' ')
  return (
    <svg class="spark" viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img" aria-label={label}>
      <title>{label}</title>
      <polyline class="spark-line" points={points} fill="none" vector-effect="non-scaling-stroke" />
      {denials.map((d, i) =>
        d > 0 ? <rect key={i} class="spark-deny" x={i * step - 1.5} y={H - 3} width={3} height={3} /> : null,
      )}
    </svg>
  )
}
