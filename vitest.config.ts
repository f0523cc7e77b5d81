import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores, so one worker on a 2-core machine. Most test files
    // spend their time waiting on child processes, servers and browsers they start (each on its own free port
    // and temporary folder, so files never share state), so one worker more than the cores keeps the cores busy.
    maxWorkers: availableParallelism() + 1,
    // expect.poll waits for an event; its deadline must hold on a busy machine (the default is 1 s).
    expect: { poll: { timeout: 10_000, interval: 20 } },
  },
})
