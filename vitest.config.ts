// Test runner configuration: every test under test/, run in forked processes so that
// tests which spawn children, open ports or change the environment stay isolated.
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    globalSetup: ['test/setup/postgres.ts', 'test/setup/chromium.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
