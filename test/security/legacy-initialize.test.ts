/**
 * `initialize` of 2025-era clients is bounded: what the client declares (`capabilities`, `clientInfo`) has a
 * size limit, so the session id that carries it stays small whatever the client sends, and the cache of
 * decrypted session ids is bounded in bytes, not only in entries. Memory is counted in the server's own
 * process after garbage collection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { initialize, initializeParams, MiB, type Probe, rpc, startProbe } from '../helpers/legacy-probe.js'

/** Capabilities whose JSON takes about `bytes` bytes. */
const padded = (bytes: number) => ({ experimental: { padding: { text: 'x'.repeat(bytes) } } })

describe('initialize of 2025-era clients', () => {
  let probe: Probe
  beforeAll(async () => {
    probe = await startProbe({ legacy: { maxSessionCacheBytes: MiB } })
  }, 60_000)
  afterAll(() => probe.stop())

  it('refuses capabilities and clientInfo past maxHandshakeBytes with -32602 and no session id', async () => {
    const before = await probe.held()
    const answers = []
    for (let i = 0; i < 8; i++)
      answers.push(await initialize(probe.url, initializeParams({ capabilities: padded(3 * MiB) })))
    const bigInfo = await initialize(
      probe.url,
      initializeParams({ clientInfo: { name: 'x', version: '1', title: 'y'.repeat(5000) } }),
    )
    const grown = (await probe.held()) - before
    for (const answer of [...answers, bigInfo]) {
      // Before the bound: 200 and a session id of more than 4 MB.
      expect(answer.sid?.length ?? 0, 'session id length').toBeLessThan(8192)
      expect(answer.status).toBe(400)
      expect(answer.body.error?.code).toBe(-32602)
      expect(answer.body.error?.message).toMatch(/at most 4096/)
    }
    expect(grown, `grew ${grown} bytes`).toBeLessThan(4 * MiB)
  })

  it('keeps the id small enough to open for the largest handshake it accepts', async () => {
    const answer = await initialize(probe.url, initializeParams({ capabilities: padded(3900) }))
    expect(answer.status).toBe(200)
    expect(answer.sid?.length).toBeLessThan(8192)
    expect((await rpc(probe.url, answer.sid as string, 'ping')).body.result).toEqual({})
  })

  it('keeps decrypted session ids within maxSessionCacheBytes', { timeout: 180_000 }, async () => {
    const before = await probe.held()
    // 600 sessions of 3.5 KB handshakes, each used once: every id is decrypted and would be remembered.
    for (let i = 0; i < 600; i++) {
      const { sid } = await initialize(probe.url, initializeParams({ capabilities: padded(3500) }))
      expect((await rpc(probe.url, sid as string, 'ping')).body.result).toEqual({})
    }
    const grown = (await probe.held()) - before
    expect(grown, `grew ${grown} bytes`).toBeLessThan(3 * MiB)
  })
})
