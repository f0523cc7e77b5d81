import { afterEach, describe, expect, it } from 'vitest'
import {
  ownerKey,
  defineServer,
  defineTool,
  MemoryRateLimitStore,
  type SecurityOptions,
  type ToolDefinition,
} from '../../src/index.js'
import { errorOf, resultOf } from '../helpers/http.js'
import { as, byHeader, callTool, live, type Live, memoryLogger, textOf } from '../helpers/live.js'
import { until } from '../helpers/wait.js'

const running: Live[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()))
})

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

async function start(tools: ToolDefinition[], security: SecurityOptions): Promise<Live> {
  const server = live(
    defineServer({
      name: 'limits',
      version: '1',
      tools,
      security: { ...security, auth: byHeader },
      logger: memoryLogger(),
    }),
  )
  running.push(await server)
  return server
}

const ping = defineTool({ name: 'ping', handler: () => 'pong' })

describe('request rate limit (per principal, HTTP 429)', () => {
  it('answers 429 with Retry-After once the budget is spent, and recovers after the window', async () => {
    // A 3 s window: four requests fit in it even on a busy machine.
    const mcp = await start([ping], {
      rateLimit: { requests: { points: 3, durationMs: 3000 }, toolCalls: false },
    })
    const spentAt = Date.now()
    for (let i = 0; i < 3; i++) expect((await mcp.call('tools/list', {}, as('ann'))).status).toBe(200)
    const refused = await mcp.call('tools/list', {}, as('ann'))
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toMatch(/^[123]$/)
    const error = errorOf(refused)
    expect(error.message).toMatch(/^Too many requests: more than 3 requests in 3 s; retry in [123] s$/)
    expect((error.data as { retryAfterMs: number }).retryAfterMs).toBeLessThanOrEqual(3000)
    // another principal has its own budget
    expect((await mcp.call('tools/list', {}, as('bob'))).status).toBe(200)
    // Allowed again once the window has passed, and not before.
    await expect.poll(async () => (await mcp.call('tools/list', {}, as('ann'))).status).toBe(200)
    expect(Date.now() - spentAt).toBeGreaterThanOrEqual(2_950)
  })

  it('counts anonymous callers by client address', async () => {
    const mcp = await start([ping], { rateLimit: { requests: { points: 2, durationMs: 60_000 } } })
    await mcp.call('tools/list')
    await mcp.call('tools/list')
    expect((await mcp.call('tools/list')).status).toBe(429)
    expect((await mcp.call('tools/list', {}, as('ann'))).status).toBe(200)
  })
})

describe('tool rate limits (per principal and tool, isError)', () => {
  it('refuses with a retry hint the model can read, per tool, and recovers', async () => {
    const other = defineTool({ name: 'other', handler: () => 'ok' })
    const mcp = await start([ping, other], {
      rateLimit: {
        toolCalls: { points: 100, durationMs: 60_000 },
        tools: { ping: { points: 2, durationMs: 3000 }, other: false },
      },
    })
    const spentAt = Date.now()
    expect(textOf(resultOf(await callTool(mcp, 'ping', {}, as('ann'))))).toBe('pong')
    expect(textOf(resultOf(await callTool(mcp, 'ping', {}, as('ann'))))).toBe('pong')
    const limited = await callTool(mcp, 'ping', {}, as('ann'))
    expect(limited.status).toBe(200)
    const result = resultOf(limited)
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(
      /^Rate limit for tool ping reached \(2 calls per 3 s\); retry in [123] s\.$/,
    )
    expect(resultOf(await callTool(mcp, 'ping', {}, as('bob'))).isError).toBeUndefined()
    for (let i = 0; i < 5; i++)
      expect(resultOf(await callTool(mcp, 'other', {}, as('ann'))).isError).toBeUndefined()
    await expect.poll(async () => textOf(resultOf(await callTool(mcp, 'ping', {}, as('ann'))))).toBe('pong')
    expect(Date.now() - spentAt).toBeGreaterThanOrEqual(2_950)
  })

  it('keeps the in-memory store bounded', async () => {
    const store = new MemoryRateLimitStore({ maxKeys: 50 })
    const bucket = { name: 'b', points: 1, durationMs: 60_000 }
    for (let i = 0; i < 500; i++)
      expect((await store.consume(bucket, ownerKey({ kind: 'client', id: `client-${i}` }))).allowed).toBe(
        true,
      )
    expect(store.size).toBe(50)
    expect((await store.consume(bucket, ownerKey({ kind: 'client', id: 'client-499' }))).allowed).toBe(false)
  })

  it('drops the least recently used window first, counting each owner and bucket as one key', () => {
    const store = new MemoryRateLimitStore({ maxKeys: 3 })
    const once = { name: 'once', points: 1, durationMs: 60_000 }
    const other = { name: 'other', points: 1, durationMs: 60_000 }
    const ann = ownerKey({ kind: 'user', id: 'ann' })
    const bob = ownerKey({ kind: 'user', id: 'bob' })
    const cat = ownerKey({ kind: 'user', id: 'cat' })
    expect(store.consume(once, ann).allowed).toBe(true)
    expect(store.consume(other, ann).allowed).toBe(true)
    expect(store.consume(once, bob).allowed).toBe(true)
    expect(store.size).toBe(3)
    // ann's `once` window is used again (refused, still counted as used), so bob's is now the oldest.
    expect(store.consume(once, ann).allowed).toBe(false)
    expect(store.consume(other, ann).allowed).toBe(false)
    expect(store.consume(once, cat).allowed).toBe(true)
    expect(store.size).toBe(3)
    expect(store.consume(once, ann).allowed).toBe(false)
    expect(store.consume(other, ann).allowed).toBe(false)
    // bob was forgotten with his count: a new window.
    expect(store.consume(once, bob).allowed).toBe(true)
    // Equal buckets made apart count together: the budget is the bucket's name and size, not the object.
    expect(store.consume({ ...once }, ann).allowed).toBe(false)
  })
})

describe('concurrent calls per principal', () => {
  it('refuses calls beyond the cap while others run, and accepts again when they finish', async () => {
    let releaseAll!: () => void
    const gate = new Promise<void>((resolve) => (releaseAll = resolve))
    let entered = 0
    const slow = defineTool({
      name: 'slow',
      handler: async () => {
        entered++
        await gate
        return 'done'
      },
    })
    const mcp = await start([slow, ping], { maxConcurrentCalls: 2 })
    const first = callTool(mcp, 'slow', {}, as('ann'))
    const second = callTool(mcp, 'slow', {}, as('ann'))
    await expect.poll(() => entered).toBe(2)
    const third = resultOf(await callTool(mcp, 'ping', {}, as('ann')))
    expect(third.isError).toBe(true)
    expect(textOf(third)).toMatch(/Too many tool calls in progress \(at most 2 at once per caller\)/)
    expect(textOf(resultOf(await callTool(mcp, 'ping', {}, as('bob'))))).toBe('pong')
    releaseAll()
    expect(textOf(resultOf(await first))).toBe('done')
    expect(textOf(resultOf(await second))).toBe('done')
    expect(textOf(resultOf(await callTool(mcp, 'ping', {}, as('ann'))))).toBe('pong')
  })
})

describe('tool timeouts', () => {
  it('aborts the handler signal and answers a tool error that says it timed out', async () => {
    let aborted: unknown
    const stuck = defineTool({
      name: 'stuck',
      timeoutMs: 150,
      handler: (_args, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            aborted = ctx.signal.reason
            reject(new Error('stopped'))
          })
        }),
    })
    const server = await start([stuck], {})
    const started = Date.now()
    const result = resultOf(await callTool(server, 'stuck'))
    expect(Date.now() - started).toBeLessThan(10_000) // stopped by its own timeout, not left to hang
    expect(result.isError).toBe(true)
    expect(textOf(result)).toBe(
      'Tool stuck timed out after 150 ms and was stopped; try a smaller request, or try again later.',
    )
    expect(aborted).toBeInstanceOf(Error)
  })

  it('tells ctx.onAbort listeners when the timeout fires, without the handler reading its signal', async () => {
    let heard = 0
    let reason: unknown
    const listening = defineTool({
      name: 'listening',
      handler: (_args, ctx) =>
        new Promise<string>((resolve) => {
          ctx.onAbort(() => {
            heard++
            // The reason is there for whoever asks once it fired.
            reason = ctx.signal.reason
            resolve('stopped')
          })
        }),
    })
    const mcp = await start([listening], { toolTimeoutMs: 150 })
    const result = resultOf(await callTool(mcp, 'listening'))
    expect(textOf(result)).toMatch(/^Tool listening timed out after 150 ms/)
    await until(() => heard === 1, 'the listener to hear the timeout')
    expect(reason).toBeInstanceOf(Error)
    expect(String((reason as Error).message)).toMatch(/timed out after 150 ms/)
  })

  it('applies the server default to tools without their own timeout', async () => {
    const sleepy = defineTool({ name: 'sleepy', handler: () => sleep(5_000).then(() => 'late') })
    const mcp = await start([sleepy, ping], { toolTimeoutMs: 200 })
    expect(textOf(resultOf(await callTool(mcp, 'sleepy')))).toMatch(/^Tool sleepy timed out after 200 ms/)
    expect(textOf(resultOf(await callTool(mcp, 'ping')))).toBe('pong')
  })

  it('still times tools out when the concurrency cap and tool rate limits are off (the lean guard)', async () => {
    const sleepy = defineTool({ name: 'sleepy', handler: () => sleep(5_000).then(() => 'late') })
    const mcp = await start([sleepy, ping], {
      rateLimit: false,
      maxConcurrentCalls: false,
      toolTimeoutMs: 150,
    })
    const result = resultOf(await callTool(mcp, 'sleepy'))
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/^Tool sleepy timed out after 150 ms/)
    expect(textOf(resultOf(await callTool(mcp, 'ping')))).toBe('pong')
  })

  it('runs tools unguarded when every tool limit and the timeout are off', async () => {
    const slow = defineTool({ name: 'slow', handler: () => sleep(250).then(() => 'done') })
    const mcp = await start([slow], { rateLimit: false, maxConcurrentCalls: false, toolTimeoutMs: false })
    expect(textOf(resultOf(await callTool(mcp, 'slow')))).toBe('done')
  })

  it('refuses nonsense limits at definition time', () => {
    expect(() => defineServer({ name: 'x', version: '1', security: { toolTimeoutMs: -1 } })).toThrow(
      /toolTimeoutMs/,
    )
    expect(() =>
      defineServer({
        name: 'x',
        version: '1',
        security: { rateLimit: { requests: { points: 0, durationMs: 1 } } },
      }),
    ).toThrow(/points/)
  })
})
