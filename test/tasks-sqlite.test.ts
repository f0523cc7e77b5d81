/** Tasks on SQLite: a finished result outlives the server that ran it; input answered on another instance. */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createFetchHandler, defineServer, defineTool, ownerKey, type Server } from '../src/index.js'
import { SqliteTaskStore } from '../src/handles/sqlite.js'
import { errorOf, resultOf, type Fetcher } from './helpers/http.js'
import { taskRequest, waitForStatus } from './helpers/tasks.js'

const dir = mkdtempSync(join(tmpdir(), 'toolwire-tasks-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const send = taskRequest
const waitFor = waitForStatus

/** One instance of a service: its own store connection on the shared file. */
function instance(file: string): { server: Server; fetcher: Fetcher; store: SqliteTaskStore } {
  const store = new SqliteTaskStore(file)
  const server = defineServer({
    name: 'jobs',
    version: '1',
    tasks: { store },
    requestState: { secret: 'shared-by-every-instance' },
    tools: [
      defineTool({
        name: 'approve',
        task: 'optional',
        handler: async (_args, ctx) => {
          const answer = await ctx.input.elicit(
            {
              message: 'Approve?',
              requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
            },
            'approval',
          )
          return `approved: ${String(answer.content?.ok)} (pid ${process.pid})`
        },
      }),
    ],
  })
  return { server, fetcher: createFetchHandler(server), store }
}

describe('tasks on SQLite', () => {
  it('keeps a finished result across a restart, and resumes on the instance that got the answer', async () => {
    const file = join(dir, 'tasks.db')
    const a = instance(file)
    const b = instance(file)
    const taskId = String(
      resultOf(await send(a.fetcher, 'tools/call', { name: 'approve', arguments: {} })).taskId,
    )
    const waiting = await waitFor(b.fetcher, taskId, 'input_required')
    expect(Object.keys(waiting.inputRequests as object)).toEqual(['approval'])
    await send(b.fetcher, 'tasks/update', {
      taskId,
      inputResponses: { approval: { action: 'accept', content: { ok: true } } },
    })
    const done = await waitFor(a.fetcher, taskId, 'completed')
    expect(JSON.stringify(done.result)).toContain('approved: true')

    // Restart: both instances go away; a new one on the same file still has the task and its result.
    await a.server.close()
    await b.server.close()
    await a.store.close()
    await b.store.close()
    const c = instance(file)
    const again = resultOf(await send(c.fetcher, 'tasks/get', { taskId }))
    expect(again).toMatchObject({ status: 'completed', result: done.result })
    expect(errorOf(await send(c.fetcher, 'tasks/get', { taskId: 'unknown' })).code).toBe(-32602)
    await c.server.close()
    await c.store.close()
  })

  it('expires tasks with their TTL and enforces the live cap across connections', async () => {
    let now = Date.now()
    const file = join(dir, 'cap.db')
    const one = new SqliteTaskStore(file, { now: () => now })
    const two = new SqliteTaskStore(file, { now: () => now })
    const p = ownerKey({ kind: 'user', id: 'p' })
    const live2 = { maxLive: 2, maxStored: 100, maxStoredBytes: 1 << 20 }
    const record = (taskId: string) => ({
      taskId,
      owner: p,
      identity: { principal: { kind: 'user' as const, id: 'p' } },
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
    expect(await one.create(record('a'), live2)).toBe('created')
    expect(await two.create(record('b'), live2)).toBe('created')
    expect(await one.create(record('c'), live2)).toBe('live')
    expect(await two.get('a', ownerKey({ kind: 'client', id: 'p' }))).toBeUndefined()
    await two.transition('a', p, { from: ['working'], to: 'completed', set: { result: { content: [] } } })
    expect(await one.create(record('c'), live2)).toBe('created')
    now += 1000
    expect(await one.get('a', p)).toBeUndefined()
    await one.close()
    await two.close()
  })
})
