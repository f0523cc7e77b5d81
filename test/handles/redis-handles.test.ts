/**
 * Handles shared through Redis by separate server instances: made through one, used through another, with
 * no update lost when both change one handle at once, one quota per owner, and Redis's own TTLs dropping
 * what nobody uses.
 */
import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createDemoServer } from '../../src/demo/server.js'
import { HandleLimitError, ownerKey } from '../../src/index.js'
import { RedisHandleStore } from '../../src/stores/redis/index.js'
import { resultOf } from '../helpers/http.js'
import { as, byHeader, callTool, live, type Live } from '../helpers/live.js'
import { redisAvailable, requireRedis, type RedisProcess, startRedis } from '../helpers/redis.js'

const ann = ownerKey({ kind: 'user', id: 'ann' })
const bob = ownerKey({ kind: 'user', id: 'bob' })

const run = redisAvailable || requireRedis
if (!run) console.warn('redis-server not found: Redis handle tests skipped (CI installs it)')

const structured = (result: Record<string, unknown>): Record<string, unknown> =>
  result.structuredContent as Record<string, unknown>

describe.runIf(run)('RedisHandleStore across instances', () => {
  let redis: RedisProcess
  const stores: RedisHandleStore[] = []
  const servers: Live[] = []
  beforeAll(async () => {
    redis = await startRedis()
  })
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()))
    await Promise.all(stores.splice(0).map((store) => store.close()))
  })
  afterAll(async () => {
    await redis?.stop()
  })

  const store = async (prefix: string, maxPerOwner?: number) => {
    const opened = await RedisHandleStore.connect({
      url: redis.url,
      prefix,
      ...(maxPerOwner !== undefined && { maxPerOwner }),
    })
    stores.push(opened)
    return opened
  }
  const instance = async (prefix: string) => {
    const server = await live(createDemoServer({ store: await store(prefix), security: { auth: byHeader } }))
    servers.push(server)
    return server
  }

  it('uses a handle made through one instance through another, and keeps it from other callers', async () => {
    const [a, b] = [await instance('demo-1'), await instance('demo-1')]
    const id = structured(resultOf(await callTool(a, 'basket_create', {}, as('ann')))).basket_id as string
    await callTool(b, 'basket_add', { basket_id: id, item: 'tea', quantity: 2 }, as('ann'))
    const viewed = structured(resultOf(await callTool(a, 'basket_view', { basket_id: id }, as('ann'))))
    expect(viewed).toEqual({ basket_id: id, lines: [{ item: 'tea', quantity: 2 }], items: 2 })
    const foreign = resultOf(await callTool(b, 'basket_view', { basket_id: id }, as('bob')))
    expect(foreign.isError).toBe(true)
  })

  it('loses no update when two instances change one handle at once', async () => {
    const [a, b] = [await instance('demo-2'), await instance('demo-2')]
    const id = structured(resultOf(await callTool(a, 'basket_create', {}, as('ann')))).basket_id as string
    const adds = Array.from({ length: 40 }, (_, i) =>
      callTool(i % 2 ? a : b, 'basket_add', { basket_id: id, item: 'tea' }, as('ann')),
    )
    for (const answer of await Promise.all(adds))
      expect(JSON.stringify(resultOf(answer))).not.toContain('isError')
    const viewed = structured(resultOf(await callTool(b, 'basket_view', { basket_id: id }, as('ann'))))
    expect(viewed.items).toBe(40)
  })

  it('holds one quota per owner across instances, even for creations at the same moment', async () => {
    const [a, b] = [await store('quota', 5), await store('quota', 5)]
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).create('basket', crypto.randomUUID(), ann, i, 60_000),
      ),
    )
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(5)
    for (const outcome of outcomes)
      if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(HandleLimitError)
    await a.create('basket', crypto.randomUUID(), bob, 1, 60_000)
  })

  it('lets Redis drop a handle nobody uses, with no sweep', async () => {
    const opened = await RedisHandleStore.connect({ url: redis.url, prefix: 'ttl', clockSkewMs: 0 })
    stores.push(opened)
    const id = crypto.randomUUID()
    await opened.create('basket', id, ann, { n: 1 }, 50)
    const probe = new Redis(redis.url)
    try {
      const deadline = Date.now() + 10_000
      while ((await probe.exists(`{ttl}:h:basket:${id}`)) === 1) {
        if (Date.now() > deadline) throw new Error('Redis did not expire the handle within 10 s')
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      expect(await opened.touch('basket', id, ann)).toBeUndefined()
    } finally {
      probe.disconnect()
    }
  })
})
