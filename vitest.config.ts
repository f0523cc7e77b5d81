import { availableParallelism } from 'node:os'
import { configDefaults, defineConfig } from 'vitest/config'
import { UNIT_TESTS } from './vitest.unit-files.js'

/** What every test run shares (`npm test` here, `npm run test:unit` in vitest.unit.config.ts). */
export const SHARED = {
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
} as const

export default defineConfig({
  test: {
    ...SHARED,
    projects: [
      // The unit files share one module graph per worker: starting a fork and loading toolwire's sources
      // once per file cost about 1 s of CPU a file, half of what those 95 files cost in all.
      { extends: true, test: { name: 'unit', include: UNIT_TESTS, isolate: false } },
      // Everything else runs isolated, each file in a fresh fork, as before (an `exclude` replaces the
      // default one, which keeps out node_modules, test peers' included).
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...UNIT_TESTS],
        },
      },
    ],
  },
})
