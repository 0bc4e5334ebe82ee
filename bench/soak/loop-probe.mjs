// Loaded into the soaked `warden serve` with `node --import`: samples the event-loop delay
// (perf_hooks' histogram at 1 ms resolution, as bench/aos-server does) and writes it once a
// second, as JSON in milliseconds, to the file named by SOAK_LOOP_FILE. On SIGUSR2 it runs a
// full garbage collection (when node runs with --expose-gc), records the RSS left after it,
// and starts the histogram afresh: the soak sends it once the server listens (so loading is
// not counted), after warm-up and at the end, so that RSS is compared without the garbage
// that happens to be waiting. Otherwise it only observes.
import { writeFileSync } from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'

const file = process.env.SOAK_LOOP_FILE
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 1 })
  histogram.enable()
  const ms = (ns) => Math.round(ns / 1e4) / 100
  let settled = { rss: 0, heapUsed: 0, at: 0 }
  const write = () => {
    const summary = {
      p50: ms(histogram.percentile(50)),
      p99: ms(histogram.percentile(99)),
      max: ms(histogram.max),
      samples: histogram.count,
      settled,
    }
    try {
      writeFileSync(file, JSON.stringify(summary))
    } catch {
      // the soak's folder may be gone at the very end
    }
  }
  process.on('SIGUSR2', () => {
    globalThis.gc?.()
    const { rss, heapUsed } = process.memoryUsage()
    settled = { rss, heapUsed, at: Date.now() }
    histogram.reset()
    write()
  })
  setInterval(write, 1000).unref()
}
