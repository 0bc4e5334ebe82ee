// A test reporter that prints, at the end of a run, the ten slowest test files with their
// seconds (set-up, import and tests together), so that what makes `npm test` long is in
// front of whoever runs it. Set WARDEN_SLOW_FILES to print more or fewer (0: none).

import type { Reporter, TestModule } from 'vitest/node'

/** How many files are listed by default. */
const DEFAULT_COUNT = 10

/** Seconds a file took: environment and set-up, import and collection, then its tests and hooks. */
function secondsOf(module: TestModule): number {
  const d = module.diagnostic()
  return (
    (d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration + d.duration) / 1000
  )
}

/** Lists the slowest test files when the run ends. */
export default class SlowFilesReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const count = Number(process.env.WARDEN_SLOW_FILES ?? DEFAULT_COUNT)
    if (!Number.isFinite(count) || count <= 0 || modules.length < 2) return
    const slowest = modules
      .map((module) => ({ file: module.relativeModuleId, seconds: secondsOf(module) }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, count)
    const total = modules.reduce((sum, module) => sum + secondsOf(module), 0)
    const lines = slowest.map((f) => `  ${f.seconds.toFixed(1).padStart(7)} s  ${f.file}`)
    process.stdout.write(
      `\nSlowest ${slowest.length} of ${modules.length} test files (${total.toFixed(0)} s over all files):\n${lines.join('\n')}\n`,
    )
  }
}
