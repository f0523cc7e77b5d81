import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A test's budget, not its expected time: many start CLIs, servers and browsers one after another, and a
    // start that takes a second on an idle machine takes several at a load of 20 (seen: 18 s for one such test).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores, so one worker on a 2-core machine. Most test files
    // spend their time waiting on child processes, servers and browsers they start (each on its own free port
    // and temporary folder, so files never share state), so one worker more than the cores keeps the cores busy.
    maxWorkers: availableParallelism() + 1,
    // expect.poll waits for an event; its deadline must hold on a busy machine (the default is 1 s).
    expect: { poll: { timeout: 10_000, interval: 20 } },
  },
})
