import { describe, expect, it } from 'vitest'
import {
  createFetchHandler,
  defineServer,
  defineTool,
  MemoryTaskStore,
  type AuthInfo,
  type Exchange,
  type Server,
} from '../src/index.js'
import { createFixtureServer } from './fixtures/conformance/server.js'
import { errorOf, meta, post, resultOf, type Fetcher } from './helpers/http.js'
import { taskRequest, waitForTask, withTasks } from './helpers/tasks.js'

const call = (fetcher: Fetcher, name: string, args: Record<string, unknown> = {}, m = withTasks) =>
  post(fetcher, 'tools/call', { name, arguments: args }, { meta: m })
const waitFor = waitForTask
const terminal = (task: Record<string, unknown>) =>
  ['completed', 'failed', 'cancelled'].includes(String(task.status))

/** Sends one request straight to a server with a given principal, as an authenticating transport would. */
async function asPrincipal(server: Server, subject: string, method: string, params: Record<string, unknown>) {
  const auth: AuthInfo = { subject, scopes: [] }
  const exchange: Exchange = {
    transport: 'memory',
    signal: new AbortController().signal,
    notify: () => {},
    auth,
  }
  const reply = await server.handle(
    { jsonrpc: '2.0', id: 1, method, params: { _meta: withTasks, ...params } },
    exchange,
  )
  return JSON.parse(reply?.body ?? '{}') as { result?: Record<string, unknown>; error?: { code: number } }
}

describe('tasks extension: server', () => {
  const fixture = createFetchHandler(createFixtureServer())

  it('answers a task-capable call with a task and inlines the result on tasks/get', async () => {
    const created = resultOf(await call(fixture, 'slow_compute', { seconds: 0, label: 'x' }))
    expect(created).toMatchObject({
      resultType: 'task',
      status: 'working',
      ttlMs: 600_000,
      pollIntervalMs: 500,
    })
    expect(created).not.toHaveProperty('requestState')
    const done = await waitFor(fixture, String(created.taskId), terminal)
    expect(done).toMatchObject({ status: 'completed', resultType: 'complete' })
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'Computed x after 0 s' }] })
  })

  it('runs the same tool in the request for a client without the extension; a task-only tool is -32021', async () => {
    const plain = meta()
    const sync = resultOf(await call(fixture, 'slow_compute', { seconds: 0 }, plain))
    expect(sync).toMatchObject({ resultType: 'complete', content: [{ type: 'text' }] })
    const refused = await call(fixture, 'failing_job', {}, plain)
    expect(errorOf(refused)).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    })
    expect(errorOf(await taskRequest(fixture, 'tasks/get', { taskId: 'x' }, plain)).code).toBe(-32021)
  })

  it('parks for input, takes answers through tasks/update, and resumes', async () => {
    const created = resultOf(await call(fixture, 'multi_input'))
    const taskId = String(created.taskId)
    const waiting = await waitFor(fixture, taskId, (t) => t.status === 'input_required')
    expect(Object.keys(waiting.inputRequests as object).sort()).toEqual(['confirm', 'name'])
    const ack = resultOf(
      await taskRequest(fixture, 'tasks/update', {
        taskId,
        inputResponses: { name: { action: 'accept', content: { name: 'Ada' } }, 'not-asked': {} },
      }),
    )
    expect(ack).toEqual({ resultType: 'complete', _meta: expect.any(Object) as unknown })
    const partial = resultOf(await taskRequest(fixture, 'tasks/get', { taskId }))
    expect(partial.status).toBe('input_required')
    expect(Object.keys(partial.inputRequests as object)).toEqual(['confirm'])
    await taskRequest(fixture, 'tasks/update', {
      taskId,
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
    })
    const done = await waitFor(fixture, taskId, terminal)
    expect(done.result).toMatchObject({ content: [{ text: 'name: accept, confirm: accept' }] })
  })

  it('gathers input by multi-round-trip first, then continues as a task with the answer', async () => {
    const first = resultOf(await call(fixture, 'test_tool_with_task'))
    expect(first.resultType).toBe('input_required')
    const second = resultOf(
      await post(
        fixture,
        'tools/call',
        {
          name: 'test_tool_with_task',
          arguments: {},
          inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
          requestState: first.requestState,
        },
        { meta: withTasks },
      ),
    )
    expect(second.resultType).toBe('task')
    const done = await waitFor(fixture, String(second.taskId), terminal)
    expect(JSON.stringify(done.result)).toContain('Hello, Alice!')
  })

  it('reports a protocol error as failed and a tool error as completed with isError', async () => {
    const failed = await waitFor(
      fixture,
      String(resultOf(await call(fixture, 'protocol_error_job')).taskId),
      terminal,
    )
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32603 } })
    expect(failed).not.toHaveProperty('result')
  })

  it('delivers tasks/cancel to the handler signal', async () => {
    let aborted!: () => void
    const abortSeen = new Promise<void>((resolve) => (aborted = resolve))
    const server = defineServer({
      name: 't',
      version: '1',
      tools: [
        defineTool({
          name: 'wait',
          task: 'optional',
          handler: (_args, ctx) =>
            new Promise<string>((resolve) => {
              ctx.signal.addEventListener('abort', () => (aborted(), resolve('stopped')), { once: true })
            }),
        }),
      ],
    })
    const fetcher = createFetchHandler(server)
    const taskId = String(resultOf(await call(fetcher, 'wait')).taskId)
    expect(resultOf(await taskRequest(fetcher, 'tasks/cancel', { taskId })).resultType).toBe('complete')
    await abortSeen
    const task = await waitFor(fetcher, taskId, terminal)
    expect(task.status).toBe('cancelled')
    // Cancelling again, after the end, is the same empty acknowledgement.
    expect(resultOf(await taskRequest(fetcher, 'tasks/cancel', { taskId }))).not.toHaveProperty('status')
  })

  it('rejects bad input with clear protocol errors', async () => {
    expect(errorOf(await taskRequest(fixture, 'tasks/get', { taskId: 'no-such-task' })).code).toBe(-32602)
    expect(errorOf(await taskRequest(fixture, 'tasks/cancel', { taskId: 'no-such-task' })).code).toBe(-32602)
    const numeric = await post(
      fixture,
      'tasks/get',
      { taskId: 42 },
      { meta: withTasks, headers: { 'mcp-name': '42' } },
    )
    expect(errorOf(numeric).code).toBe(-32602)
    expect(errorOf(await taskRequest(fixture, 'tasks/list', {})).code).toBe(-32601)
    const taskId = String(resultOf(await call(fixture, 'slow_compute', { seconds: 0 })).taskId)
    await waitFor(fixture, taskId, terminal)
    const update = await taskRequest(fixture, 'tasks/update', { taskId, inputResponses: {} })
    expect(errorOf(update)).toMatchObject({ code: -32602, data: { status: 'completed' } })
    expect(errorOf(await taskRequest(fixture, 'tasks/update', { taskId, inputResponses: 'x' })).code).toBe(
      -32602,
    )
    const mismatch = await post(
      fixture,
      'tasks/get',
      { taskId },
      { meta: withTasks, headers: { 'mcp-name': 'other' } },
    )
    expect(errorOf(mismatch).code).toBe(-32020)
  })

  it("binds tasks to their principal, expires them with their TTL, and caps a principal's live tasks", async () => {
    let now = Date.now()
    const store = new MemoryTaskStore({ now: () => now })
    const server = defineServer({
      name: 't',
      version: '1',
      tasks: { store, maxLivePerPrincipal: 2 },
      tools: [
        defineTool({
          name: 'forever',
          task: { support: 'optional', ttlMs: 60_000 },
          handler: (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)),
        }),
      ],
    })
    const first = await asPrincipal(server, 'alice', 'tools/call', { name: 'forever', arguments: {} })
    const taskId = String(first.result?.taskId)
    expect((await asPrincipal(server, 'alice', 'tasks/get', { taskId })).result?.status).toBe('working')
    const foreign = await asPrincipal(server, 'mallory', 'tasks/get', { taskId })
    const unknown = await asPrincipal(server, 'mallory', 'tasks/get', { taskId: 'made-up' })
    expect(foreign.error).toEqual({
      ...unknown.error,
      message: expect.any(String) as unknown,
      data: { taskId },
    })
    expect((await asPrincipal(server, 'mallory', 'tasks/cancel', { taskId })).error?.code).toBe(-32602)
    await asPrincipal(server, 'alice', 'tools/call', { name: 'forever', arguments: {} })
    const flood = await asPrincipal(server, 'alice', 'tools/call', { name: 'forever', arguments: {} })
    expect(flood.error?.code).toBe(-32600)
    expect(
      (await asPrincipal(server, 'bob', 'tools/call', { name: 'forever', arguments: {} })).result?.resultType,
    ).toBe('task')
    now += 120_000
    expect((await asPrincipal(server, 'alice', 'tasks/get', { taskId })).error?.code).toBe(-32602)
    await server.close()
  })
})
