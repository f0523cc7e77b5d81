/**
 * 2025-era upstream tasks through the proxy. Upstream: @modelcontextprotocol/server-everything, whose
 * `simulate-research-query` runs only as a 2025-11-25 task and, when the topic is ambiguous, asks its question
 * on a `tasks/result` request (over stdio and over the SDK's Streamable HTTP), and a hostile HTTP server that
 * floods that request with questions. Downstream: toolwire's client with the tasks extension gets a task of
 * the proxy's own, sees the question under `inputRequests` and answers it through `tasks/update`; the proxy
 * holds at most `maxHeldTasks` such requests, and admits only the questions its upstream client admits.
 */
import type { Server as HttpServer } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type ClientOptions,
  connect,
  type CreateMessageResult,
  TaskHandle,
  type TaskState,
} from '../src/client/index.js'
import { DEFAULT_CONCURRENT_SERVER_REQUESTS } from '../src/client/server-requests.js'
import {
  defineGateway,
  defineProxy,
  type GatewayServer,
  type ProxyOptions,
  type ProxyServer,
} from '../src/proxy/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { FLOOD, HostileServer } from './fixtures/hostile-budget-server.js'
import { everythingOverHttp, stopEverything } from './helpers/everything-http.js'
import { EVERYTHING_SERVER as EVERYTHING } from './helpers/paths.js'
import { namedUsersAuth } from './helpers/named-users.js'
import { textOf, until } from './helpers/wait.js'

const SECRET = 'proxy-legacy-tasks-secret-0123456789abcdef'
const TOOL = 'simulate-research-query'
const STDIO = { command: process.execPath, args: [EVERYTHING], stderr: 'ignore' } as const
const SAMPLED: CreateMessageResult = {
  role: 'assistant',
  content: { type: 'text', text: 'ok' },
  model: 'test',
}

/** A proxy of `target`, served on a free port. */
async function served(
  options: Omit<ProxyOptions, 'requestState'>,
): Promise<{ proxy: ProxyServer; running: RunningServer }> {
  const proxy = await defineProxy({ requestState: { secret: SECRET }, ...options })
  return { proxy, running: await serveNode(proxy, { port: 0 }) }
}

/**
 * Every capability the proxy's shared upstream process declares besides the elicitation a handler brings:
 * a caller declaring them all is served by that process, whose `tasks/list` `upstreamAsking` reads.
 */
const AS_SHARED = { sampling: {}, roots: {} }

/** A client whose elicitation handler picks `interpretation` and notes each question. */
function answering(url: string, interpretation: string, asked: string[], extra: ClientOptions = {}) {
  return connect(
    { url },
    {
      warn: () => {},
      capabilities: AS_SHARED,
      handlers: {
        elicitation: (params) => {
          asked.push(params.message)
          return { action: 'accept', content: { interpretation } }
        },
      },
      ...extra,
    },
  )
}

/**
 * Calls the research tool through `url` as a task on an ambiguous topic and follows the task to its end:
 * the question it asks, and the report.
 */
async function research(
  url: string,
  tool: string,
  topic: string,
): Promise<{ asked: string[]; statuses: string[]; report: string }> {
  const asked: string[] = []
  const client = answering(url, 'technical', asked)
  try {
    const task = await client.callTool(tool, { topic, ambiguous: true }, { task: true })
    expect(task).toBeInstanceOf(TaskHandle)
    const statuses: string[] = []
    const result = await (task as TaskHandle).result({ onStatus: (state) => statuses.push(state.status) })
    return { asked, statuses, report: textOf(result) }
  } finally {
    await client.close()
  }
}

/** How many of the upstream's tasks are asking now, by its own tasks/list. */
async function upstreamAsking(proxy: ProxyServer): Promise<number> {
  const { tasks } = await proxy.upstream.use((upstream) => upstream.request('tasks/list'))
  return (tasks as { status: string }[]).filter((task) => task.status === 'input_required').length
}

/**
 * Looks at a task not held while its upstream asks: held, its question would show on the next look (it
 * comes at once on the held request), so a while of looks shows it is not.
 */
async function staysWorking(task: TaskHandle): Promise<void> {
  for (let look = 0; look < 10; look++) {
    expect((await task.get()).status).toBe('working')
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

describe('a 2025-era upstream task over stdio (server-everything)', () => {
  let running: RunningServer
  beforeAll(async () => {
    ;({ running } = await served({ target: STDIO }))
  }, 30_000)
  afterAll(async () => {
    await running?.close()
  })

  it('is a task of the proxy’s own for a caller with the extension, followed to the upstream’s result', async () => {
    const client = connect({ url: running.url }, { warn: () => {} })
    try {
      const task = await client.callTool(TOOL, { topic: 'cats' }, { task: true })
      expect(task).toBeInstanceOf(TaskHandle)
      const handle = task as TaskHandle
      expect((await handle.get()).status).toMatch(/working|completed/)
      const statuses: string[] = []
      const result = await handle.result({ onStatus: (state) => statuses.push(state.status) })
      expect(textOf(result)).toContain('Research Report: cats')
      expect(statuses.at(-1)).toBe('completed')
    } finally {
      await client.close()
    }
  }, 30_000)

  it('relays the question the upstream task asks on tasks/result, and the answer back', async () => {
    const { asked, statuses, report } = await research(running.url, TOOL, 'tides')
    expect(asked).toEqual([expect.stringContaining('"tides" could have multiple interpretations')])
    expect(statuses).toContain('input_required')
    expect(report).toContain('# Research Report: tides (technical)')
  }, 30_000)

  it('runs the task without a question for a caller that did not declare elicitation, as the upstream does directly', async () => {
    // Its upstream process declares no elicitation either (the caller's own capability set), so
    // server-everything treats the topic as plain rather than ask.
    const client = connect({ url: running.url }, { warn: () => {} })
    try {
      const task = (await client.callTool(
        TOOL,
        { topic: 'moths', ambiguous: true },
        { task: true },
      )) as TaskHandle
      const report = textOf(await task.result())
      expect(report).toMatch(/^# Research Report: moths\n/)
      expect(report).not.toContain('Elicitation Flow')
    } finally {
      await client.close()
    }
  }, 30_000)

  it('cancels the upstream task with tasks/cancel', async () => {
    const client = connect({ url: running.url }, { warn: () => {} })
    try {
      const task = (await client.callTool(TOOL, { topic: 'reefs' }, { task: true })) as TaskHandle
      await task.cancel()
      await until(async () => (await task.get()).status === 'cancelled', 'the task to read as cancelled')
    } finally {
      await client.close()
    }
  }, 30_000)

  it('gives the plain result to a caller without the extension (the proxy waits)', async () => {
    const client = connect({ url: running.url }, { warn: () => {}, tasks: false })
    try {
      const result = await client.callTool(TOOL, { topic: 'owls' })
      expect(result).not.toBeInstanceOf(TaskHandle)
      expect(textOf(result)).toContain('Research Report: owls')
    } finally {
      await client.close()
    }
  }, 30_000)
})

describe('2025-era upstream tasks held past maxHeldTasks', () => {
  let proxy: ProxyServer
  let running: RunningServer
  beforeAll(async () => {
    ;({ proxy, running } = await served({ target: STDIO, security: { rateLimit: false }, maxHeldTasks: 1 }))
  }, 30_000)
  afterAll(async () => {
    await running?.close()
  })

  it('leaves a task past the bound working, its question waiting upstream, until the held one ends', async () => {
    const client = answering(running.url, 'x', [])
    try {
      const ask = async (topic: string): Promise<TaskHandle> =>
        (await client.callTool(TOOL, { topic, ambiguous: true }, { task: true })) as TaskHandle
      const first = await ask('first')
      await until(async () => (await first.get()).status === 'input_required', 'the first task to ask')
      const second = await ask('second')
      // The upstream asks the second task's question too (its own tasks/list says so); the proxy holds only
      // one task, so the second shows no question.
      await until(async () => (await upstreamAsking(proxy)) === 2, 'both upstream tasks to ask')
      await staysWorking(second)
      expect(textOf(await first.result())).toContain('Research Report: first')
      await until(async () => (await second.get()).status === 'input_required', 'the second task to ask')
      expect(textOf(await second.result())).toContain('Research Report: second')
    } finally {
      await client.close()
    }
  }, 60_000)
})

describe('2025-era upstream tasks held past maxHeldTasksPerPrincipal', () => {
  let proxy: ProxyServer
  let running: RunningServer
  beforeAll(async () => {
    ;({ proxy, running } = await served({
      target: STDIO,
      security: {
        rateLimit: false,
        auth: namedUsersAuth('alice', 'bob'),
      },
      maxHeldTasksPerPrincipal: 1,
    }))
  }, 30_000)
  afterAll(async () => {
    await running?.close()
  })

  it('leaves one principal’s second task working while another principal’s is held', async () => {
    const as = (user: string) =>
      connect(
        { url: running.url, headers: { authorization: `Bearer ${user}` } },
        {
          warn: () => {},
          capabilities: AS_SHARED,
          handlers: { elicitation: () => ({ action: 'accept', content: { interpretation: 'x' } }) },
        },
      )
    const alice = as('alice')
    const bob = as('bob')
    try {
      const ask = async (client: typeof alice, topic: string): Promise<TaskHandle> =>
        (await client.callTool(TOOL, { topic, ambiguous: true }, { task: true })) as TaskHandle
      const first = await ask(alice, 'first')
      await until(async () => (await first.get()).status === 'input_required', 'alice’s first task to ask')
      const second = await ask(alice, 'second')
      await until(async () => (await upstreamAsking(proxy)) === 2, 'both of alice’s upstream tasks to ask')
      await staysWorking(second)
      const theirs = await ask(bob, 'third')
      await until(async () => (await theirs.get()).status === 'input_required', 'bob’s task to ask')
      for (const task of [first, second]) await task.cancel()
      await theirs.cancel()
    } finally {
      await alice.close()
      await bob.close()
    }
  }, 60_000)
})

describe('a 2025-era upstream task over Streamable HTTP (server-everything)', () => {
  let upstream: { url: string; http: HttpServer }
  let running: RunningServer
  beforeAll(async () => {
    upstream = await everythingOverHttp()
    ;({ running } = await served({ target: { url: upstream.url } }))
  }, 30_000)
  afterAll(async () => {
    await running?.close()
    if (upstream) await stopEverything(upstream.http)
  })

  it('relays the question that comes on the held tasks/result stream', async () => {
    const { asked, report } = await research(running.url, TOOL, 'canals')
    expect(asked).toEqual([expect.stringContaining('"canals" could have multiple interpretations')])
    expect(report).toContain('# Research Report: canals (technical)')
  }, 30_000)
})

describe('a 2025-era member’s task through a gateway (server-everything)', () => {
  let gateway: GatewayServer
  let running: RunningServer
  beforeAll(async () => {
    gateway = await defineGateway({ requestState: { secret: SECRET }, members: { ev: { target: STDIO } } })
    running = await serveNode(gateway, { port: 0 })
  }, 30_000)
  afterAll(async () => {
    await running?.close()
  })

  it('relays the namespaced tool’s task and its question to the member', async () => {
    const { asked, report } = await research(running.url, `ev_${TOOL}`, 'geysers')
    expect(asked).toEqual([expect.stringContaining('"geysers" could have multiple interpretations')])
    expect(report).toContain('# Research Report: geysers (technical)')
  }, 30_000)
})

describe('a hostile 2025-era upstream flooding a task’s questions', () => {
  let hostile: HostileServer
  beforeAll(async () => {
    hostile = await HostileServer.start()
  })
  afterAll(async () => {
    await hostile?.close()
  })

  it('shows only the questions the upstream client admits at once; the rest are refused upstream', async () => {
    const { url, counts } = hostile.path('legacy-task-flood')
    const { running } = await served({ target: { url }, security: { rateLimit: false } })
    const client = connect(
      { url: running.url },
      { warn: () => {}, handlers: { sampling: () => Promise.resolve(SAMPLED) } },
    )
    try {
      const task = (await client.callTool('job', {}, { task: true })) as TaskHandle
      expect(task).toBeInstanceOf(TaskHandle)
      await until(async () => (await task.get()).status === 'input_required', 'the held questions to show')
      await until(
        () => counts.errors === FLOOD - DEFAULT_CONCURRENT_SERVER_REQUESTS,
        'the rest to be refused',
      )
      const state: TaskState = await task.get()
      expect(Object.keys(state.inputRequests ?? {})).toHaveLength(DEFAULT_CONCURRENT_SERVER_REQUESTS)
      await task.cancel()
      expect(counts.methods['tasks/cancel']).toBe(1)
    } finally {
      await client.close()
      await running.close()
    }
  }, 30_000)
})
