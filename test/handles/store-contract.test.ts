/** One contract, every store: each `HandleStore` must behave exactly like the others. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { HandleLimitError, type HandleStore, MemoryHandleStore, ownerKey } from '../../src/index.js'
import { SqliteHandleStore } from '../../src/handles/sqlite.js'
import { RedisHandleStore } from '../../src/stores/redis/index.js'
import { redisAvailable, requireRedis, type RedisProcess, startRedis } from '../helpers/redis.js'

const ann = ownerKey({ kind: 'user', id: 'ann' })
const bob = ownerKey({ kind: 'user', id: 'bob' })
const c = ownerKey({ kind: 'user', id: 'c' })
const bc = ownerKey({ kind: 'user', id: 'b:c' })

const dir = mkdtempSync(join(tmpdir(), 'toolwire-handles-'))
const withRedis = redisAvailable || requireRedis
if (!withRedis) console.warn('redis-server not found: the Redis handle store is not tested (CI installs it)')
let redis: RedisProcess | undefined
beforeAll(async () => {
  if (withRedis) redis = await startRedis()
})
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await redis?.stop()
})

interface Clocked {
  store: HandleStore
  advance(ms: number): void
}

let files = 0
let prefixes = 0
const stores: Record<string, (limits: { maxPerOwner: number }) => Clocked | Promise<Clocked>> = {
  memory: (limits) => {
    let now = 1_000_000
    return { store: new MemoryHandleStore({ ...limits, now: () => now }), advance: (ms) => void (now += ms) }
  },
  sqlite: (limits) => {
    let now = 1_000_000
    const file = join(dir, `store-${++files}.db`)
    return {
      store: new SqliteHandleStore(file, { ...limits, now: () => now }),
      advance: (ms) => void (now += ms),
    }
  },
  ...(withRedis && {
    redis: async (limits) => {
      let now = 1_000_000
      const store = await RedisHandleStore.connect({
        ...limits,
        url: redis!.url,
        prefix: `contract:${++prefixes}`,
        now: () => now,
        // The test's clock is fake; Redis's own TTLs (lifetime + this slack) must not fire mid-test.
        clockSkewMs: 600_000,
      })
      return { store, advance: (ms) => void (now += ms) }
    },
  }),
}

const ID = '3b241101-e2bb-4255-8caf-4136c566a962'
const OTHER = '9b2c4f6e-1d3a-4c5b-8e7f-0a1b2c3d4e5f'

describe.each(Object.keys(stores))('%s handle store', (name) => {
  let clocked: Clocked
  let store: HandleStore
  beforeEach(async () => {
    clocked = await stores[name]!({ maxPerOwner: 3 })
    store = clocked.store
    return () => store.close()
  })

  it('returns what was stored, as a copy', async () => {
    await store.create('basket', ID, ann, { lines: [{ item: 'tea', quantity: 1 }] }, 1000)
    const first = (await store.touch('basket', ID, ann)) as { lines: unknown[] }
    expect(first).toEqual({ lines: [{ item: 'tea', quantity: 1 }] })
    first.lines.push('mutated')
    expect(await store.touch('basket', ID, ann)).toEqual({ lines: [{ item: 'tea', quantity: 1 }] })
  })

  it('treats another owner exactly like an unknown handle', async () => {
    await store.create('basket', ID, ann, { n: 1 }, 1000)
    expect(await store.touch('basket', ID, bob)).toBeUndefined()
    expect(await store.touch('basket', OTHER, ann)).toBeUndefined()
    expect(await store.update('basket', ID, bob, { n: 2 })).toBe(false)
    expect(await store.delete('basket', ID, bob)).toBe(false)
    expect(await store.touch('basket', ID, ann)).toEqual({ n: 1 })
  })

  it('keeps kinds apart', async () => {
    await store.create('basket', ID, ann, 'b', 1000)
    expect(await store.touch('browser', ID, ann)).toBeUndefined()
  })

  it('expires idle handles and refreshes the lifetime on use', async () => {
    await store.create('basket', ID, ann, 1, 1000)
    await store.create('basket', OTHER, ann, 2, 1000)
    clocked.advance(900)
    expect(await store.touch('basket', ID, ann)).toBe(1)
    clocked.advance(900)
    expect(await store.touch('basket', ID, ann)).toBe(1)
    expect(await store.touch('basket', OTHER, ann)).toBeUndefined()
    expect(await store.update('basket', OTHER, ann, 3)).toBe(false)
    clocked.advance(1000)
    expect(await store.touch('basket', ID, ann)).toBeUndefined()
  })

  it('updates and deletes live handles only', async () => {
    await store.create('basket', ID, ann, { n: 1 }, 1000)
    expect(await store.update('basket', ID, ann, { n: 2 })).toBe(true)
    expect(await store.touch('basket', ID, ann)).toEqual({ n: 2 })
    expect(await store.delete('basket', ID, ann)).toBe(true)
    expect(await store.delete('basket', ID, ann)).toBe(false)
    expect(await store.touch('basket', ID, ann)).toBeUndefined()
  })

  it('bounds live handles per owner, counting expired ones out', async () => {
    for (let i = 0; i < 3; i++) await store.create('basket', crypto.randomUUID(), ann, i, 1000)
    await expect(store.create('basket', crypto.randomUUID(), ann, 4, 1000)).rejects.toBeInstanceOf(
      HandleLimitError,
    )
    await store.create('basket', crypto.randomUUID(), bob, 1, 1000)
    clocked.advance(1001)
    await store.create('basket', crypto.randomUUID(), ann, 5, 1000)
  })

  it('sweeps expired records', async () => {
    await store.create('basket', ID, ann, 1, 1000)
    await store.create('basket', OTHER, ann, 2, 5000)
    clocked.advance(2000)
    expect(await store.sweep()).toBe(1)
    expect(await store.touch('basket', OTHER, ann)).toBe(2)
  })

  it('swaps only while the data is unchanged', async () => {
    await store.create('basket', ID, ann, { n: 1 }, 1000)
    expect(await store.swap('basket', ID, ann, { n: 0 }, { n: 2 })).toBe('conflict')
    expect(await store.swap('basket', ID, ann, { n: 1 }, { n: 2 })).toBe('swapped')
    expect(await store.touch('basket', ID, ann)).toEqual({ n: 2 })
    expect(await store.swap('basket', ID, bob, { n: 2 }, { n: 3 })).toBe('gone')
    expect(await store.swap('basket', OTHER, ann, { n: 2 }, { n: 3 })).toBe('gone')
    clocked.advance(1001)
    expect(await store.swap('basket', ID, ann, { n: 2 }, { n: 3 })).toBe('gone')
  })

  it('keeps owners and kinds whose names contain separators apart', async () => {
    await store.create('a:b', ID, c, 1, 1000)
    await store.create('a', ID, bc, 2, 1000)
    expect(await store.touch('a:b', ID, c)).toBe(1)
    expect(await store.touch('a', ID, bc)).toBe(2)
    expect(await store.touch('a', ID, c)).toBeUndefined()
  })

  it('refuses data that is not JSON', async () => {
    await expect(store.create('basket', ID, ann, undefined, 1000)).rejects.toThrow(/JSON/)
  })
})

describe('SQLite handle store', () => {
  it('keeps handles across a reopen of the same file', async () => {
    const file = join(dir, 'reopen.db')
    const first = new SqliteHandleStore(file)
    await first.create('basket', ID, ann, { kept: true }, 60_000)
    await first.close()
    const second = new SqliteHandleStore(file)
    expect(await second.touch('basket', ID, ann)).toEqual({ kept: true })
    await second.close()
  })
})
