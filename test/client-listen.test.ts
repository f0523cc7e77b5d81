/**
 * subscriptions/listen against a toolwire server whose listen method is written with the Feature mechanism:
 * the acknowledgement, a tools/list_changed that drops the cached tool list, the server's graceful end, and
 * cancellation by the client (the server sees its stream closed).
 */
import { describe, expect, it } from 'vitest'
import { connect } from '../src/client/index.js'
import { createFetchHandler, defineServer, defineTool, type RequestContext } from '../src/index.js'
import { recordingFetch } from './helpers/recording-fetch.js'
import { methodNotFound } from '../src/wire/errors.js'

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId'

function listenServer(log: string[]) {
  let version = 1
  const listen = async (ctx: RequestContext) => {
    const meta = { [SUBSCRIPTION_ID]: ctx.id }
    const filter = ctx.params.notifications as Record<string, unknown>
    ctx.exchange.notify({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: meta, notifications: { toolsListChanged: filter.toolsListChanged === true } },
    })
    // A change happens a little later; then the server either ends the stream or waits for the client.
    await new Promise((resolve) => setTimeout(resolve, 20))
    version++
    ctx.exchange.notify({
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: meta },
    })
    if ((filter.resourceSubscriptions as string[] | undefined)?.includes('test://end-soon'))
      return { resultType: 'complete', _meta: meta }
    await new Promise<void>((resolve) =>
      ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
    )
    log.push('stream closed by the client')
    return { resultType: 'complete', _meta: meta }
  }
  return defineServer({
    name: 'listen',
    version: '1.0.0',
    features: [
      {
        methods: {
          'tools/list': {
            handler: () => ({
              resultType: 'complete',
              tools: [{ name: `tool_v${version}`, inputSchema: { type: 'object' } }],
              ttlMs: 60_000,
              cacheScope: 'public',
            }),
          },
          'subscriptions/listen': { handler: listen },
        },
      },
    ],
  })
}

describe('subscriptions/listen', () => {
  it('acknowledges, drops the cached tool list on list_changed, and closes on request', async () => {
    const log: string[] = []
    const recorder = recordingFetch(createFetchHandler(listenServer(log)))
    const client = connect({ url: 'http://127.0.0.1/mcp', fetch: recorder.fetch })
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['tool_v1'])
    expect((await client.listTools()).cached).toBe(true)
    let changed!: () => void
    const arrived = new Promise<void>((resolve) => (changed = resolve))
    const sub = await client.subscribe({ toolsListChanged: true }, { onNotification: () => changed() })
    expect(sub.acknowledged).toEqual({ toolsListChanged: true })
    await arrived
    const after = await client.listTools()
    expect(after.cached).toBe(false)
    expect(after.tools.map((t) => t.name)).toEqual(['tool_v2'])
    await sub.close()
    expect(await sub.ended).toEqual({ reason: 'closed' })
    await expect.poll(() => log).toEqual(['stream closed by the client'])
    expect(recorder.problems).toEqual([])
  })

  it('reports the server ending the subscription gracefully', async () => {
    const client = connect({ url: 'http://127.0.0.1/mcp', fetch: createFetchHandler(listenServer([])) })
    const sub = await client.subscribe({ toolsListChanged: true, resourceSubscriptions: ['test://end-soon'] })
    expect(await sub.ended).toEqual({ reason: 'server-ended' })
  })

  it('rejects when the server has no subscriptions/listen', async () => {
    const server = defineServer({
      name: 'plain',
      version: '1.0.0',
      features: [
        {
          methods: {
            'subscriptions/listen': { handler: () => Promise.reject(methodNotFound('subscriptions/listen')) },
          },
        },
      ],
    })
    const client = connect({ url: 'http://127.0.0.1/mcp', fetch: createFetchHandler(server) })
    await expect(client.subscribe({ toolsListChanged: true })).rejects.toMatchObject({
      name: 'McpError',
      code: -32601,
    })
  })
})

describe('subscriptions/listen against the built-in listen hub', () => {
  it('sees a runtime tool change, refetches the list, and ends when the server closes', async () => {
    const server = defineServer({
      name: 'hub',
      version: '1.0.0',
      tools: [defineTool({ name: 'first', handler: () => 'one' })],
    })
    const client = connect({ url: 'http://127.0.0.1/mcp', fetch: createFetchHandler(server) })
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['first'])
    let changed!: () => void
    const arrived = new Promise<void>((resolve) => (changed = resolve))
    const sub = await client.subscribe({ toolsListChanged: true }, { onNotification: () => changed() })
    expect(sub.acknowledged).toEqual({ toolsListChanged: true })
    server.tools.add(defineTool({ name: 'second', handler: () => 'two' }))
    await arrived
    const after = await client.listTools()
    expect([after.cached, after.tools.map((t) => t.name)]).toEqual([false, ['first', 'second']])
    await server.close()
    expect(await sub.ended).toEqual({ reason: 'server-ended' })
  })
})

describe('automatic refresh on tools/list_changed', () => {
  it('refetches once per burst of changes and hands the fresh list over', async () => {
    const server = defineServer({
      name: 'burst',
      version: '1.0.0',
      tools: [defineTool({ name: 't0', handler: () => '' })],
    })
    let listCalls = 0
    const fetcher = createFetchHandler(server)
    const counting = (request: Request): Promise<Response> => {
      if (request.headers.get('mcp-method') === 'tools/list') listCalls++
      return fetcher(request)
    }
    const client = connect({ url: 'http://127.0.0.1/mcp', fetch: counting })
    const seen: string[][] = []
    const sub = await client.subscribe(
      { toolsListChanged: true },
      { onToolsChanged: (tools) => seen.push(tools.map((t) => t.name)), refreshDebounceMs: 50 },
    )
    for (let i = 1; i <= 5; i++) server.tools.add(defineTool({ name: `t${i}`, handler: () => '' }))
    await expect.poll(() => seen.length).toBe(1)
    expect(seen[0]).toEqual(['t0', 't1', 't2', 't3', 't4', 't5'])
    expect(listCalls).toBe(1)
    await sub.close()
  })
})
