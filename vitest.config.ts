import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // expect.poll waits for an event; its deadline must hold on a busy machine (the default is 1 s).
    expect: { poll: { timeout: 10_000, interval: 20 } },
  },
})
