/**
 * The non-finite check (schema/finite.ts) against a plain recursive reading of the same rule: every number
 * anywhere in the value, arrays (holes included) and objects alike, own keys only.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { nonFiniteAt } from '../src/schema/finite.js'

function anyNonFinite(value: unknown): boolean {
  if (typeof value === 'number') return !Number.isFinite(value)
  if (typeof value !== 'object' || value === null) return false
  return Object.values(value).some(anyNonFinite)
}

const { json } = fc.letrec<{ json: unknown }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small' },
    fc.double(),
    fc.integer(),
    fc.constantFrom(Infinity, -Infinity, NaN, 'x', null, true),
    fc.array(tie('json'), { maxLength: 4 }),
    fc.sparseArray(tie('json'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 3 }), tie('json'), { maxKeys: 4 }),
  ),
}))

describe('nonFiniteAt', () => {
  it('finds a non-finite number exactly when one is anywhere in the value', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(nonFiniteAt(value) !== undefined).toBe(anyNonFinite(value))
      }),
      { numRuns: 5000 },
    )
  })

  it('names where the first one it finds is, flat or nested', () => {
    expect(nonFiniteAt(Infinity)).toBe('')
    expect(nonFiniteAt({ a: 1, b: NaN })).toBe('b')
    expect(nonFiniteAt({ a: { b: [1, -Infinity] } })).toBe('a.b.1')
    expect(nonFiniteAt({ a: 1, b: [2, { c: 'x' }] })).toBeUndefined()
    expect(nonFiniteAt(Object.create({ inherited: Infinity }) as unknown)).toBeUndefined()
  })
})
