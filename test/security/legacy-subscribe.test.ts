/**
 * `resources/subscribe` of 2025-era sessions is bounded: a URI's length, the subscriptions one session holds,
 * only URIs the server serves, and what one instance remembers of all sessions together. Memory is counted
 * in the server's own process after garbage collection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { initialize, MiB, type Probe, rpc, startProbe } from '../helpers/legacy-probe.js'

describe('resources/subscribe of 2025-era sessions', () => {
  let probe: Probe
  beforeAll(async () => {
    probe = await startProbe({ legacy: { maxSubscriptionsPerSession: 8, maxUriLength: 1024 } })
  }, 60_000)
  afterAll(() => probe.stop())

  it('refuses a URI longer than maxUriLength, and holds no memory for it', { timeout: 120_000 }, async () => {
    const { sid } = await initialize(probe.url)
    const before = await probe.held()
    const long = `notes://${'a'.repeat(MiB)}`
    const errors = []
    for (let i = 0; i < 24; i++)
      errors.push(
        (await rpc(probe.url, sid as string, 'resources/subscribe', { uri: `${long}${i}` })).body.error,
      )
    const grown = (await probe.held()) - before
    // 24 MiB of URIs were sent; before the bound every one of them stayed in the session's state.
    expect(grown, `grew ${grown} bytes`).toBeLessThan(4 * MiB)
    for (const error of errors) {
      expect(error?.code).toBe(-32602)
      expect(error?.message).toMatch(/1024/)
    }
  })

  it('refuses URIs the server does not serve with the error resources/read gives', async () => {
    const { sid } = await initialize(probe.url)
    const subscribed = await rpc(probe.url, sid as string, 'resources/subscribe', { uri: 'nowhere://x' })
    const read = await rpc(probe.url, sid as string, 'resources/read', { uri: 'nowhere://x' })
    expect(read.body.error?.code).toBeDefined()
    expect(subscribed.body.error).toEqual(read.body.error)
    expect(
      (await rpc(probe.url, sid as string, 'resources/subscribe', { uri: 'test://counter' })).body,
    ).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {},
    })
    const note = await rpc(probe.url, sid as string, 'resources/subscribe', { uri: 'notes://one' })
    expect(note.body.result).toEqual({})
  })

  it('refuses more than maxSubscriptionsPerSession; a repeat costs nothing, an unsubscribe frees a place', async () => {
    const { sid } = await initialize(probe.url)
    for (let i = 0; i < 8; i++)
      expect(
        (await rpc(probe.url, sid as string, 'resources/subscribe', { uri: `notes://${i}` })).body.result,
      ).toEqual({})
    // A repeat is no new subscription.
    expect(
      (await rpc(probe.url, sid as string, 'resources/subscribe', { uri: 'notes://0' })).body.result,
    ).toEqual({})
    const over = await rpc(probe.url, sid as string, 'resources/subscribe', { uri: 'notes://8' })
    expect(over.body.error?.code).toBe(-32602)
    expect(over.body.error?.message).toMatch(/8 subscriptions/)
    expect(
      (await rpc(probe.url, sid as string, 'resources/unsubscribe', { uri: 'notes://0' })).body.result,
    ).toEqual({})
    expect(
      (await rpc(probe.url, sid as string, 'resources/subscribe', { uri: 'notes://8' })).body.result,
    ).toEqual({})
  })

  it('keeps what all sessions subscribe to within maxStateBytes', { timeout: 120_000 }, async () => {
    // Many sessions each at their cap: the instance forgets the oldest sessions' state past the byte budget.
    const bounded = await startProbe({
      legacy: { maxSubscriptionsPerSession: 4, maxUriLength: 64 * 1024, maxStateBytes: 2 * MiB },
    })
    try {
      const before = await bounded.held()
      const uri = (session: number, i: number) =>
        `notes://${String(session).padStart(6, '0')}-${i}-${'b'.repeat(60_000)}`
      for (let session = 0; session < 40; session++) {
        const { sid } = await initialize(bounded.url)
        for (let i = 0; i < 4; i++) {
          const answer = await rpc(bounded.url, sid as string, 'resources/subscribe', {
            uri: uri(session, i),
          })
          expect(answer.body.result).toEqual({})
        }
      }
      const grown = (await bounded.held()) - before
      // 40 sessions × 4 × 60 KB ≈ 9.4 MiB were subscribed; the budget is 2 MiB.
      expect(grown, `grew ${grown} bytes`).toBeLessThan(5 * MiB)
    } finally {
      await bounded.stop()
    }
  })
})
