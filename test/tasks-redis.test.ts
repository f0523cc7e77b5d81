/** Tasks in Redis: two server instances share them (create on one, answer, finish and cancel on the other). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFetchHandler, defineServer, defineTool, ownerKey, type Server } from '../src/index.js'
import { RedisTaskStore } from '../src/stores/redis/index.js'
import { errorOf, resultOf, type Fetcher } from './helpers/http.js'
import { taskRequest, waitForStatus } from './helpers/tasks.js'
import { redisAvailable, requireRedis, type RedisProcess, startRedis } from './helpers/redis.js'

const run = redisAvailable || requireRedis

const send = taskRequest
const waitFor = waitForStatus

describe.runIf(run)('tasks on Redis', () => {
  let redis: RedisProcess
  const stores: RedisTaskStore[] = []
  const servers: Server[] = []
  /** Which instance saw its handler's signal abort. */
  const aborted: string[] = []

  async function instance(label: string): Promise<Fetcher> {
    const store = await RedisTaskStore.connect({ url: redis.url, prefix: 'tasks-test' })
    stores.push(store)
    const server = defineServer({
      name: 'jobs',
      version: '1',
      tasks: { store, watchIntervalMs: 50 },
      requestState: { secret: 'shared-by-every-instance' },
      tools: [
        defineTool({
          name: 'deploy',
          task: 'optional',
          handler: async (_args, ctx) => {
            const answer = await ctx.input.elicit(
              {
                message: 'Deploy?',
                requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
              },
              'go',
            )
            return `deployed: ${String(answer.content?.ok)} by ${label}`
          },
        }),
        defineTool({
          name: 'wait',
          task: 'optional',
          handler: (_args, ctx) =>
            new Promise<string>((resolve) =>
              ctx.signal.addEventListener('abort', () => (aborted.push(label), resolve('stopped')), {
                once: true,
              }),
            ),
        }),
      ],
    })
    servers.push(server)
    return createFetchHandler(server)
  }

  beforeAll(async () => {
    redis = await startRedis()
  })
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()))
    await Promise.all(stores.map((store) => store.close()))
    await redis?.stop()
  })

  it('creates a task on one instance and finishes it through another', async () => {
    const a = await instance('a')
    const b = await instance('b')
    const taskId = String(resultOf(await send(a, 'tools/call', { name: 'deploy', arguments: {} })).taskId)
    await waitFor(b, taskId, 'input_required')
    await send(b, 'tasks/update', {
      taskId,
      inputResponses: { go: { action: 'accept', content: { ok: true } } },
    })
    const done = await waitFor(a, taskId, 'completed')
    // The instance that received the answer replayed the handler and finished the task.
    expect(JSON.stringify(done.result)).toContain('deployed: true by b')
    expect(errorOf(await send(b, 'tasks/update', { taskId, inputResponses: {} })).code).toBe(-32602)
  })

  it("delivers a cancel sent to another instance to the running handler's signal", async () => {
    const a = await instance('a2')
    const b = await instance('b2')
    const taskId = String(resultOf(await send(a, 'tools/call', { name: 'wait', arguments: {} })).taskId)
    expect(resultOf(await send(b, 'tasks/cancel', { taskId })).resultType).toBe('complete')
    await waitFor(a, taskId, 'cancelled')
    const deadline = Date.now() + 20_000
    while (!aborted.includes('a2') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    expect(aborted).toContain('a2')
  })

  it('caps live tasks per principal across instances and hides them from others', async () => {
    let now = Date.now()
    const one = await RedisTaskStore.connect({ url: redis.url, prefix: 'cap', now: () => now })
    const two = await RedisTaskStore.connect({ url: redis.url, prefix: 'cap', now: () => now })
    stores.push(one, two)
    const p1 = ownerKey({ kind: 'user', id: 'p:1' })
    const live2 = { maxLive: 2, maxStored: 100, maxStoredBytes: 1 << 20 }
    const record = (taskId: string) => ({
      taskId,
      owner: p1,
      identity: { principal: { kind: 'user' as const, id: 'p:1' } },
      tool: 't',
      arguments: {},
      meta: {},
      status: 'working' as const,
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 1000,
      pollIntervalMs: 100,
      answers: {},
    })
    const created = await Promise.all(
      ['a', 'b', 'c', 'd'].map((id, i) => (i % 2 ? one : two).create(record(id), live2)),
    )
    expect(created.filter((outcome) => outcome === 'created')).toHaveLength(2)
    expect(await one.get('a', ownerKey({ kind: 'user', id: 'p' }))).toBeUndefined()
    now += 1000
    expect(await two.get('a', p1)).toBeUndefined()
    expect(await two.create(record('e'), live2)).toBe('created')
  })
})
