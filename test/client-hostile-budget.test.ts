/**
 * The client against hostile servers: whatever a server answers, each call ends within its budget (time,
 * polls, input rounds, pages and items, server requests) with the documented error. The servers are real:
 * an HTTP server on a socket (test/fixtures/hostile-budget-server.ts) and a stdio process
 * (test/servers/hostile-budget-stdio.mjs). Counts are asserted, never times.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  BudgetExceededError,
  connect,
  DEFAULT_BUDGET,
  RequestTimeoutError,
  type ClientOptions,
  type CreateMessageResult,
} from '../src/client/index.js'
import { connectStdio } from '../src/client/stdio-entry.js'
import { FLOOD, HostileServer } from './fixtures/hostile-budget-server.js'
import { testServer } from './helpers/paths.js'
import { until } from './helpers/wait.js'

const SAMPLED: CreateMessageResult = {
  role: 'assistant',
  content: { type: 'text', text: 'ok' },
  model: 'test',
}

let hostile: HostileServer
let work: string
const quiet: ClientOptions = { warn: () => undefined }

beforeAll(async () => {
  hostile = await HostileServer.start()
  work = mkdtempSync(join(tmpdir(), 'toolwire-budget-'))
})
afterAll(async () => {
  await hostile.close()
  rmSync(work, { recursive: true, force: true })
})

const lines = (file: string): string[] => readFileSync(file, 'utf8').split('\n').filter(Boolean)

describe('the budget', () => {
  it('has frozen defaults and refuses a limit that is not a number >= 0', () => {
    expect(Object.isFrozen(DEFAULT_BUDGET)).toBe(true)
    expect(() => connect({ url: 'http://127.0.0.1:9/mcp' }, { budget: { maxPages: -1 } })).toThrow(RangeError)
    expect(() => connect({ url: 'http://127.0.0.1:9/mcp' }, { budget: { maxPolls: Number.NaN } })).toThrow(
      /maxPolls must be a number >= 0/,
    )
  })
})

describe('task polling ends with the call', () => {
  it('a task with pollIntervalMs 0 and a fresh lastUpdatedAt ends at maxTotalTimeoutMs, polled at the floor', async () => {
    const { url, counts } = hostile.path('polls')
    const client = connect({ url }, quiet)
    const totalMs = 1_000
    const error = await client.callTool('job', {}, { maxTotalTimeoutMs: totalMs }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RequestTimeoutError)
    // At most one poll per floor interval, however fast the server asks to be polled.
    expect(counts.methods['tasks/get']).toBeGreaterThan(0)
    expect(counts.methods['tasks/get']).toBeLessThanOrEqual(totalMs / DEFAULT_BUDGET.minPollIntervalMs + 1)
    // The client tells the server it stopped waiting.
    await until(() => (counts.methods['tasks/cancel'] ?? 0) === 1)
    await client.close()
  })

  it('stops after maxPolls polls with BudgetExceededError', async () => {
    const { url, counts } = hostile.path('polls')
    const client = connect({ url }, { ...quiet, budget: { maxPolls: 5, minPollIntervalMs: 1 } })
    const error = await client.callTool('job', {}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BudgetExceededError)
    expect(error).toMatchObject({ limit: 'maxPolls', max: 5 })
    expect(counts.methods['tasks/get']).toBe(5)
    await client.close()
  })
})

describe('2025-11-25 tasks draw from the same budget', () => {
  it('a task with pollInterval 0 ends at maxTotalTimeoutMs and is cancelled with tasks/cancel', async () => {
    const { url, counts } = hostile.path('legacy-task-polls')
    const client = connect({ url }, quiet)
    const totalMs = 1_000
    const error = await client.callTool('job', {}, { maxTotalTimeoutMs: totalMs }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RequestTimeoutError)
    expect(client.legacy).toBe(true)
    expect(counts.methods['tasks/get']).toBeGreaterThan(0)
    expect(counts.methods['tasks/get']).toBeLessThanOrEqual(totalMs / DEFAULT_BUDGET.minPollIntervalMs + 1)
    await until(() => (counts.methods['tasks/cancel'] ?? 0) === 1)
    await client.close()
  })
})

describe('questions asked through a task count as input rounds', () => {
  it('stops a task that asks forever after maxInputRounds', async () => {
    const { url, counts } = hostile.path('task-inputs')
    let sampled = 0
    const client = connect(
      { url },
      { ...quiet, maxInputRounds: 4, handlers: { sampling: () => (sampled++, Promise.resolve(SAMPLED)) } },
    )
    const error = await client.callTool('job', {}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BudgetExceededError)
    expect(error).toMatchObject({ limit: 'maxInputRounds' })
    expect((error as Error).message).toMatch(/still asking for input after 4 rounds/)
    expect(sampled).toBe(3)
    expect(counts.methods['tasks/update']).toBe(3)
    await client.close()
  })

  it('stops once the questions of all rounds pass maxInputRequests', async () => {
    const { url, counts } = hostile.path('task-inputs')
    let sampled = 0
    const client = connect(
      { url },
      {
        ...quiet,
        budget: { maxInputRequests: 2 },
        handlers: { sampling: () => (sampled++, Promise.resolve(SAMPLED)) },
      },
    )
    await expect(client.callTool('job', {})).rejects.toMatchObject({ limit: 'maxInputRequests', max: 2 })
    expect(sampled).toBe(2)
    expect(counts.methods['tasks/update']).toBe(2)
    await client.close()
  })
})

describe('listing stops at the page and item limits', () => {
  it('2026-07-28: tools, prompts and resources end at maxPages or maxItems', async () => {
    const { url, counts } = hostile.path('cursors')
    const client = connect({ url }, quiet)
    const error = await client.listTools().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BudgetExceededError)
    expect(error).toMatchObject({ limit: 'maxPages', max: DEFAULT_BUDGET.maxPages })
    expect((error as Error).message).toMatch(/tools\/list: the list goes on past 100 pages/)
    expect(counts.methods['tools/list']).toBe(DEFAULT_BUDGET.maxPages)
    await expect(client.listResources()).rejects.toMatchObject({ limit: 'maxPages' })
    expect(counts.methods['resources/list']).toBe(DEFAULT_BUDGET.maxPages)
    const small = connect({ url }, { ...quiet, budget: { maxItems: 5 } })
    await expect(small.listPrompts()).rejects.toMatchObject({ limit: 'maxItems', max: 5 })
    expect(counts.methods['prompts/list']).toBe(6)
    await client.close()
    await small.close()
  })

  it('2025-era (an initialize session): tools/list ends at maxPages', async () => {
    const { url, counts } = hostile.path('legacy-cursors')
    const client = connect({ url }, { ...quiet, budget: { maxPages: 7 } })
    await expect(client.listTools()).rejects.toMatchObject({ limit: 'maxPages', max: 7 })
    expect(client.legacy).toBe(true)
    expect(counts.methods['tools/list']).toBe(7 + 1) // the first one was the era probe, refused
    await client.close()
  })

  it('stdio: tools/list ends at maxPages', async () => {
    const log = join(work, 'stdio-cursors.log')
    const client = connectStdio(
      { command: process.execPath, args: [testServer('hostile-budget-stdio.mjs'), 'cursors', log] },
      { ...quiet, budget: { maxPages: 12 } },
    )
    await expect(client.listTools()).rejects.toMatchObject({ limit: 'maxPages', max: 12 })
    expect(lines(log).filter((method) => method === 'tools/list')).toHaveLength(12)
    await client.close()
  })
})

describe('requests a 2025-era server sends the client', () => {
  it('HTTP: a burst gets a few handlers at once; the rest are refused with a JSON-RPC error', async () => {
    const { url, counts } = hostile.path('legacy-flood')
    let started = 0
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const client = connect(
      { url },
      {
        ...quiet,
        maxConcurrentServerRequests: 3,
        handlers: { sampling: async () => (started++, await released, SAMPLED) },
      },
    )
    const call = client.callTool('job', {})
    // The handlers hold until the server has heard every refusal: no more than three ever run.
    await until(() => counts.errors === FLOOD - 3)
    expect(started).toBe(3)
    expect([...counts.codes]).toEqual([-32600])
    release()
    const result = await call
    expect(result.content).toEqual([{ type: 'text', text: `answered 3, refused ${FLOOD - 3}` }])
    await client.close()
  })

  it('HTTP: one call admits at most maxServerRequests of them', async () => {
    const { url, counts } = hostile.path('legacy-drip')
    let sampled = 0
    const client = connect(
      { url },
      {
        ...quiet,
        budget: { maxServerRequests: 6 },
        handlers: { sampling: async () => (sampled++, SAMPLED) },
      },
    )
    const result = await client.callTool('job', {})
    expect(result.content).toEqual([{ type: 'text', text: 'answered 6, refused 1' }])
    expect(sampled).toBe(6)
    expect(counts.errors).toBe(1)
    await client.close()
  })

  it('stdio: a burst is bounded by the in-flight cap as well', async () => {
    const log = join(work, 'stdio-flood.log')
    let started = 0
    const client = connectStdio(
      { command: process.execPath, args: [testServer('hostile-budget-stdio.mjs'), 'flood', log] },
      { ...quiet, handlers: { sampling: async () => (started++, SAMPLED) } },
    )
    const result = await client.callTool('job', {})
    const text = (result.content[0] as { text: string }).text
    const [answered, refused] = (/answered (\d+), refused (\d+)/.exec(text) ?? []).slice(1).map(Number)
    expect(answered).toBe(started)
    expect(answered).toBeLessThanOrEqual(DEFAULT_BUDGET.maxServerRequests)
    expect((answered ?? 0) + (refused ?? 0)).toBe(FLOOD)
    expect(refused).toBeGreaterThan(0)
    await client.close()
  })
})
