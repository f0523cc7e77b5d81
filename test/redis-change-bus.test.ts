/** Two server instances sharing one Redis: a change on either reaches listen streams held by the other. */
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFetchHandler, defineServer, defineTool } from '../src/index.js'
import { parseChangeEvent, RedisChangeBus } from '../src/stores/redis/index.js'
import { meta, standardHeaders } from './helpers/http.js'
import { assertServerMessage } from './helpers/spec-schema.js'
import { redisAvailable, requireRedis, type RedisProcess, startRedis } from './helpers/redis.js'

const run = redisAvailable || requireRedis
if (!run) console.warn('redis-server not found: Redis tests skipped (CI installs it)')

describe.runIf(run)('RedisChangeBus', () => {
  let redis: RedisProcess
  const buses: RedisChangeBus[] = []
  beforeAll(async () => {
    redis = await startRedis()
  })
  afterAll(async () => {
    await Promise.all(buses.map((bus) => bus.close()))
    await redis?.stop()
  })

  const instance = async (name: string, errors: unknown[] = []) => {
    const bus = await RedisChangeBus.connect({
      url: redis.url,
      channel: 'test:changes',
      onError: (e) => errors.push(e),
    })
    buses.push(bus)
    const server = defineServer({
      name,
      version: '1',
      tools: [defineTool({ name: 'a', handler: () => 'a' })],
      resources: [],
      changes: bus,
    })
    return { server, bus, fetch: createFetchHandler(server) }
  }

  /** Opens a listen stream and returns the messages as they arrive, plus a way to hang up. */
  async function listen(fetcher: (r: Request) => Promise<Response>, notifications: Record<string, unknown>) {
    const controller = new AbortController()
    const body = {
      jsonrpc: '2.0',
      id: 'listen-1',
      method: 'subscriptions/listen',
      params: { _meta: meta(), notifications },
    }
    const response = await fetcher(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: standardHeaders('subscriptions/listen', {}),
        body: JSON.stringify(body),
        signal: controller.signal,
      }),
    )
    const messages: Record<string, unknown>[] = []
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    let buffer = ''
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read()
          if (done) return
          buffer += value
          let end: number
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            const block = buffer.slice(0, end)
            buffer = buffer.slice(end + 2)
            const data = block.split('\n').find((line) => line.startsWith('data:'))
            if (!data) continue
            const message = JSON.parse(data.slice(5)) as Record<string, unknown>
            assertServerMessage(message)
            messages.push(message)
          }
        }
      } catch {
        // hung up
      }
    })()
    return { messages, close: () => controller.abort() }
  }

  it('delivers a change made on instance A to a listener on instance B, tagged with its subscription id', async () => {
    const a = await instance('a')
    const b = await instance('b')
    const stream = await listen(b.fetch, { toolsListChanged: true, resourceSubscriptions: ['notes://1'] })
    await expect.poll(() => stream.messages.length).toBe(1)
    a.server.tools.add(defineTool({ name: 'b', handler: () => 'b' }))
    a.server.resourceUpdated('notes://1')
    a.server.resourceUpdated('notes://other')
    await expect
      .poll(() => stream.messages.map((m) => m.method))
      .toEqual([
        'notifications/subscriptions/acknowledged',
        'notifications/tools/list_changed',
        'notifications/resources/updated',
      ])
    for (const message of stream.messages) {
      expect(
        (message.params as { _meta: Record<string, unknown> })._meta[
          'io.modelcontextprotocol/subscriptionId'
        ],
      ).toBe('listen-1')
    }
    expect((stream.messages[2]?.params as { uri: string }).uri).toBe('notes://1')
    stream.close()
  })

  it('ignores foreign or malformed messages on the channel and keeps delivering', async () => {
    const errors: unknown[] = []
    const b = await instance('c', errors)
    const stream = await listen(b.fetch, { toolsListChanged: true })
    await expect.poll(() => stream.messages.length).toBe(1)
    const raw = new Redis(redis.url)
    await raw.publish('test:changes', 'not json')
    await raw.publish('test:changes', JSON.stringify({ type: 'resources/updated' }))
    await raw.publish('test:changes', JSON.stringify({ type: 'tools/list_changed' }))
    await raw.quit()
    await expect
      .poll(() => stream.messages.map((m) => m.method))
      .toContain('notifications/tools/list_changed')
    expect(errors.length).toBeGreaterThanOrEqual(2)
    stream.close()
  })

  it('after a Redis outage tells every listener to refetch, and reports the outage once per bus', async () => {
    const own = await startRedis()
    const outages: string[] = []
    const bus = await RedisChangeBus.connect({
      url: own.url,
      channel: 'outage:changes',
      onOutage: (message) => outages.push(message),
    })
    const server = defineServer({
      name: 'outage',
      version: '1',
      tools: [defineTool({ name: 'a', handler: () => 'a' })],
      prompts: [],
      changes: bus,
    })
    const stream = await listen(createFetchHandler(server), {
      toolsListChanged: true,
      promptsListChanged: true,
    })
    let back: RedisProcess | undefined
    try {
      await expect.poll(() => stream.messages.length).toBe(1)
      await own.stop()
      await expect.poll(() => outages.length, { timeout: 20_000 }).toBe(1)
      expect(outages[0]).toMatch(/lost its connection/)
      back = await startRedis(own.port)
      await expect
        .poll(() => stream.messages.map((m) => m.method), { timeout: 30_000 })
        .toEqual([
          'notifications/subscriptions/acknowledged',
          'notifications/tools/list_changed',
          'notifications/prompts/list_changed',
        ])
      expect(outages).toHaveLength(2)
      expect(outages[1]).toMatch(/reconnected after \d+ ms \(\d+ connection errors meanwhile\)/)
    } finally {
      stream.close()
      await bus.close()
      await back?.stop()
    }
  })

  it('validates change events', () => {
    expect(parseChangeEvent('{"type":"tools/list_changed"}')).toEqual({ type: 'tools/list_changed' })
    expect(parseChangeEvent('{"type":"resources/updated","uri":"x://y"}')).toEqual({
      type: 'resources/updated',
      uri: 'x://y',
    })
    for (const bad of ['', 'null', '[]', '{"type":"nope"}', '{"type":"resources/updated","uri":5}']) {
      expect(parseChangeEvent(bad)).toBeUndefined()
    }
  })
})
