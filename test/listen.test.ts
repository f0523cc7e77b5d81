import { describe, expect, it } from 'vitest'
import { createFetchHandler, defineServer, defineTool, type Server } from '../src/index.js'
import { createFixtureServer } from './fixtures/conformance/server.js'
import { errorOf, post, resultOf } from './helpers/http.js'
import { openListen, type OpenStream } from './helpers/sse-stream.js'
import { until } from './helpers/wait.js'

const SUB = 'io.modelcontextprotocol/subscriptionId'
const subId = (message: Record<string, unknown> | undefined) =>
  ((message?.params as { _meta?: Record<string, unknown> } | undefined)?._meta ?? {})[SUB]

function setup(server: Server = createFixtureServer(), keepAliveMs?: number) {
  return { server, fetcher: createFetchHandler(server, keepAliveMs === undefined ? {} : { keepAliveMs }) }
}

/**
 * Nothing else arrives before the end: a graceful close sends every stream its closing result, so whatever
 * the server sent a stream before is queued ahead of that result (a barrier instead of a wait).
 */
async function expectOnlyTheEnd(server: Server, streams: readonly OpenStream[]): Promise<void> {
  await server.close()
  for (const stream of streams) {
    expect(await stream.next()).toHaveProperty('result')
    expect(await stream.next()).toBeUndefined()
  }
}

describe('subscriptions/listen over HTTP', () => {
  it('acknowledges first with the honoured filter, tagged with the request id of the same type', async () => {
    const { fetcher, server } = setup()
    const numeric = await openListen(fetcher, 7, { toolsListChanged: true, promptsListChanged: false })
    expect(numeric.status).toBe(200)
    const ack = await numeric.next()
    expect(ack).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true } },
    })
    expect(subId(ack)).toBe(7)
    const named = await openListen(fetcher, 'seven', { resourceSubscriptions: ['test://watched-resource'] })
    expect(subId(await named.next())).toBe('seven')
    await until(() => server.listeners === 2)
    numeric.close()
    named.close()
    await until(() => server.listeners === 0)
  })

  it('leaves out what the server does not offer', async () => {
    const { fetcher } = setup(defineServer({ name: 'tools-only', version: '1', tools: [] }))
    const stream = await openListen(fetcher, 1, {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: ['x://y'],
    })
    expect((await stream.next())?.params).toMatchObject({ notifications: { toolsListChanged: true } })
    stream.close()
  })

  it('delivers only the requested notification types, each tagged', async () => {
    const { fetcher, server } = setup()
    const tools = await openListen(fetcher, 'tools', { toolsListChanged: true })
    const prompts = await openListen(fetcher, 'prompts', { promptsListChanged: true })
    const watched = await openListen(fetcher, 'watched', {
      resourceSubscriptions: ['test://watched-resource'],
    })
    for (const stream of [tools, prompts, watched]) await stream.next()
    await post(fetcher, 'tools/call', { name: 'test_trigger_tool_change', arguments: {} })
    await post(fetcher, 'tools/call', { name: 'test_trigger_prompt_change', arguments: {} })
    await post(fetcher, 'tools/call', { name: 'test_trigger_resource_update', arguments: {} })
    const toolEvent = await tools.next()
    expect(toolEvent?.method).toBe('notifications/tools/list_changed')
    expect(subId(toolEvent)).toBe('tools')
    const promptEvent = await prompts.next()
    expect(promptEvent?.method).toBe('notifications/prompts/list_changed')
    expect(subId(promptEvent)).toBe('prompts')
    const updated = await watched.next()
    expect(updated).toMatchObject({
      method: 'notifications/resources/updated',
      params: { uri: 'test://watched-resource' },
    })
    expect(subId(updated)).toBe('watched')
    // Nothing else arrives on any of them (in particular no progress or log messages).
    await expectOnlyTheEnd(server, [tools, prompts, watched])
  })

  it('publishes runtime tool changes by itself', async () => {
    const { fetcher, server } = setup(defineServer({ name: 's', version: '1', tools: [] }))
    const stream = await openListen(fetcher, 1, { toolsListChanged: true })
    await stream.next()
    server.tools.add(defineTool({ name: 'late', handler: () => 'hi' }))
    server.tools.disable('late')
    server.tools.enable('late')
    server.tools.remove('late')
    for (let i = 0; i < 4; i++) expect((await stream.next())?.method).toBe('notifications/tools/list_changed')
    stream.close()
  })

  it('rejects a malformed filter with -32602', async () => {
    const { fetcher } = setup()
    for (const notifications of [
      undefined,
      'all',
      { toolsListChanged: 'yes' },
      { resourceSubscriptions: [1] },
    ]) {
      const answer = await post(
        fetcher,
        'subscriptions/listen',
        notifications === undefined ? {} : { notifications },
      )
      expect(errorOf(answer).code).toBe(-32602)
    }
  })

  it('keeps one change exactly once per listener across 100 concurrent listeners', async () => {
    const server = createFixtureServer()
    // One fetcher without clientAddress is one caller: it needs the allowance for 100 streams.
    const fetcher = createFetchHandler(server, { maxListenStreamsPerAddress: 100 })
    const streams = await Promise.all(
      Array.from({ length: 100 }, (_, i) => openListen(fetcher, `l${i}`, { toolsListChanged: true })),
    )
    await Promise.all(streams.map((stream) => stream.next()))
    expect(server.listeners).toBe(100)
    await post(fetcher, 'tools/call', { name: 'test_trigger_tool_change', arguments: {} })
    const events = await Promise.all(streams.map((stream) => stream.next()))
    events.forEach((event, i) => {
      expect(event?.method).toBe('notifications/tools/list_changed')
      expect(subId(event)).toBe(`l${i}`)
    })
    await expectOnlyTheEnd(server, streams)
    await until(() => server.listeners === 0)
  })

  it('tags each change as its acknowledgment was tagged, however the id is spelt or guarded', async () => {
    // A change is serialised once for every stream and each stream's id set into it; a stream whose tag
    // the output guard changes (here a secret in the id) is sent through the guard instead. Either way the
    // change carries exactly the tag its acknowledgment carried.
    const secret = 'bench-secret-0123456789abcdef'
    const server = defineServer({ name: 's', version: '1', tools: [], security: { secrets: [secret] } })
    const fetcher = createFetchHandler(server, { maxListenStreamsPerAddress: 10 })
    const ids = [
      0,
      -7,
      12345678901,
      'plain',
      'quote " back \\ slash',
      'tab\tand\u2028line ✓',
      'escape \u001b[31m red',
      `has ${secret}`,
    ]
    const streams = await Promise.all(ids.map((id) => openListen(fetcher, id, { toolsListChanged: true })))
    const acks = await Promise.all(streams.map((stream) => stream.next()))
    // The guard changed these two tags: a terminal escape, a secret.
    expect(subId(acks[6])).toBe('escape  red')
    expect(subId(acks[7])).toBe('has [redacted]')
    server.tools.add(defineTool({ name: 'late', handler: () => 'hi' }))
    const changes = await Promise.all(streams.map((stream) => stream.next()))
    changes.forEach((change, i) => {
      expect(change).toEqual({
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: (acks[i]?.params as { _meta: unknown })._meta },
      })
      if (i < 6) expect(subId(change)).toBe(ids[i])
    })
    await expectOnlyTheEnd(server, streams)
  })

  it('survives listeners that disconnect mid-stream', async () => {
    const { fetcher, server } = setup()
    const leaving = await openListen(fetcher, 'leaving', { toolsListChanged: true })
    const staying = await openListen(fetcher, 'staying', { toolsListChanged: true })
    await leaving.next()
    await staying.next()
    leaving.close()
    await until(() => server.listeners === 1)
    await post(fetcher, 'tools/call', { name: 'test_trigger_tool_change', arguments: {} })
    expect(subId(await staying.next())).toBe('staying')
    staying.close()
  })

  it('closes a listener that cannot keep up without holding up the others', async () => {
    const server = defineServer({ name: 's', version: '1', tools: [], listen: { maxBacklogBytes: 2_000 } })
    const { fetcher } = setup(server)
    const slow = await openListen(fetcher, 'slow', { toolsListChanged: true }, { read: false })
    const fast = await openListen(fetcher, 'fast', { toolsListChanged: true })
    await fast.next()
    await until(() => server.listeners === 2)
    // The fast reader takes each change before the next; the slow one never reads, so its backlog passes
    // the bound.
    for (let i = 0; i < 200; i++) {
      server.changes.publish({ type: 'tools/list_changed' })
      expect(subId(await fast.next())).toBe('fast')
    }
    await until(() => server.listeners === 1)
    fast.close()
    slow.close()
  })

  it('sends keep-alive comments on an idle stream', async () => {
    const { fetcher } = setup(undefined, 10)
    const stream = await openListen(fetcher, 1, { toolsListChanged: true })
    await stream.next()
    await until(() => stream.comments.length >= 2)
    stream.close()
  })

  it('ends every stream with its graceful result on server.close()', async () => {
    const { fetcher, server } = setup()
    const streams = await Promise.all(
      [1, 'two'].map((id) => openListen(fetcher, id, { toolsListChanged: true })),
    )
    await Promise.all(streams.map((stream) => stream.next()))
    await server.close()
    const results = await Promise.all(streams.map((stream) => stream.next()))
    expect(results[0]).toMatchObject({ id: 1, result: { resultType: 'complete', _meta: { [SUB]: 1 } } })
    expect(results[1]).toMatchObject({
      id: 'two',
      result: { resultType: 'complete', _meta: { [SUB]: 'two' } },
    })
    await Promise.all(streams.map((stream) => stream.ended))
    // A listen opened after close is acknowledged and closed at once.
    const late = await openListen(fetcher, 3, { toolsListChanged: true })
    expect((await late.next())?.method).toBe('notifications/subscriptions/acknowledged')
    expect(resultOf({ response: await late.next() } as never)._meta).toMatchObject({ [SUB]: 3 })
  })
})

describe('subscriptions/listen over node:http', () => {
  it('ends cleanly when the client closes, and gracefully when the server closes', async () => {
    const { serveNode } = await import('../src/transports/http/node.js')
    const errors: string[] = []
    const logger = { error: (message: string) => void errors.push(message), warn: () => {} }
    const server = defineServer({ name: 's', version: '1', tools: [], logger })
    const running = await serveNode(server, { port: 0 })
    const fetcher = async (request: Request) =>
      fetch(running.url, {
        method: request.method,
        headers: request.headers,
        body: await request.text(),
        signal: request.signal,
      })
    const leaving = await openListen(fetcher, 'leaving', { toolsListChanged: true })
    const staying = await openListen(fetcher, 'staying', { toolsListChanged: true })
    await leaving.next()
    await staying.next()
    leaving.close()
    await until(() => server.listeners === 1)
    server.tools.add(defineTool({ name: 'added', handler: () => 'ok' }))
    expect(subId(await staying.next())).toBe('staying')
    await running.close()
    expect(await staying.next()).toMatchObject({ id: 'staying', result: { _meta: { [SUB]: 'staying' } } })
    await staying.ended
    expect(errors).toEqual([])
  })
})
