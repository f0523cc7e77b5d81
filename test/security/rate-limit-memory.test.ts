/**
 * The in-process rate-limit store against a plain model of what it promises: a fixed window per owner and
 * bucket, at most `maxKeys` of them, the least recently used forgotten first with its count. Time stands
 * still here (every window is 60 s long), so the verdicts depend only on the order of calls.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MemoryRateLimitStore, ownerKey } from '../../src/index.js'
import type { Bucket } from '../../src/security/rate-limit.js'

const buckets: Bucket[] = [
  { name: 'requests', points: 3, durationMs: 60_000 },
  { name: 'tool:add', points: 2, durationMs: 60_000 },
  { name: 'tool:echo', points: 1, durationMs: 60_000 },
]
const owners = ['ann', 'bob', 'cat', 'dan'].map((id) => ownerKey({ kind: 'user', id }))

describe('MemoryRateLimitStore', () => {
  it('answers every call as a least-recently-used map of fixed windows would', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.array(
          fc.tuple(fc.nat(buckets.length - 1), fc.nat(owners.length - 1), fc.integer({ min: 1, max: 2 })),
          {
            maxLength: 200,
          },
        ),
        (maxKeys, calls) => {
          const store = new MemoryRateLimitStore({ maxKeys })
          const model = new Map<string, number>() // key -> points used; insertion order is recency
          for (const [b, o, points] of calls) {
            const bucket = buckets[b] as Bucket
            const key = `${bucket.name}|${owners[o]}`
            const used = model.get(key) ?? 0
            model.delete(key)
            const allowed = used + points <= bucket.points
            model.set(key, allowed ? used + points : used)
            if (model.size > maxKeys) model.delete(model.keys().next().value as string)
            // An equal bucket made apart counts with the first: the budget is its name and size.
            const given = b === 0 && points === 2 ? { ...bucket } : bucket
            const consumed = store.consume(given, owners[o] as never, points)
            expect(consumed.allowed).toBe(allowed)
            expect(store.size).toBe(model.size)
          }
        },
      ),
      { numRuns: 500 },
    )
  })

  it('keeps its windows by the time the caller gives: a window ends durationMs after its first count', () => {
    const store = new MemoryRateLimitStore()
    const bucket: Bucket = { name: 'requests', points: 2, durationMs: 1000 }
    const owner = owners[0] as never
    const at = 1_700_000_000_000
    expect(store.consume(bucket, owner, 1, at).allowed).toBe(true)
    expect(store.consume(bucket, owner, 1, at + 400).allowed).toBe(true)
    // Spent: refused until the window that began at `at` ends, whatever the wall clock says.
    expect(store.consume(bucket, owner, 1, at + 999)).toEqual({ allowed: false, retryAfterMs: 1 })
    expect(store.consume(bucket, owner, 1, at + 1000).allowed).toBe(true)
    expect(store.consume(bucket, owner, 2, at + 1500)).toEqual({ allowed: false, retryAfterMs: 500 })
  })
})
