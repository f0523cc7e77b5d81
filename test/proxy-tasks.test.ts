/**
 * Tasks through the proxy. Upstream: a toolwire server (2026-07-28, HTTP) whose tools run as tasks. The proxy
 * in front of it requires bearer tokens (alice, bob); downstream, toolwire's client with `{ task: true }`
 * gets a task handle of the proxy's own, polls it to the upstream's result, answers the upstream's question
 * through it and cancels the upstream task with it. Another principal using alice's task id, or a made-up
 * id, gets the unknown-task error; a caller without the tasks extension gets the plain result; the task
 * limits bound how many upstream tasks one caller makes the proxy follow, and the mapping ends with the ttl.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, type Client, type ClientOptions, ProtocolError, TaskHandle } from '../src/client/index.js'
import {
  type CreateOutcome,
  defineServer,
  defineTool,
  MemoryTaskStore,
  type Server,
  type TaskLimits,
  type TaskRecord,
  ToolError,
} from '../src/index.js'
import { invalidParams } from '../src/wire/errors.js'
import { defineGateway, defineProxy, type GatewayServer, type ProxyServer } from '../src/proxy/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { namedUsersAuth } from './helpers/named-users.js'
import { textOf, until } from './helpers/wait.js'

const SECRET = 'proxy-tasks-test-secret-0123456789abcdef'
const ESC = '\u001b'

/** What the upstream's tools saw, so the test can wait for events there. */
const seen = { started: 0, cancelled: 0, release: [] as (() => void)[] }

const FAST = { pollIntervalMs: 100 } as const

/** The upstream's own task store, noting the ids it hands out so a test can try them downstream. */
class NotingStore extends MemoryTaskStore {
  readonly ids: string[] = []
  override create(record: TaskRecord, limits: TaskLimits): Promise<CreateOutcome> {
    this.ids.push(record.taskId)
    return super.create(record, limits)
  }
}

function upstreamServer(store = new NotingStore()): Server {
  return defineServer({
    name: 'upstream',
    version: '1.0.0',
    tasks: { store },
    requestState: { secret: SECRET },
    // The upstream sends its output as it is (escape sequences, 2 MiB): the proxy must clean and cap it.
    security: { rateLimit: false, output: false, secretsFromEnv: false },
    tools: [
      defineTool({
        name: 'big',
        inputSchema: { type: 'object' },
        task: { support: 'optional', ...FAST },
        handler: () => 'x'.repeat(2 * 1024 * 1024),
      }),
      defineTool({
        name: 'slow',
        description: 'Waits until the test releases it, or until it is cancelled.',
        inputSchema: { type: 'object', properties: { label: { type: 'string' } } },
        task: { support: 'optional', ...FAST },
        handler: async ({ label }: { label?: string }, ctx) => {
          seen.started++
          await new Promise<void>((resolve) => {
            seen.release.push(resolve)
            ctx.signal.addEventListener('abort', () => {
              seen.cancelled++
              resolve()
            })
          })
          return `done ${label ?? ''} ${ESC}[31mred${ESC}[0m`
        },
      }),
      defineTool({
        name: 'ask',
        description: 'Asks the caller a question inside its task.',
        inputSchema: { type: 'object' },
        task: { support: 'optional', ...FAST },
        handler: async (_args, ctx) => {
          const answer = await ctx.input.elicit({
            message: `Proceed? ${ESC}[2J`,
            requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
          })
          return `answer ${answer.action} ${JSON.stringify(answer.content ?? {})}`
        },
      }),
      defineTool({
        name: 'fails',
        inputSchema: { type: 'object', properties: { how: { type: 'string' } } },
        task: { support: 'optional', ...FAST },
        handler: ({ how }: { how?: string }) => {
          if (how === 'protocol') throw invalidParams(`bad ${ESC}[31minput`)
          throw new ToolError(`tool said no ${ESC}[1m`)
        },
      }),
      defineTool({
        name: 'short',
        inputSchema: { type: 'object' },
        task: { support: 'optional', ttlMs: 1500, ...FAST },
        handler: () => new Promise<string>((resolve) => seen.release.push(() => resolve('short'))),
      }),
    ],
  })
}

const auth = namedUsersAuth('alice', 'bob')

describe('tasks passed through a proxy', () => {
  const upstreamTasks = new NotingStore()
  let upstream: RunningServer
  let proxy: ProxyServer
  let running: RunningServer
  const clients: Client[] = []
  const as = (user: string, options: ClientOptions = {}): Client => {
    const client = connect(
      { url: running.url, headers: { authorization: `Bearer ${user}` } },
      { warn: () => {}, ...options },
    )
    clients.push(client)
    return client
  }
  const releaseAll = (): void => {
    for (const release of seen.release.splice(0)) release()
  }

  beforeAll(async () => {
    upstream = await serveNode(upstreamServer(upstreamTasks), { port: 0 })
    proxy = await defineProxy({
      target: { url: upstream.url },
      requestState: { secret: SECRET },
      tasks: { maxLivePerPrincipal: 2 },
      security: { rateLimit: false, auth },
    })
    running = await serveNode(proxy, { port: 0 })
  }, 30_000)
  afterAll(async () => {
    releaseAll()
    for (const client of clients) await client.close()
    await running?.close()
    await upstream?.close()
  })

  it('answers with a task of its own, polled through to the upstream result, cleaned', async () => {
    const alice = as('alice')
    const handle = await alice.callTool('slow', { label: 'one' }, { task: true })
    expect(handle).toBeInstanceOf(TaskHandle)
    const task = handle as TaskHandle
    expect(task.created).toMatchObject({ status: 'working', pollIntervalMs: 100 })
    expect((await task.get()).status).toBe('working')
    await until(() => seen.release.length > 0, 'the upstream task to start')
    releaseAll()
    const result = await task.result()
    expect(textOf(result)).toMatch(/^done one .*red/)
    expect(textOf(result)).not.toContain(ESC)
    const done = await task.get()
    expect(done.status).toBe('completed')
  })

  it('puts the upstream task’s result through the proxy’s output guard (1 MiB cap)', async () => {
    const alice = as('alice')
    const task = (await alice.callTool('big', {}, { task: true })) as TaskHandle
    const text = textOf(await task.result())
    expect(text.length).toBeGreaterThan(0)
    expect(text.length).toBeLessThan(1024 * 1024)
  })

  it('keeps the kind of a failure: isError stays a tool error, a protocol error its code', async () => {
    const alice = as('alice')
    const toolError = (await alice.callTool('fails', {}, { task: true })) as TaskHandle
    const result = await toolError.result()
    expect(result.isError).toBe(true)
    expect(textOf(result)).toContain('tool said no')
    expect(textOf(result)).not.toContain(ESC)
    const protocol = (await alice.callTool('fails', { how: 'protocol' }, { task: true })) as TaskHandle
    const failure = await protocol.result().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(ProtocolError)
    expect((failure as ProtocolError).code).toBe(-32602)
    expect((failure as ProtocolError).message).toMatch(/^bad .*input$/)
    expect((failure as ProtocolError).message).not.toContain(ESC)
  })

  it('relays the upstream task’s question and the answer (tasks/update)', async () => {
    const asked: string[] = []
    const alice = as('alice', {
      handlers: {
        elicitation: (params) => {
          asked.push(String(params.message))
          return Promise.resolve({ action: 'accept', content: { ok: true } })
        },
      },
    })
    const task = (await alice.callTool('ask', {}, { task: true })) as TaskHandle
    const statuses: string[] = []
    const result = await task.result({ onStatus: (state) => statuses.push(state.status) })
    expect(textOf(result)).toBe('answer accept {"ok":true}')
    expect(statuses).toContain('input_required')
    expect(asked).toHaveLength(1)
    expect(asked[0]).toContain('Proceed?')
    expect(asked[0]).not.toContain(ESC)
  })

  it('passes an upstream refusal of tasks/update with its code, naming the caller’s task id', async () => {
    const alice = as('alice', {
      handlers: { elicitation: () => Promise.resolve({ action: 'accept', content: { ok: true } }) },
    })
    const task = (await alice.callTool('ask', {}, { task: true })) as TaskHandle
    let state = await task.get()
    const end = Date.now() + 20_000
    while (state.status !== 'input_required' && Date.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      state = await task.get()
    }
    expect(state.status).toBe('input_required')
    const [key] = Object.keys(state.inputRequests ?? {})
    // The upstream task ends behind the proxy's back (the proxy and this client are the same anonymous
    // caller there): the answer then reaches a task that no longer waits.
    const upstreamId = upstreamTasks.ids.at(-1) as string
    const direct = connect({ url: upstream.url }, { warn: () => {} })
    try {
      await direct.task(upstreamId).cancel()
    } finally {
      await direct.close()
    }
    const refused = await task
      .update({ [key as string]: { action: 'accept', content: { ok: true } } })
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(ProtocolError)
    expect((refused as ProtocolError).code).toBe(-32602)
    expect((refused as ProtocolError).message).toContain(task.id)
    expect((refused as ProtocolError).message).not.toContain(upstreamId)
    expect((refused as ProtocolError).data).toMatchObject({ taskId: task.id, status: 'cancelled' })
    expect((await task.get()).status).toBe('cancelled')
  })

  it('refuses the upstream’s question to a caller that did not declare the capability (-32021)', async () => {
    const alice = as('alice')
    const task = (await alice.callTool('ask', {}, { task: true })) as TaskHandle
    const failure = await task.result().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(ProtocolError)
    expect((failure as ProtocolError).code).toBe(-32021)
  })

  it('cancels the upstream task when the caller cancels', async () => {
    const alice = as('alice')
    const before = seen.cancelled
    const task = (await alice.callTool('slow', { label: 'cancel me' }, { task: true })) as TaskHandle
    await until(() => seen.release.length > 0, 'the upstream task to start')
    await task.cancel()
    await until(() => seen.cancelled > before, 'the upstream handler to see the cancel')
    expect((await task.get()).status).toBe('cancelled')
    seen.release.splice(0)
  })

  it('treats another principal’s task id, and a made-up one, as unknown, and leaves the task alone', async () => {
    const alice = as('alice')
    const bob = as('bob')
    const task = (await alice.callTool('slow', { label: 'mine' }, { task: true })) as TaskHandle
    const refusal = async (work: Promise<unknown>): Promise<{ code: number; message: string }> => {
      const error = (await work.catch((thrown: unknown) => thrown)) as ProtocolError
      expect(error).toBeInstanceOf(ProtocolError)
      return { code: error.code, message: error.message }
    }
    const stolen = bob.task(task.id)
    const madeUp = bob.task('00000000-0000-4000-8000-000000000000')
    for (const [theirs, unknown] of [
      [stolen.get(), madeUp.get()],
      [stolen.cancel(), madeUp.cancel()],
      [stolen.update({ anything: {} }), madeUp.update({ anything: {} })],
    ] as const) {
      const a = await refusal(theirs)
      const b = await refusal(unknown)
      expect(a.code).toBe(-32602)
      expect(b.code).toBe(-32602)
      expect(a.message.replace(task.id, 'ID')).toBe(b.message.replace(madeUp.id, 'ID'))
    }
    // Not even alice reaches an upstream task by its upstream id: the proxy knows only its own ids.
    const upstreamId = upstreamTasks.ids.at(-1) as string
    expect(upstreamId).not.toBe(task.id)
    const direct = await refusal(alice.task(upstreamId).get())
    expect(direct).toEqual({ code: -32602, message: `Unknown task: ${upstreamId}` })
    // Bob's attempts reached nothing: alice's task still works and ends normally.
    expect((await task.get()).status).toBe('working')
    await until(() => seen.release.length > 0, 'the upstream task to start')
    releaseAll()
    expect(textOf(await task.result())).toContain('done mine')
  })

  it('gives a caller without the tasks extension the plain result (the proxy waits)', async () => {
    const plain = as('alice', { tasks: false })
    const pending = plain.callTool('slow', { label: 'plain' })
    await until(() => seen.release.length > 0, 'the upstream task to start')
    releaseAll()
    const result = await pending
    expect(result).not.toBeInstanceOf(TaskHandle)
    expect(textOf(result)).toContain('done plain')
  })

  it('bounds the upstream tasks one caller makes it follow, and cancels the one it refuses', async () => {
    const alice = as('alice')
    const bob = as('bob')
    const started = seen.started
    const first = (await alice.callTool('slow', { label: 'a' }, { task: true })) as TaskHandle
    const second = (await alice.callTool('slow', { label: 'b' }, { task: true })) as TaskHandle
    const cancelled = seen.cancelled
    const third = await alice.callTool('slow', { label: 'c' }, { task: true }).catch((e: unknown) => e)
    expect(third).toBeInstanceOf(ProtocolError)
    expect((third as ProtocolError).message).toMatch(/more than 2 unfinished tasks/)
    await until(() => seen.started >= started + 3, 'the third upstream task to start')
    await until(() => seen.cancelled > cancelled, 'the refused upstream task to be cancelled')
    // The limit is per principal: bob is not affected.
    const bobs = (await bob.callTool('slow', { label: 'bob' }, { task: true })) as TaskHandle
    expect(bobs).toBeInstanceOf(TaskHandle)
    for (const task of [first, second, bobs]) await task.cancel()
    seen.release.splice(0)
  })

  it('forgets the mapping when the task’s ttl has passed', async () => {
    const alice = as('alice')
    const task = (await alice.callTool('short', {}, { task: true })) as TaskHandle
    expect(task.created.ttlMs).toBe(1500)
    let gone: unknown
    const end = Date.now() + 20_000
    while (gone === undefined && Date.now() < end) {
      await task.get().catch((error: unknown) => (gone = error))
      if (gone === undefined) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(gone).toBeInstanceOf(ProtocolError)
    expect((gone as ProtocolError).code).toBe(-32602)
    expect((gone as ProtocolError).message).toBe(`Unknown task: ${task.id}`)
    seen.release.splice(0)
  })
})

describe('tasks passed through a gateway member', () => {
  let upstream: RunningServer
  let gateway: GatewayServer
  let running: RunningServer
  beforeAll(async () => {
    upstream = await serveNode(upstreamServer(), { port: 0 })
    gateway = await defineGateway({
      requestState: { secret: SECRET },
      security: { rateLimit: false },
      members: { up: { target: { url: upstream.url } } },
    })
    running = await serveNode(gateway, { port: 0 })
  }, 30_000)
  afterAll(async () => {
    for (const release of seen.release.splice(0)) release()
    await running?.close()
    await upstream?.close()
  })

  it('relays a namespaced tool’s task to its member', async () => {
    const client = connect({ url: running.url }, { warn: () => {} })
    try {
      const task = (await client.callTool('up_slow', { label: 'gw' }, { task: true })) as TaskHandle
      expect(task).toBeInstanceOf(TaskHandle)
      await until(() => seen.release.length > 0, 'the upstream task to start')
      for (const release of seen.release.splice(0)) release()
      expect(textOf(await task.result())).toContain('done gw')
    } finally {
      await client.close()
    }
  })
})
