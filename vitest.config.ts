// Test runner configuration: every test under test/, run in forked processes so that
// tests which spawn children, open ports or change the environment stay isolated. Most
// files wait on child processes, servers and browsers rather than compute, so two files
// run at once even on two cores (vitest's default there would be one). The run ends with
// the slowest files and their seconds (test/setup/slow-files-reporter.ts).
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    globalSetup: ['test/setup/postgres.ts', 'test/setup/chromium.ts'],
    reporters: ['default', './test/setup/slow-files-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
