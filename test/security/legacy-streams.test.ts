/**
 * 2025-era GET streams are listen streams: they count against `maxListenStreamsPerAddress` together with
 * `subscriptions/listen` streams, on every adapter (`serveNode`, `createNodeHandler`, `createFetchHandler`),
 * and a closed stream gives its slot back.
 */
import { createServer, type Server as NodeServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createFetchHandler, defineServer, defineTool, type Server } from '../../src/index.js'
import { createNodeHandler, serveNode } from '../../src/transports/http/node.js'
import { meta } from '../helpers/http.js'
import { until } from '../helpers/wait.js'

const MAX = 3
const ATTEMPTS = 12

const makeServer = (): Server =>
  defineServer({
    name: 'legacy-streams',
    version: '1.0.0',
    requestState: { secret: 'legacy-streams-secret-0123456789' },
    security: { rateLimit: false, secretsFromEnv: false },
    tools: [defineTool({ name: 'echo', handler: () => 'hi' })],
  })

type Fetcher = (request: Request) => Promise<Response>

interface Target {
  readonly url: string
  readonly fetcher: Fetcher
  close(): Promise<void>
}

const adapters: Record<string, () => Promise<Target>> = {
  serveNode: async () => {
    const running = await serveNode(makeServer(), { port: 0, maxListenStreamsPerAddress: MAX })
    return { url: running.url, fetcher: (request) => fetch(request), close: () => running.close() }
  },
  createNodeHandler: async () => {
    const http: NodeServer = createServer(
      createNodeHandler(makeServer(), { maxListenStreamsPerAddress: MAX }),
    )
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    const { port } = http.address() as AddressInfo
    return {
      url: `http://127.0.0.1:${port}/mcp`,
      fetcher: (request) => fetch(request),
      close: () =>
        new Promise<void>((resolve) => {
          http.close(() => resolve())
          http.closeAllConnections()
        }),
    }
  },
  createFetchHandler: async () => {
    const handler = createFetchHandler(makeServer(), {
      maxListenStreamsPerAddress: MAX,
      clientAddress: () => '198.51.100.7',
    })
    return { url: 'http://127.0.0.1/mcp', fetcher: handler, close: async () => {} }
  },
  'createFetchHandler without clientAddress': async () => {
    const server = makeServer()
    server.logger.warn = () => {}
    const handler = createFetchHandler(server, { maxListenStreamsPerAddress: MAX })
    return { url: 'http://127.0.0.1/mcp', fetcher: handler, close: async () => {} }
  },
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

async function initialize(target: Target): Promise<string> {
  const response = await target.fetcher(
    new Request(target.url, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    }),
  )
  await response.text()
  return response.headers.get('mcp-session-id') as string
}

interface Opened {
  readonly status: number
  readonly body: string
  close(): void
}

async function openGet(target: Target, sid: string): Promise<Opened> {
  const abort = new AbortController()
  const response = await target.fetcher(
    new Request(target.url, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': sid },
      signal: abort.signal,
    }),
  )
  const body = response.status === 200 ? '' : await response.text()
  return {
    status: response.status,
    body,
    close: () => {
      abort.abort()
      void response.body?.cancel().catch(() => {})
    },
  }
}

async function openListen(target: Target): Promise<Opened> {
  const abort = new AbortController()
  const response = await target.fetcher(
    new Request(target.url, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-method': 'subscriptions/listen', 'mcp-protocol-version': '2026-07-28' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true }, _meta: meta() },
      }),
      signal: abort.signal,
    }),
  )
  const body = response.status === 200 ? '' : await response.text()
  return { status: response.status, body, close: () => abort.abort() }
}

describe.each(Object.keys(adapters))('2025-era GET streams on %s', (name) => {
  let target: Target | undefined
  const opened: Opened[] = []
  afterEach(async () => {
    for (const stream of opened.splice(0)) stream.close()
    await target?.close()
    target = undefined
  })

  it(`hold at most maxListenStreamsPerAddress (${MAX}) open, shared with listen streams`, async () => {
    target = await (adapters[name] as () => Promise<Target>)()
    const sid = await initialize(target)
    for (let i = 0; i < ATTEMPTS; i++) opened.push(await openGet(target, sid))
    const statuses = opened.map((stream) => stream.status)
    // Before the bound, all 12 opened wherever the adapter was not serveNode's connection limit.
    expect(statuses.filter((status) => status === 200)).toHaveLength(MAX)
    expect(statuses.slice(MAX).every((status) => status === 429)).toBe(true)
    expect(opened.at(-1)?.body).toMatch(/more than 3 listen streams/)
    // A subscriptions/listen stream takes from the same allowance.
    const listen = await openListen(target)
    opened.push(listen)
    expect(listen.status).toBe(429)
    // A stream that ends gives its slot back.
    opened[0]?.close()
    let again: Opened | undefined
    await until(
      async () => {
        again = await openGet(target as Target, sid)
        opened.push(again)
        return again.status === 200
      },
      10_000,
      'a slot to come back',
    )
    expect(again?.status).toBe(200)
  })
})
