import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Deadlines } from '../src/wire/deadlines.js'

describe('shared deadlines', () => {
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

  it('arms one timer for a deadline started by an expiry of the same duration', () => {
    const deadlines = new Deadlines()
    const fired: string[] = []
    deadlines.start(40, () => {
      fired.push('first')
      deadlines.start(40, () => fired.push('second'))
    })
    vi.advanceTimersByTime(40)
    expect(fired).toEqual(['first'])
    expect(vi.getTimerCount()).toBe(1)
    vi.advanceTimersByTime(40)
    expect(fired).toEqual(['first', 'second'])
    expect(vi.getTimerCount()).toBe(0)
  })

  it('keeps nothing for durations that came and went', () => {
    const deadlines = new Deadlines()
    // A client's timeouts capped by what is left of a call's budget take many different durations.
    const started = Array.from({ length: 500 }, (_, index) => deadlines.start(1_000 + index, () => undefined))
    for (const deadline of started) deadline.cancel()
    expect(vi.getTimerCount()).toBe(500)
    expect(deadlines.durations).toBe(500)
    vi.advanceTimersByTime(1_500)
    expect(vi.getTimerCount()).toBe(0)
    expect(deadlines.durations).toBe(0)
    const fired: number[] = []
    deadlines.start(1_000, () => fired.push(1))
    vi.advanceTimersByTime(1_000)
    expect(fired).toEqual([1])
  })
})
