/**
 * One 2025-era session spread over two server instances that share the requestState secret and a Redis
 * change bus: every HTTP request of the SDK v1 client goes to the other instance than the one before. The
 * elicitation answer, the log level, the subscription, a cancellation and DELETE all reach the instance that
 * needs them over the bus.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defineResource, defineServer, defineTool } from '../src/index.js'
import { RedisChangeBus, RedisSessionStore } from '../src/stores/redis/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { redisAvailable, requireRedis, type RedisProcess, startRedis } from './helpers/redis.js'

const run = redisAvailable || requireRedis

async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 15_000
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe.runIf(run)('a 2025-era session across two instances', () => {
  let redis: RedisProcess
  const buses: (RedisChangeBus | RedisSessionStore)[] = []
  const running: RunningServer[] = []
  const started: string[] = []
  const aborted: string[] = []

  const instance = async (name: string, shared = false): Promise<RunningServer> => {
    const changes = await RedisChangeBus.connect({ url: redis.url, channel: 'test:legacy' })
    buses.push(changes)
    const stateStore = shared ? await RedisSessionStore.connect({ url: redis.url }) : undefined
    if (stateStore) buses.push(stateStore)
    const server = defineServer({
      name,
      version: '1.0.0',
      changes,
      ...(stateStore && { legacy: { stateStore } }),
      requestState: { secret: 'shared-secret-of-the-deployment-0123' },
      tools: [
        defineTool({
          name: 'confirm',
          handler: async (_args, ctx) => {
            const answer = await ctx.input.elicit({
              message: 'Proceed?',
              requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
            })
            return `${name}: ${answer.action} ${JSON.stringify(answer.content)}`
          },
        }),
        defineTool({
          name: 'log',
          handler: (_args, ctx) => {
            ctx.log.debug(`debug from ${name}`)
            ctx.log.warning(`warning from ${name}`)
            server.resourceUpdated('test://thing')
            return name
          },
        }),
        defineTool({
          name: 'hang',
          handler: (_args, ctx) =>
            new Promise((_resolve, reject) => {
              started.push(name)
              ctx.signal.addEventListener('abort', () => {
                aborted.push(name)
                reject(new Error('cancelled'))
              })
              ctx.progress(0)
            }),
        }),
      ],
      resources: [defineResource({ uri: 'test://thing', name: 'thing', read: () => 'thing' })],
    })
    const serving = await serveNode(server, { host: '127.0.0.1', port: 0 })
    running.push(serving)
    return serving
  }

  beforeAll(async () => {
    redis = await startRedis()
  })
  afterAll(async () => {
    await Promise.all(running.map((server) => server.close()))
    await Promise.all(buses.map((bus) => bus.close()))
    await redis?.stop()
  })

  it('serves elicitation, log level, subscriptions, cancellation and DELETE with requests alternating', async () => {
    const [a, b] = [await instance('A'), await instance('B')]
    const origins = [new URL(a.url).origin, new URL(b.url).origin]
    let turn = 0
    const seen: string[] = []
    // A load balancer without affinity: each request goes to the other instance.
    const alternating = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const origin = origins[turn++ % 2] as string
      const url = new URL(input instanceof Request ? input.url : String(input))
      seen.push(`${init?.method ?? 'GET'} ${origin === origins[0] ? 'A' : 'B'}`)
      return fetch(`${origin}${url.pathname}`, init)
    }
    const client = new Client({ name: 'v1', version: '1.0.0' }, { capabilities: { elicitation: {} } })
    const notifications: { method: string; params?: unknown }[] = []
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { ok: true } }))
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void notifications.push(n))
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void notifications.push(n))
    const transport = new StreamableHTTPClientTransport(new URL(a.url), { fetch: alternating })
    await client.connect(transport)

    // Elicitation: the question goes out on one instance's stream; the answer POST lands on the other.
    const confirmed = await client.callTool({ name: 'confirm', arguments: {} })
    expect((confirmed.content as { text: string }[])[0]?.text).toMatch(/^[AB]: accept \{"ok":true\}$/)

    await client.setLoggingLevel('warning')
    await client.subscribeResource({ uri: 'test://thing' })
    await client.callTool({ name: 'log', arguments: {} })
    await client.callTool({ name: 'log', arguments: {} })
    const logs = () =>
      notifications
        .filter((n) => n.method === 'notifications/message')
        .map((n) => (n.params as { data?: unknown }).data)
    await until(() => logs().length === 2, 'two warnings')
    expect(new Set(logs())).toEqual(new Set(['warning from A', 'warning from B']))
    await until(() => notifications.some((n) => n.method === 'notifications/resources/updated'), 'an update')

    // Cancellation: notifications/cancelled reaches the instance running the call.
    const controller = new AbortController()
    const hanging = client.callTool({ name: 'hang', arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort('stop'),
    })
    await expect(hanging).rejects.toThrow()
    await until(() => aborted.length === 1, 'the handler to see the cancellation')
    expect(aborted).toEqual(started)

    const sessionId = transport.sessionId as string
    await transport.terminateSession()
    await client.close()
    // Ended on both instances (the other one hears it over Redis).
    for (const origin of origins) {
      const ping = async (): Promise<number> =>
        (
          await fetch(`${origin}/mcp`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'mcp-session-id': sessionId },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
          })
        ).status
      const end = Date.now() + 15_000
      let status = await ping()
      while (status !== 404 && Date.now() < end) status = await ping()
      expect(status).toBe(404)
    }
    expect(seen).toContain('POST A')
    expect(seen).toContain('POST B')
  })

  it('serves a session the same way on an instance started after its setLevel, subscribe and DELETE', async () => {
    const a = await instance('A', true)
    let target = new URL(a.url).origin
    // A load balancer that sends the session's requests wherever `target` says.
    const routed = (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
      fetch(`${target}${new URL(input instanceof Request ? input.url : String(input)).pathname}`, init)
    const client = new Client({ name: 'v1', version: '1.0.0' })
    const logs: string[] = []
    client.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (n) => void logs.push(String(n.params.data)),
    )
    const transport = new StreamableHTTPClientTransport(new URL(a.url), { fetch: routed })
    await client.connect(transport)
    const sessionId = transport.sessionId as string
    await client.setLoggingLevel('warning')
    await client.subscribeResource({ uri: 'test://thing' })

    // Started after both: without the store an instance never heard of the level and sends no log messages at
    // all (the gap the store closes; they would travel before the call's result); with it, the level set on A.
    const late = await instance('late', true)
    const unshared = await instance('unshared')
    target = new URL(unshared.url).origin
    await client.callTool({ name: 'log', arguments: {} })
    expect(logs.filter((log) => log.endsWith('from unshared'))).toEqual([])
    target = new URL(late.url).origin
    await client.callTool({ name: 'log', arguments: {} })
    await until(() => logs.includes('warning from late'), 'the late warning')
    expect(logs).not.toContain('debug from late')

    // The subscription made on A reaches a stream the session opens on the late instance.
    const stream = await fetch(`${target}/mcp`, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
    })
    expect(stream.status).toBe(200)
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader()
    let seen = ''
    const updated = (async () => {
      while (!seen.includes('notifications/resources/updated')) {
        const { done, value } = await reader.read()
        if (done) break
        seen += new TextDecoder().decode(value)
      }
    })()
    await until(() => seen.startsWith(':'), 'the stream to open')
    await client.callTool({ name: 'log', arguments: {} })
    await updated
    expect(seen).toContain('"uri":"test://thing"')
    await reader.cancel()

    // DELETE on A: an instance started afterwards refuses the id at once, as A does.
    target = new URL(a.url).origin
    await transport.terminateSession()
    await client.close()
    const after = await instance('after', true)
    const ping = async (url: string): Promise<number> =>
      (
        await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'mcp-session-id': sessionId },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        })
      ).status
    expect(await ping(after.url)).toBe(404)
    expect(await ping(a.url)).toBe(404)
  })
})
