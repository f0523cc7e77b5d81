/** The arithmetic of `npm run bench:instructions -- --guards` (bench/guard-costs.mjs). */
import { describe, expect, it } from 'vitest'
import { parseArgs } from '../bench/callgrind.mjs'
import { guardCostLines, guardCosts } from '../bench/guard-costs.mjs'

const COUNTS = {
  http: {
    floor: 100_000,
    defaults: 115_000,
    off: 112_000,
    timeoutOff: 111_000,
    outputOff: 110_000,
    depthOff: 110_500,
    schemasOff: 109_000,
    bare: 105_000,
  },
  stdio: { floor: 30_000, off: 40_000, bare: 36_000 },
}

describe('what each default guard and check costs', () => {
  it("takes each step's cost from what switching it off saved, and the margin the target leaves", () => {
    const costs = guardCosts(COUNTS, 1.1)
    expect(costs.margin).toBeCloseTo(10_000)
    expect(costs.rateLimits).toBe(3_000)
    expect(costs.steps.map((step) => [step.label, step.cost])).toEqual([
      ['tool timeout', 1_000],
      ['output guard', 2_000],
      ['depth pre-check', 1_500],
      ['input and output validation', 3_000],
    ])
    expect(costs.together).toBe(7_000)
    expect(costs.rest).toBe(5_000)
    expect(costs.left).toBeCloseTo(0)
    expect(costs.stdio).toEqual({
      margin: expect.closeTo(3_000),
      together: 4_000,
      rest: 6_000,
      left: expect.closeTo(-1_000),
    })
  })

  it('prints every count, its height above the floor and the sentence that sums them up', () => {
    const lines = guardCostLines(COUNTS, 1.1)
    expect(lines).toContain('| HTTP, `off` and output guard off | 110,000 | 10,000 | 2,000 |')
    expect(lines).toContain('| stdio, and all four off | 36,000 | 6,000 | 4,000 together |')
    expect(lines.at(-1)).toMatch(/has 10,000 instructions above it\. The rate limits and cap spend 3,000/)
    expect(lines.at(-1)).toMatch(/leaves -1,000, and the rest costs 6,000\.$/)
  })

  it('is asked for with --guards', () => {
    expect(parseArgs(['--guards']).guards).toBe(true)
    expect(parseArgs([]).guards).toBe(false)
  })
})
