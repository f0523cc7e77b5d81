/** The concurrency cap's counts: exact under any order of starts and ends, and bounded however many callers come. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { OwnerKey } from '../../src/protocol/principal.js'
import { InFlightCounts } from '../../src/security/in-flight.js'

const key = (n: number) => `anonymous:10.0.${n >> 8}.${n & 255}` as OwnerKey

describe('InFlightCounts', () => {
  it('counts exactly what a plain map of counts would, under any order of starts and ends', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 40 })), { maxLength: 400 }),
        fc.integer({ min: 1, max: 16 }),
        (steps, sweepAt) => {
          const counts = new InFlightCounts(sweepAt)
          const reference = new Map<string, number>()
          for (const [starts, n] of steps) {
            const principal = key(n)
            const running = reference.get(principal) ?? 0
            if (starts) {
              counts.slot(principal).count++
              reference.set(principal, running + 1)
            } else if (running > 0) {
              counts.slot(principal).count--
              reference.set(principal, running - 1)
            }
            for (const [each, count] of reference) expect(counts.get(each as OwnerKey)).toBe(count)
            const live = [...reference.values()].filter((count) => count > 0).length
            expect(counts.size).toBeLessThanOrEqual(Math.max(sweepAt, 2 * live) + 1)
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it('holds no more than its bound for 100,000 callers that each make one call at a time', () => {
    const counts = new InFlightCounts()
    for (let n = 0; n < 100_000; n++) {
      const principal = `anonymous:caller-${n}` as OwnerKey
      const slot = counts.slot(principal)
      slot.count++
      slot.count--
    }
    expect(counts.size).toBeLessThanOrEqual(1024)
  })

  it('keeps the slot a call holds through every sweep, and sweeps only slots at zero', () => {
    const counts = new InFlightCounts(2)
    const held = counts.slot(key(0))
    held.count++
    for (let n = 1; n < 50; n++) counts.slot(key(n))
    expect(counts.slot(key(0))).toBe(held)
    expect(counts.get(key(0))).toBe(1)
    expect(counts.size).toBeLessThanOrEqual(3)
    held.count--
    expect(counts.get(key(0))).toBe(0)
  })
})
