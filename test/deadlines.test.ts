import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Deadlines } from '../../src/security/deadlines.js'

describe('shared tool deadlines', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('fires each deadline once, in order, and never a cancelled one', () => {
    const deadlines = new Deadlines()
    const fired: string[] = []
    deadlines.start(100, () => fired.push('a'))
    vi.advanceTimersByTime(30)
    const b = deadlines.start(100, () => fired.push('b'))
    vi.advanceTimersByTime(30)
    deadlines.start(100, () => fired.push('c'))
    deadlines.start(30, () => fired.push('short'))
    b.cancel()
    vi.advanceTimersByTime(29)
    expect(fired).toEqual([])
    vi.advanceTimersByTime(1)
    expect(fired).toEqual(['short'])
    vi.advanceTimersByTime(10)
    expect(fired).toEqual(['short', 'a'])
    vi.advanceTimersByTime(100)
    expect(fired).toEqual(['short', 'a', 'c'])
  })

  it('keeps firing after the list empties and fills again, and ignores a second cancel', () => {
    const deadlines = new Deadlines()
    const fired: number[] = []
    for (let round = 0; round < 3; round++) {
      const deadline = deadlines.start(50, () => fired.push(round))
      if (round === 1) {
        deadline.cancel()
        deadline.cancel()
      }
      vi.advanceTimersByTime(60)
    }
    expect(fired).toEqual([0, 2])
  })
})
