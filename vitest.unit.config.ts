/**
 * `npm run test:unit`: the fast subset (the files of `vitest.unit-files.ts`), for the edit-test loop. Under a
 * minute on two idle cores; `npm test` runs everything.
 */
import { defineConfig } from 'vitest/config'
import { SHARED } from './vitest.config.js'
import { UNIT_TESTS } from './vitest.unit-files.js'

// `isolate: false`: the files of a worker share one module graph, so toolwire's sources are transformed and
// loaded once per worker instead of once per file (that loading was more than a third of the run).
export default defineConfig({ test: { ...SHARED, include: UNIT_TESTS, isolate: false } })
