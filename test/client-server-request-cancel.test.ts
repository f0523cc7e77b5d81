/**
 * A 2025-era server's own requests (2025-11-25 client/sampling) are answered with a signal that aborts when
 * their answer can no longer matter: the request whose stream carried them ended, or the client closed. A
 * real toolwire server in 2025-era mode on a loopback socket; its tool asks for sampling and answers at once,
 * or waits until told.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect } from '../src/client/index.js'
import { defineServer, defineTool } from '../src/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'

const SAMPLE = {
  messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'hi' } }],
  maxTokens: 5,
}

let running: RunningServer
/** Lets the `wait` tool answer. */
let release: (() => void) | undefined

beforeAll(async () => {
  const tools = [
    defineTool({
      name: 'fire',
      handler: (_args, ctx) => {
        ctx.input.sample(SAMPLE).catch(() => undefined) // not awaited: the call ends at once
        return 'fired'
      },
    }),
    defineTool({
      name: 'wait',
      handler: async (_args, ctx) => {
        ctx.input.sample(SAMPLE).catch(() => undefined)
        await new Promise<void>((resolve) => (release = resolve))
        return 'done'
      },
    }),
  ]
  running = await serveNode(defineServer({ name: 'asker', version: '1.0.0', tools }), { port: 0 })
})
afterAll(() => running.close())

/** A sampling handler that never answers by itself: it records its signal and gives up when it aborts. */
function pendingSampler() {
  const signals: AbortSignal[] = []
  const sampling = (_params: Record<string, unknown>, context: { signal: AbortSignal }) =>
    new Promise<never>((_resolve, reject) => {
      signals.push(context.signal)
      context.signal.addEventListener('abort', () => reject(context.signal.reason as Error), { once: true })
    })
  return { signals, sampling }
}

describe('a 2025-era server request left behind', () => {
  it('is cancelled once the call whose stream carried it has ended', async () => {
    const { signals, sampling } = pendingSampler()
    const client = connect({ url: running.url }, { protocolVersion: '2025-11-25', handlers: { sampling } })
    try {
      const result = await client.callTool('fire', {})
      expect(result.content).toEqual([{ type: 'text', text: 'fired' }])
      await expect.poll(() => signals.length, { timeout: 10_000 }).toBe(1)
      await expect.poll(() => signals[0]?.aborted, { timeout: 10_000 }).toBe(true)
      expect(String(signals[0]?.reason)).toMatch(/has ended/)
    } finally {
      await client.close()
    }
  })

  it('is cancelled when the client closes while its call still runs', async () => {
    const { signals, sampling } = pendingSampler()
    const client = connect({ url: running.url }, { protocolVersion: '2025-11-25', handlers: { sampling } })
    const call = client.callTool('wait', {}).catch((error: unknown) => error)
    await expect.poll(() => signals.length, { timeout: 10_000 }).toBe(1)
    expect(signals[0]?.aborted).toBe(false)
    await client.close()
    expect(signals[0]?.aborted).toBe(true)
    expect(String(signals[0]?.reason)).toMatch(/client was closed/)
    release?.()
    await call
  })
})
