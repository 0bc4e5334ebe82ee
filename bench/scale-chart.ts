// Draws the scale benchmark's curves as a small SVG, written by hand: one panel per curve,
// a logarithmic x axis (hooks registered, payload bytes), the ratio against the same-run
// baseline on y, and the goal as a dashed line. Points over their goal are drawn in red.

/** One curve: ratios measured at growing sizes. */
export interface Curve {
  title: string
  /** The goal ratio drawn as a line (points with no goal of their own are not judged). */
  goal: number
  points: { x: number; ratio: number; judged?: boolean }[]
}

const PANEL_WIDTH = 360
const HEIGHT = 250
const MARGIN = { left: 44, right: 16, top: 30, bottom: 42 }

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** A size as people say it: 10,000 hooks, 100 KB. */
function label(x: number, bytes: boolean): string {
  if (!bytes) return x.toLocaleString('en-US')
  if (x >= 1_000_000) return `${x / 1_000_000} MB`
  if (x >= 1000) return `${x / 1000} KB`
  return `${x} B`
}

function panel(curve: Curve, offset: number): string {
  const bytes = curve.title.includes('size')
  const plotW = PANEL_WIDTH - MARGIN.left - MARGIN.right
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom
  const xs = curve.points.map((p) => Math.log10(p.x))
  const minX = Math.min(...xs)
  const maxX = Math.max(...xs)
  const top = Math.max(curve.goal * 1.25, ...curve.points.map((p) => p.ratio * 1.1))
  const inset = 24
  const px = (x: number) =>
    offset + MARGIN.left + inset + ((Math.log10(x) - minX) / (maxX - minX || 1)) * (plotW - 2 * inset)
  const py = (ratio: number) => MARGIN.top + plotH - (ratio / top) * plotH
  const parts: string[] = []
  parts.push(
    `<text x="${offset + PANEL_WIDTH / 2}" y="18" text-anchor="middle" font-weight="bold">${escapeXml(curve.title)}</text>`,
  )
  const axisY = MARGIN.top + plotH
  parts.push(
    `<line x1="${offset + MARGIN.left}" y1="${axisY}" x2="${offset + MARGIN.left + plotW}" y2="${axisY}" stroke="#555"/>`,
    `<line x1="${offset + MARGIN.left}" y1="${MARGIN.top}" x2="${offset + MARGIN.left}" y2="${axisY}" stroke="#555"/>`,
  )
  const step = top > 8 ? 2 : top > 3 ? 1 : 0.5
  for (let tick = 0; tick <= top; tick += step) {
    const y = py(tick).toFixed(1)
    parts.push(
      `<line x1="${offset + MARGIN.left - 4}" y1="${y}" x2="${offset + MARGIN.left + plotW}" y2="${y}" stroke="#eee"/>`,
      `<text x="${offset + MARGIN.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${tick}x</text>`,
    )
  }
  const goalY = py(curve.goal).toFixed(1)
  parts.push(
    `<line x1="${offset + MARGIN.left}" y1="${goalY}" x2="${offset + MARGIN.left + plotW}" y2="${goalY}" stroke="#c33" stroke-dasharray="5 4"/>`,
    `<text x="${offset + MARGIN.left + plotW}" y="${Number(goalY) - 5}" text-anchor="end" fill="#c33">goal ${curve.goal}x</text>`,
  )
  const path = curve.points.map(
    (p, i) => `${i === 0 ? 'M' : 'L'}${px(p.x).toFixed(1)},${py(p.ratio).toFixed(1)}`,
  )
  parts.push(`<path d="${path.join(' ')}" fill="none" stroke="#2563eb" stroke-width="2"/>`)
  for (const p of curve.points) {
    const x = px(p.x).toFixed(1)
    const y = py(p.ratio).toFixed(1)
    const missed = p.judged !== false && p.ratio > curve.goal
    parts.push(
      `<circle cx="${x}" cy="${y}" r="4" fill="${missed ? '#c33' : '#2563eb'}"/>`,
      `<text x="${x}" y="${Number(y) - 9}" text-anchor="middle">${p.ratio.toFixed(2)}x</text>`,
      `<text x="${x}" y="${axisY + 16}" text-anchor="middle">${escapeXml(label(p.x, bytes))}</text>`,
    )
  }
  parts.push(
    `<text x="${offset + MARGIN.left + plotW / 2}" y="${HEIGHT - 8}" text-anchor="middle" fill="#555">${bytes ? 'tool input size' : 'hooks registered'} (log scale)</text>`,
  )
  return parts.join('\n')
}

/** The SVG text for the curves, side by side. */
export function scaleChart(curves: readonly Curve[]): string {
  const width = PANEL_WIDTH * curves.length
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${HEIGHT}" viewBox="0 0 ${width} ${HEIGHT}" font-family="sans-serif" font-size="11" role="img" aria-label="Dispatch time against hooks registered and tool input size">`,
    '<title>Dispatch time against hooks registered and tool input size</title>',
    `<rect width="${width}" height="${HEIGHT}" fill="#fff"/>`,
    ...curves.map((curve, i) => panel(curve, i * PANEL_WIDTH)),
    '</svg>',
    '',
  ].join('\n')
}
