/**
 * Tools that run only as a 2025-11-25 task (`execution.taskSupport: 'required'`), against the real
 * @modelcontextprotocol/server-everything over stdio (its `simulate-research-query`, built on the official
 * SDK's task support): the client calls with a `task`, polls `tasks/get`, answers the elicitation that
 * `tasks/result` carries, and cancels with `tasks/cancel` when the call's budget is spent. The CLI lists such
 * tools as needing a task and calls them.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Client, connect, RequestTimeoutError, TaskHandle, type TaskState } from '../src/client/index.js'
import { connectStdio } from '../src/client/stdio-entry.js'
import { everythingOverHttp, stopEverything } from './helpers/everything-http.js'
import { CLI, ROOT } from './helpers/paths.js'
import { until } from './helpers/wait.js'

const EVERYTHING_ARGS = [
  join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js'),
  'stdio',
]
const EVERYTHING = { command: process.execPath, args: EVERYTHING_ARGS, stderr: 'ignore' as const }
const TOOL = 'simulate-research-query'

const text = (result: { content: unknown[] }): string =>
  result.content.map((block) => (block as { text?: string }).text ?? '').join('\n')

// The research tool takes four one-second stages: a generous deadline for a busy machine.
describe('2025-11-25 tasks: server-everything over stdio', { timeout: 60_000 }, () => {
  let client: Client
  const asked: string[] = []
  beforeAll(() => {
    client = connectStdio(EVERYTHING, {
      warn: () => undefined,
      handlers: {
        elicitation: (params) => {
          asked.push(params.message)
          return { action: 'accept', content: { interpretation: 'technical' } }
        },
      },
    })
  })
  afterAll(() => client.close())

  it('calls a tool that requires a task and answers the question the task asks', async () => {
    const { tools } = await client.listTools()
    expect(tools.find((tool) => tool.name === TOOL)).toMatchObject({ execution: { taskSupport: 'required' } })
    const statuses: string[] = []
    const result = await client.callTool(
      TOOL,
      { topic: 'tides', ambiguous: true },
      { onTaskStatus: (task) => statuses.push(task.status) },
    )
    expect(text(result)).toContain('# Research Report: tides (technical)')
    expect(asked).toHaveLength(1)
    expect(asked[0]).toContain('"tides" could have multiple interpretations')
    expect(statuses[0]).toBe('working')
    expect(statuses).toContain('input_required')
    expect(statuses.at(-1)).toBe('completed')
  })

  it('returns the task’s handle with task: true; its result answers the question', async () => {
    const handle = await client.callTool(TOOL, { topic: 'dunes', ambiguous: true }, { task: true })
    expect(handle).toBeInstanceOf(TaskHandle)
    const task = handle as TaskHandle
    expect(['working', 'input_required']).toContain((await task.get()).status)
    // A 2025-11-25 server has no tasks/update: its questions come on tasks/result.
    await expect(task.update({ q: {} })).rejects.toThrow(TypeError)
    const before = asked.length
    expect(text(await task.result())).toContain('# Research Report: dunes (technical)')
    expect(asked.length).toBe(before + 1)
  })

  it('gives a task’s question to the call waiting on that task, even with another call’s handlers open', async () => {
    const mine: string[] = []
    const theirs: string[] = []
    const accept = (into: string[]) => ({
      elicitation: (params: { message: string }) => {
        into.push(params.message)
        return { action: 'accept' as const, content: { interpretation: 'technical' } }
      },
    })
    // stdio names no call in a server's request: only the task it names (related-task) tells them apart.
    const other = client.callTool(
      'trigger-long-running-operation',
      { duration: 3, steps: 3 },
      { handlers: accept(theirs) },
    )
    const result = await client.callTool(
      TOOL,
      { topic: 'fjords', ambiguous: true },
      { handlers: accept(mine) },
    )
    expect(text(result)).toContain('# Research Report: fjords (technical)')
    expect(mine).toEqual([expect.stringContaining('"fjords" could have multiple interpretations')])
    expect(theirs).toEqual([])
    await other
  })

  it('cancels the task with tasks/cancel when the call runs out of time', async () => {
    let task: TaskState | undefined
    const error = await client
      .callTool(TOOL, { topic: 'reefs' }, { maxTotalTimeoutMs: 300, onTaskStatus: (t) => (task ??= t) })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RequestTimeoutError)
    const taskId = task?.taskId
    expect(taskId).toBeTypeOf('string')
    await until(async () => (await client.request('tasks/get', { taskId })).status === 'cancelled')
  })
})

describe('2025-11-25 tasks: server-everything over Streamable HTTP', { timeout: 60_000 }, () => {
  it('calls the research tool; its question comes on the tasks/result stream', async () => {
    const { url, http } = await everythingOverHttp()
    const asked: string[] = []
    const client = connect(
      { url },
      {
        warn: () => undefined,
        handlers: {
          elicitation: (params, context) => {
            asked.push(`${context.method} ${params.message}`)
            return { action: 'accept', content: { interpretation: 'historical' } }
          },
        },
      },
    )
    try {
      const result = await client.callTool(TOOL, { topic: 'canals', ambiguous: true })
      expect(client.legacy).toBe(true)
      expect(text(result)).toContain('# Research Report: canals (historical)')
      // On HTTP the question names the request whose stream carried it.
      expect(asked).toEqual([expect.stringMatching(/^tasks\/result The research query "canals"/)])
    } finally {
      await client.close()
      await stopEverything(http)
    }
  })
})

function run(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    child.on('error', reject)
    child.on('close', (status) => resolve({ status, stdout, stderr }))
  })
}

describe('2025-11-25 tasks: the CLI', { timeout: 60_000 }, () => {
  it('list marks the tools that need a task', async () => {
    const { status, stdout } = await run('list', '--', process.execPath, ...EVERYTHING_ARGS)
    expect(status).toBe(0)
    expect(stdout).toMatch(/^simulate-research-query — Simulate Research Query \[needs a task\]$/m)
    expect(stdout).toMatch(/^echo\b(?!.*needs a task).*$/m)
  })

  it('call runs such a tool as a task and prints its status changes', async () => {
    const args = ['call', TOOL, 'topic=tides', '--yes', '--', process.execPath, ...EVERYTHING_ARGS]
    const { status, stdout, stderr } = await run(...args)
    expect(status).toBe(0)
    expect(stdout).toContain('# Research Report: tides')
    expect(stderr).toMatch(/working/)
    expect(stderr).toMatch(/completed/)
  })
})
