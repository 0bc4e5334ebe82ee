// Test runner configuration: every test under test/, run in forked processes so that
// tests which spawn children, open ports or change the environment stay isolated. Most
// files wait on child processes, servers and browsers rather than compute, so two files
// run at once even on two cores (vitest's default there would be one). The tests that
// measure one tenant's latency and throughput beside a hostile neighbour run last, one at
// a time, once the rest of the suite is done: on a two-core machine another test file
// running beside them would be measured instead of Warden. The run ends with the slowest
// files and their seconds (test/setup/slow-files-reporter.ts).
import { defineConfig } from 'vitest/config'

/** The neighbour tests: a quiet window against a hostile one on a real `warden serve`. */
const NEIGHBOURS = [
  'test/security/detector-workers.test.ts',
  'test/security/script-workers.test.ts',
  'test/security/hostile-hooks.test.ts',
]

export default defineConfig({
  test: {
    pool: 'forks',
    reporters: ['default', './test/setup/slow-files-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: NEIGHBOURS,
          maxWorkers: 2,
          globalSetup: ['test/setup/postgres.ts', 'test/setup/chromium.ts'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'neighbours',
          include: NEIGHBOURS,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
})
