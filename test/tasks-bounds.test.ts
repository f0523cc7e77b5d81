/**
 * What one caller may keep in a task store: unfinished tasks, stored tasks (finished ones included) and
 * their bytes. Each store enforces the same limits by keeping per-owner counts; a finished task drops its
 * arguments. The server's heap is measured by counting in a child process (built package, after full GCs).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryTaskStore, ownerKey, type TaskLimits, type TaskRecord, type TaskStore } from '../src/index.js'
import { SqliteTaskStore } from '../src/handles/sqlite.js'
import { RedisTaskStore } from '../src/stores/redis/index.js'
import { ROOT, testServer } from './helpers/paths.js'
import { redisAvailable, requireRedis, type RedisProcess, startRedis } from './helpers/redis.js'

const MiB = 1024 * 1024

interface Measured {
  before: number
  after: number
  outcomes: Record<string, number>
  firstRefusal?: { index: number; status: number; error: { code: number; message: string } }
}

/** Runs one scenario of test/servers/task-memory.mjs in its own process; its one JSON line. */
function measure(scenario: string): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', testServer('task-memory.mjs'), scenario], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
    child.on('error', reject)
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out) as Measured) : reject(new Error(`child exited ${code}: ${out}`)),
    )
  })
}

describe('one caller cannot grow the server with tasks (heap counted in a child process)', () => {
  it('keeps no arguments of finished tasks: 100 quick tasks with 1 MB arguments', async () => {
    const { before, after, outcomes } = await measure('quick')
    expect(outcomes).toEqual({ created: 100 })
    // Before the bound the arguments stayed for the tasks' hour: about 100 MiB more.
    expect(after - before).toBeLessThan(24 * MiB)
  })

  it('refuses a task past the bytes bound (16 MiB per caller) with 429', async () => {
    const { before, after, outcomes, firstRefusal } = await measure('waiting')
    expect(outcomes.created).toBeLessThanOrEqual(16)
    expect(firstRefusal).toMatchObject({ status: 429, error: { code: -32600 } })
    expect(firstRefusal?.error.message).toMatch(/stored tasks would take more than 16777216 bytes/)
    // 16 MiB stored, and the running handlers' own copies of their arguments.
    expect(after - before).toBeLessThan(48 * MiB)
  })

  it('refuses a task past the stored bound (1000 per caller, finished ones included) with 429', async () => {
    const { before, after, outcomes, firstRefusal } = await measure('stored')
    // The child's warm-up task is the thousandth.
    expect(outcomes.created).toBe(999)
    expect(firstRefusal).toMatchObject({ index: 999, status: 429, error: { code: -32600 } })
    expect(firstRefusal?.error.message).toMatch(/more than 1000 stored tasks for this caller/)
    expect(after - before).toBeLessThan(24 * MiB)
  })
})

const dir = mkdtempSync(join(tmpdir(), 'toolwire-task-bounds-'))
const withRedis = redisAvailable || requireRedis
let redis: RedisProcess | undefined
beforeAll(async () => {
  if (withRedis) redis = await startRedis()
})
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await redis?.stop()
})

let now = Date.now()
const clock = (): number => now
let made = 0
const stores: Record<string, () => Promise<TaskStore>> = {
  memory: () => Promise.resolve(new MemoryTaskStore({ now: clock })),
  sqlite: () => Promise.resolve(new SqliteTaskStore(join(dir, `bounds-${made++}.db`), { now: clock })),
  ...(withRedis && {
    redis: () => RedisTaskStore.connect({ url: redis?.url ?? '', prefix: `bounds-${made++}`, now: clock }),
  }),
}

const alice = { kind: 'user', id: 'alice' } as const
const other = { kind: 'client', id: 'alice' } as const
function record(taskId: string, principal: typeof alice | typeof other, blob = ''): TaskRecord {
  return {
    taskId,
    owner: ownerKey(principal),
    identity: { principal },
    tool: 't',
    arguments: { blob },
    meta: {},
    status: 'working',
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 10_000,
    pollIntervalMs: 100,
    answers: {},
  }
}
const done = { from: ['working' as const], to: 'completed' as const, set: { result: { content: [] } } }

describe('creating a task in the memory store', () => {
  it("never visits other callers' tasks: 10 000 expired ones stay for the timer's sweep", async () => {
    const store = new MemoryTaskStore({ now: clock })
    const limits: TaskLimits = { maxLive: 100_000, maxStored: 100_000, maxStoredBytes: 100 * MiB }
    for (let i = 0; i < 10_000; i++)
      await store.create({ ...record(`bulk-${i}`, other), ttlMs: 1000 }, limits)
    now += 1000
    expect(await store.create(record('mine', alice), limits)).toBe('created')
    // Counted, not timed: the creation left all 10 000 in place, so it looked at none of them.
    expect(store.size).toBe(10_001)
    expect(store.sweep()).toBe(10_000)
    expect(store.size).toBe(1)
    await store.close()
  })
})

describe.each(Object.keys(stores))('task bounds in the %s store', (name) => {
  let store: TaskStore
  beforeAll(async () => {
    store = await stores[name]!()
  })
  afterAll(() => store.close?.())

  it('counts finished tasks against the stored bound until they expire; other callers are apart', async () => {
    const limits: TaskLimits = { maxLive: 10, maxStored: 2, maxStoredBytes: MiB }
    expect(await store.create(record(`${name}-s1`, alice), limits)).toBe('created')
    expect(await store.create(record(`${name}-s2`, alice), limits)).toBe('created')
    await store.transition(`${name}-s1`, ownerKey(alice), done)
    expect(await store.create(record(`${name}-s3`, alice), limits)).toBe('stored')
    expect(await store.create(record(`${name}-s4`, other), limits)).toBe('created')
    now += 10_000
    expect(await store.create(record(`${name}-s5`, alice), limits)).toBe('created')
  })

  it("counts bytes, and frees a finished task's arguments", async () => {
    const limits: TaskLimits = { maxLive: 10, maxStored: 10, maxStoredBytes: 10_000 }
    const blob = 'é'.repeat(3000) // 6 000 bytes in UTF-8: one such task fits, two do not
    expect(await store.create(record(`${name}-b1`, alice, blob), limits)).toBe('created')
    expect(await store.create(record(`${name}-b2`, alice, blob), limits)).toBe('bytes')
    expect(await store.create(record(`${name}-b3`, other, blob), limits)).toBe('created')
    const finished = await store.transition(`${name}-b1`, ownerKey(alice), done)
    expect(finished?.arguments).toEqual({})
    expect((await store.get(`${name}-b1`, ownerKey(alice)))?.arguments).toEqual({})
    expect(await store.create(record(`${name}-b2`, alice, blob), limits)).toBe('created')
    now += 10_000
  })
})
