/**
 * Tasks of a stdio upstream through the proxy: the task lives in that process, so when the process dies its
 * relayed tasks end `failed` (the restarted process never had them); and a proxy sharing the task store
 * but running its own process reads another proxy's tasks as unknown, without touching them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, type Client, ProtocolError, TaskHandle } from '../src/client/index.js'
import { MemoryTaskStore } from '../src/index.js'
import { defineProxy, type ProxyServer } from '../src/proxy/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { testServer } from './helpers/paths.js'

const UPSTREAM = testServer('task-upstream.mjs')
const SECRET = 'proxy-tasks-stdio-secret-0123456789abcdef'

const stdioProxy = (store: MemoryTaskStore): Promise<ProxyServer> =>
  defineProxy({
    target: { command: process.execPath, args: [UPSTREAM], stderr: 'ignore' },
    requestState: { secret: SECRET },
    tasks: { store },
    security: { rateLimit: false },
  })

describe('tasks of a stdio upstream', () => {
  const store = new MemoryTaskStore()
  const running: RunningServer[] = []
  const clients: Client[] = []
  let first: RunningServer
  let second: RunningServer
  const client = (server: RunningServer): Client => {
    const made = connect({ url: server.url }, { warn: () => {} })
    clients.push(made)
    return made
  }
  beforeAll(async () => {
    first = await serveNode(await stdioProxy(store), { port: 0 })
    second = await serveNode(await stdioProxy(store), { port: 0 })
    running.push(first, second)
  }, 30_000)
  afterAll(async () => {
    for (const made of clients) await made.close()
    for (const server of running) await server.close()
  })

  it('reads another instance’s task as unknown and leaves it running', async () => {
    const task = (await client(first).callTool('wait', {}, { task: true })) as TaskHandle
    expect(task).toBeInstanceOf(TaskHandle)
    const elsewhere = await client(second)
      .task(task.id)
      .get()
      .catch((error: unknown) => error)
    expect(elsewhere).toBeInstanceOf(ProtocolError)
    expect((elsewhere as ProtocolError).code).toBe(-32602)
    expect((elsewhere as ProtocolError).message).toBe(`Unknown task: ${task.id}`)
    expect((await task.get()).status).toBe('working')
    await task.cancel()
    expect((await task.get()).status).toBe('cancelled')
  })

  it('fails the tasks of a process that died', async () => {
    const caller = client(first)
    const task = (await caller.callTool('wait', {}, { task: true })) as TaskHandle
    expect((await task.get()).status).toBe('working')
    const crashed = await caller.callTool('crash', {}).catch((error: unknown) => error)
    expect(crashed).toBeInstanceOf(ProtocolError)
    const failure = await task.result().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(ProtocolError)
    expect((failure as ProtocolError).code).toBe(-32603)
    expect((failure as ProtocolError).message).toMatch(/^Upstream server unavailable: .*no longer knows/)
    expect((await task.get()).status).toBe('failed')
  })
})
