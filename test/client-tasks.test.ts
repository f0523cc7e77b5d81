/** toolwire's client against toolwire's server: tools that answer with a task (io.modelcontextprotocol/tasks). */
import { describe, expect, it } from 'vitest'
import { type Client, connect, ProtocolError, TaskHandle, type TaskState } from '../src/client/index.js'
import { createFetchHandler } from '../src/index.js'
import { createFixtureServer } from './fixtures/conformance/server.js'

const handlers = {
  elicitation: (params: { message: string; requestedSchema?: { properties?: Record<string, unknown> } }) => {
    const field = Object.keys(params.requestedSchema?.properties ?? {})[0] ?? 'name'
    return { action: 'accept' as const, content: { [field]: field === 'confirm' ? true : 'Ada' } }
  },
}
const client = (options: { tasks?: boolean } = {}): Client =>
  connect(
    { url: 'http://127.0.0.1/mcp', fetch: createFetchHandler(createFixtureServer()) },
    { handlers, ...options },
  )

describe('client: tasks', () => {
  it('declares the extension and resolves callTool to the final result, reporting each status', async () => {
    const statuses: string[] = []
    const result = await client().callTool(
      'slow_compute',
      { seconds: 0, label: 'c' },
      { onTaskStatus: (task: TaskState) => statuses.push(task.status) },
    )
    expect(result.content).toEqual([{ type: 'text', text: 'Computed c after 0 s' }])
    expect(statuses[0]).toBe('working')
    expect(statuses.at(-1)).toBe('completed')
  })

  it('answers input_required inside a task with the same handlers', async () => {
    const result = await client().callTool('confirm_delete', { filename: 'a.txt' })
    expect(result.content).toEqual([{ type: 'text', text: 'Deleted a.txt' }])
    const both = await client().callTool('multi_input', {})
    expect(both.content).toEqual([{ type: 'text', text: 'name: accept, confirm: accept' }])
    const composed = await client().callTool('test_tool_with_task', {})
    expect(JSON.stringify(composed.content)).toContain('Hello, Ada!')
  })

  it('returns the handle with task: true; another client cancels it by id', async () => {
    const first = client()
    const server = createFetchHandler(createFixtureServer())
    const a = connect({ url: 'http://127.0.0.1/mcp', fetch: server }, { handlers })
    const b = connect({ url: 'http://127.0.0.1/mcp', fetch: server }, { handlers })
    const handle = await a.callTool('slow_compute', { seconds: 60 }, { task: true })
    expect(handle).toBeInstanceOf(TaskHandle)
    if (!(handle instanceof TaskHandle)) return
    expect((await b.task(handle.id).get()).status).toBe('working')
    await b.task(handle.id).cancel()
    await expect(handle.result()).rejects.toThrow(/cancel/i)
    expect((await handle.get()).status).toBe('cancelled')
    // A fast answer is still a plain result with task: true.
    expect(await first.callTool('greet', { name: 'x' }, { task: true })).toMatchObject({
      content: [{ text: 'Hello, x!' }],
    })
  })

  it('turns a failed task into a ProtocolError; without the extension the call stays synchronous', async () => {
    await expect(client().callTool('protocol_error_job', {})).rejects.toBeInstanceOf(ProtocolError)
    const plain = client({ tasks: false })
    expect((await plain.callTool('slow_compute', { seconds: 0 })).content).toHaveLength(1)
    await expect(plain.callTool('failing_job', {})).rejects.toMatchObject({ code: -32021 })
  })
})
