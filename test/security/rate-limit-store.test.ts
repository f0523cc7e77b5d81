/** One contract for every rate-limit store, and the point of a shared one: replicas count together. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  defineServer,
  defineTool,
  MemoryRateLimitStore,
  ownerKey,
  type RateLimitStore,
} from '../../src/index.js'
import { RedisRateLimitStore } from '../../src/stores/redis/index.js'
import { redisAvailable, requireRedis, type RedisProcess, startRedis } from '../helpers/redis.js'
import { errorOf, resultOf } from '../helpers/http.js'
import { callTool, live, memoryLogger, textOf } from '../helpers/live.js'

const ann = ownerKey({ kind: 'user', id: 'ann' })
const bob = ownerKey({ kind: 'user', id: 'bob' })

const withRedis = redisAvailable || requireRedis
let redis: RedisProcess | undefined
const opened: RedisRateLimitStore[] = []
beforeAll(async () => {
  if (withRedis) redis = await startRedis()
})
afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()))
  await redis?.stop()
})

let prefixes = 0
const factories: Record<string, () => Promise<RateLimitStore>> = {
  memory: async () => new MemoryRateLimitStore(),
  ...(withRedis && {
    redis: async () => {
      const store = await RedisRateLimitStore.connect({
        url: (redis as RedisProcess).url,
        prefix: `test${++prefixes}`,
      })
      opened.push(store)
      return store
    },
  }),
}

describe.each(Object.keys(factories))('%s rate-limit store', (name) => {
  const make = factories[name] as () => Promise<RateLimitStore>

  it('allows the budget, then refuses with the time left, per key and per bucket', async () => {
    const store = await make()
    const bucket = { name: 'calls', points: 2, durationMs: 60_000 }
    expect(await store.consume(bucket, ann)).toEqual({ allowed: true })
    expect(await store.consume(bucket, ann)).toEqual({ allowed: true })
    const refused = await store.consume(bucket, ann)
    expect(refused.allowed).toBe(false)
    expect(refused.allowed === false && refused.retryAfterMs).toBeGreaterThan(58_000)
    expect(refused.allowed === false && refused.retryAfterMs).toBeLessThanOrEqual(60_000)
    expect(await store.consume(bucket, bob)).toEqual({ allowed: true })
    expect(await store.consume({ ...bucket, name: 'other' }, ann)).toEqual({ allowed: true })
  })

  it('keeps each bucket apart when many are used in turn, however the store remembers their names', async () => {
    const store = await make()
    const buckets = [3, 1, 2, 4].map((points, index) => ({ name: `b${index}`, points, durationMs: 60_000 }))
    const allowed = buckets.map(() => 0)
    for (let round = 0; round < 5; round++)
      for (const [index, bucket] of buckets.entries())
        if ((await store.consume(bucket, ann)).allowed) allowed[index] = (allowed[index] ?? 0) + 1
    expect(allowed).toEqual([3, 1, 2, 4])
  })

  it('weighs calls by points and starts again after the window', async () => {
    const store = await make()
    // A 3 s window: the refusal fits in it even on a busy machine.
    const bucket = { name: 'weighted', points: 3, durationMs: 3000 }
    const spentAt = Date.now()
    expect(await store.consume(bucket, ann, 3)).toEqual({ allowed: true })
    expect((await store.consume(bucket, ann)).allowed).toBe(false)
    // Allowed again once the window has passed, and not before.
    await expect.poll(async () => (await store.consume(bucket, ann)).allowed, { interval: 100 }).toBe(true)
    expect(Date.now() - spentAt).toBeGreaterThanOrEqual(2_950)
  })
})

describe.runIf(withRedis)('Redis rate limits across instances', () => {
  it('counts requests to two server instances against one budget', async () => {
    const ping = defineTool({ name: 'ping', handler: () => 'pong' })
    const instance = async () => {
      const store = await RedisRateLimitStore.connect({ url: (redis as RedisProcess).url, prefix: 'shared' })
      opened.push(store)
      const server = defineServer({
        name: 'replica',
        version: '1',
        tools: [ping],
        security: {
          rateLimit: {
            store,
            requests: { points: 4, durationMs: 60_000 },
            toolCalls: { points: 2, durationMs: 60_000 },
          },
        },
      })
      return live(server)
    }
    const [a, b] = await Promise.all([instance(), instance()])
    try {
      expect(textOf(resultOf(await callTool(a, 'ping')))).toBe('pong')
      expect(textOf(resultOf(await callTool(b, 'ping')))).toBe('pong')
      const third = resultOf(await callTool(a, 'ping'))
      expect(textOf(third)).toMatch(
        /^Rate limit for tool ping reached \(2 calls per minute\); retry in \d+ s\.$/,
      )
      expect((await b.call('tools/list')).status).toBe(200)
      const refused = await a.call('tools/list')
      expect(refused.status).toBe(429)
      expect(errorOf(refused).message).toMatch(/more than 4 requests in 60 s/)
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it('lets requests through while Redis is down, logging the outage once and its end with a count', async () => {
    const own = await startRedis()
    const store = await RedisRateLimitStore.connect({ url: own.url, prefix: 'down' })
    opened.push(store)
    const logger = memoryLogger()
    const ping = defineTool({ name: 'ping', handler: () => 'pong' })
    const server = await live(
      defineServer({ name: 'x', version: '1', tools: [ping], logger, security: { rateLimit: { store } } }),
    )
    let back: RedisProcess | undefined
    try {
      await own.stop()
      await expect.poll(async () => textOf(resultOf(await callTool(server, 'ping')))).toBe('pong')
      for (let i = 0; i < 30; i++) expect(textOf(resultOf(await callTool(server, 'ping')))).toBe('pong')
      const down = logger.lines.filter((line) => line.includes('rate-limit store is unavailable'))
      expect(down).toHaveLength(1)
      expect(logger.lines.filter((line) => line.includes('rate-limit store'))).toHaveLength(1)
      back = await startRedis(own.port)
      await expect
        .poll(
          async () => {
            await callTool(server, 'ping')
            return logger.lines.find((line) => line.includes('rate-limit store recovered'))
          },
          { timeout: 30_000 },
        )
        .toMatch(/recovered after \d+ ms; \d+ checks were skipped meanwhile/)
      expect(logger.lines.filter((line) => line.includes('rate-limit store is unavailable'))).toHaveLength(1)
    } finally {
      await server.close()
      await back?.stop()
    }
  })

  it('refuses sub-second windows, which Redis expiry cannot keep', async () => {
    const store = await RedisRateLimitStore.connect({ url: (redis as RedisProcess).url, prefix: 'short' })
    opened.push(store)
    expect(() => store.consume({ name: 'fast', points: 1, durationMs: 500 }, ann)).toThrow(/at least 1 s/)
  })
})
