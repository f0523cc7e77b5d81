/**
 * A long-lived request answered later: the `LaterResult` a listen stream ends with, the dispatcher handing
 * it to the transport's reply target without a promise, the same stream behind middleware that awaits it,
 * and what an open stream holds, counted in a child process's heap snapshots.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { listenMemory } from '../bench/listen-memory.mjs'
import { createFetchHandler, defineServer, defineTool, type Middleware } from '../src/index.js'
import type { Reply, ReplyTarget } from '../src/protocol/dispatcher.js'
import type { Exchange } from '../src/protocol/exchange.js'
import type { RequestHandler } from '../src/protocol/handler.js'
import { LaterResult } from '../src/protocol/later-result.js'
import { meta } from './helpers/http.js'
import { ROOT } from './helpers/paths.js'
import { openListen } from './helpers/sse-stream.js'
import { until } from './helpers/wait.js'

describe('LaterResult', () => {
  it('tells its receiver the first result given, whether given before or after it is attached', () => {
    const told: unknown[] = []
    const receiver = { settled: (a: string, b: number, result: unknown) => told.push([a, b, result]) }
    const early = new LaterResult()
    early.settle({ n: 1 })
    early.settle({ n: 2 })
    early.deliverTo(receiver, 'early', 1)
    const late = new LaterResult()
    late.deliverTo(receiver, 'late', 2)
    expect(told).toEqual([['early', 1, { n: 1 }]])
    late.settle({ n: 3 })
    late.settle({ n: 4 })
    expect(told).toEqual([
      ['early', 1, { n: 1 }],
      ['late', 2, { n: 3 }],
    ])
  })

  it('can be awaited, before or after it settles, as often as wanted, beside its receiver', async () => {
    const told: unknown[] = []
    const later = new LaterResult()
    later.deliverTo({ settled: (_a: null, _b: null, result: unknown) => told.push(result) }, null, null)
    const before = later.then((result) => result)
    later.settle({ done: true })
    expect(await before).toEqual({ done: true })
    expect(await later).toEqual({ done: true })
  }, 10_000)
})

/** A reply target that records what it is given. */
function recordingTarget(): ReplyTarget & {
  readonly replies: (Reply | null)[]
  readonly failures: unknown[]
} {
  const replies: (Reply | null)[] = []
  const failures: unknown[] = []
  return { replies, failures, reply: (reply) => replies.push(reply), fail: (error) => failures.push(error) }
}

const exchange = (): Exchange => ({
  transport: 'memory',
  signal: new AbortController().signal,
  notify: () => {},
})
const call = (id: number, name: string) => ({
  jsonrpc: '2.0' as const,
  id,
  method: 'tools/call',
  params: { _meta: meta(), name, arguments: {} },
})

describe('Server.answerTo', () => {
  const server = defineServer({
    name: 'answer-to',
    version: '1',
    tools: [
      defineTool({ name: 'now', handler: () => 'at once' }),
      defineTool({ name: 'soon', handler: async () => 'a tick later' }),
      defineTool({
        name: 'broken',
        handler: () => {
          throw new Error('the handler broke')
        },
      }),
    ],
  })

  it('hands each answer to its target, once, whether the handler answered at once or later', async () => {
    const target = recordingTarget()
    server.answerTo(call(1, 'now'), exchange(), undefined, target)
    server.answerTo(call(2, 'soon'), exchange(), undefined, target)
    await until(() => target.replies.length === 2)
    const byId = new Map(
      target.replies.map((reply) => [JSON.parse(reply?.body ?? '').id, JSON.parse(reply?.body ?? '')]),
    )
    expect(byId.get(1)).toMatchObject({ result: { content: [{ text: 'at once' }] } })
    expect(byId.get(2)).toMatchObject({ result: { content: [{ text: 'a tick later' }] } })
    expect(target.failures).toEqual([])
  })

  it('answers a failing handler and an unknown method as the other entry points do', async () => {
    const target = recordingTarget()
    server.answerTo(call(3, 'broken'), exchange(), undefined, target)
    const unknown = { jsonrpc: '2.0' as const, id: 4, method: 'no/such', params: { _meta: meta() } }
    server.answerTo(unknown, exchange(), undefined, target)
    await until(() => target.replies.length === 2)
    // The failure's reference is made per call: everything else must be the same.
    const unref = (body: string | undefined) => JSON.parse((body ?? '').replace(/\(ref [^)]*\)/g, '(ref)'))
    const [broken, missing] = [3, 4].map((id) =>
      target.replies.map((reply) => unref(reply?.body)).find((body) => body.id === id),
    )
    expect(broken).toEqual(unref((await server.handle(call(3, 'broken'), exchange()))?.body))
    expect(broken.result.isError).toBe(true)
    expect(missing).toEqual(JSON.parse((await server.handle(unknown, exchange()))?.body ?? ''))
    expect(missing.error.code).toBe(-32601)
  })
})

describe('a listen stream answered later', () => {
  it('ends with its closing result through middleware that awaits it, which sees that result', async () => {
    const seen: unknown[] = []
    const watching: Middleware = async (ctx, next) => {
      const result = await next()
      if (ctx.method === 'subscriptions/listen') seen.push(result)
      return result
    }
    const server = defineServer({ name: 'awaited', version: '1', tools: [], middleware: [watching] })
    const fetcher = createFetchHandler(server)
    const stream = await openListen(fetcher, 'w1', { toolsListChanged: true })
    expect((await stream.next())?.method).toBe('notifications/subscriptions/acknowledged')
    await until(() => server.listeners === 1)
    await server.close()
    const end = await stream.next()
    expect(end).toMatchObject({ id: 'w1', result: { resultType: 'complete' } })
    expect(seen).toEqual([(end as { result: Record<string, unknown> }).result])
    expect(await stream.next()).toBeUndefined()
  })

  it('ends the same through a handler that only has handle() (the transport waits on its promise)', async () => {
    const server = defineServer({ name: 'handle-only', version: '1', tools: [] })
    const handleOnly: RequestHandler = {
      handle: (request, exchange, check) => server.handle(request, exchange, check),
      logger: server.logger,
      close: () => server.close(),
    }
    const stream = await openListen(createFetchHandler(handleOnly), 'h1', { toolsListChanged: true })
    expect((await stream.next())?.method).toBe('notifications/subscriptions/acknowledged')
    await until(() => server.listeners === 1)
    await handleOnly.close()
    expect(await stream.next()).toMatchObject({ id: 'h1', result: { resultType: 'complete' } })
    expect(await stream.next()).toBeUndefined()
  })

  it('gives its per-address slot back whichever way it ends', async () => {
    const server = defineServer({ name: 'slots', version: '1', tools: [] })
    const fetcher = createFetchHandler(server, { maxListenStreamsPerAddress: 2 })
    for (let round = 0; round < 3; round++) {
      const first = await openListen(fetcher, `a${round}`, { toolsListChanged: true })
      const second = await openListen(fetcher, `b${round}`, { toolsListChanged: true })
      await first.next()
      await second.next()
      const refused = await openListen(fetcher, `c${round}`, { toolsListChanged: true })
      expect(refused.status).toBe(429)
      expect((await refused.next())?.error).toMatchObject({
        message: expect.stringMatching(/listen streams/),
      })
      first.close()
      second.close()
      await until(() => server.listeners === 0)
    }
  })
})

describe('what an open listen stream holds', () => {
  it('holds no promise and no promise reaction, counted in heap snapshots of the listen bench server', async () => {
    const metaOf = meta()
    let opened = 0
    const { kinds, bytesPerStream } = await listenMemory(join(ROOT, 'bench', '.build', 'listen.js'), 100, {
      listenBody: (id: number) =>
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'subscriptions/listen',
          params: { _meta: metaOf, notifications: { toolsListChanged: true } },
        }),
      headers: (body: string) => ({
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': String(metaOf['io.modelcontextprotocol/protocolVersion']),
        'mcp-method': 'subscriptions/listen',
        'content-length': String(Buffer.byteLength(body)),
      }),
      // Ten streams per loopback address, within the per-address limit as shipped.
      address: () => {
        const n = Math.floor(opened++ / 10)
        return `127.6.${(n >> 8) & 255}.${n & 255}`
      },
    })
    // Bytes per stream by kind: one promise per stream would be 48 here, one reaction 48.
    const per = (kind: string): number => kinds.get(kind) ?? 0
    expect(per('object LaterResult')).toBeGreaterThan(36)
    expect(per('object Promise')).toBeLessThan(8)
    expect(per('hidden system / PromiseReaction')).toBeLessThan(8)
    expect(bytesPerStream).toBeGreaterThan(0)
  }, 120_000)
})
