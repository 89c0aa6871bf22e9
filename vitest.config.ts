import { defineConfig } from 'vitest/config'
import { TEST_TIMEOUT_MS } from './src/test-support/test-timeout.js'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'console/src/**/*.test.ts'],
    globalSetup: ['src/test-support/global-setup.ts'],
    // Many tests spawn the CLI (about a second per process on an idle 2-core machine, several under
    // load) a dozen times or more: a deadline is there to stop a hung test, not to measure speed (bench/ does that).
    testTimeout: TEST_TIMEOUT_MS,
    // Two files at a time on two cores: most of a file's time is spent waiting on child processes,
    // sockets and heartbeats, not computing (vitest's default here would be one).
    maxWorkers: 2,
    hookTimeout: TEST_TIMEOUT_MS,
    // Every 2xx JSON answer the suite sees is checked against its route's declared schema (check-responses.ts);
    // CLI processes the tests spawn inherit it.
    env: { SKILLPLANE_CHECK_RESPONSES: '1' },
  },
})
