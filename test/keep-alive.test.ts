/** Keep-alive comments of every open stream share one timer, and each stream still gets its comment per interval. */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { KeepAlives } from '../src/transports/http/keep-alive.js'

describe('KeepAlives', () => {
  afterEach(() => void vi.useRealTimers())

  it('runs one timer for a thousand streams, writes to each on every tick, and stops with the last', () => {
    vi.useFakeTimers()
    const keepAlives = new KeepAlives(15_000)
    const writes = new Array<number>(1000).fill(0)
    const streams = writes.map((_, index) => ({ keepAlive: () => void writes[index]!++ }))
    streams.forEach((stream) => keepAlives.add(stream))
    expect(vi.getTimerCount()).toBe(1)
    vi.advanceTimersByTime(15_000)
    expect(new Set(writes)).toEqual(new Set([1]))
    streams.slice(0, 999).forEach((stream) => keepAlives.remove(stream))
    keepAlives.remove(streams[0]!) // removing twice changes nothing
    vi.advanceTimersByTime(15_000)
    expect(writes[0]).toBe(1)
    expect(writes[999]).toBe(2)
    keepAlives.remove(streams[999]!)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('writes nothing and holds no timer when keep-alive is off (0)', () => {
    vi.useFakeTimers()
    const write = vi.fn()
    new KeepAlives(0).add({ keepAlive: write })
    expect(vi.getTimerCount()).toBe(0)
    vi.advanceTimersByTime(60_000)
    expect(write).not.toHaveBeenCalled()
  })
})
