/**
 * The client's default HTTP stack on Node (node:http with a keep-alive pool), on real loopback sockets:
 * connections are reused, an abort cuts a request and a stream, an oversized answer is refused, a server that
 * hangs up mid-answer gives a clear error, redirects keep credentials on their origin, and an injected `fetch`
 * still replaces the stack.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { connect, HttpTransport, RequestCancelledError, TransportError } from '../src/client/index.js'
import type { JsonRpcRequest } from '../src/wire/jsonrpc.js'
import { serveNode, type RunningServer } from '../src/transports/http/node.js'
import { createToolwireTestServer } from './fixtures/toolwire-server.js'

describe('against a toolwire server', () => {
  let running: RunningServer
  const events = { aborted: [] as string[], started: [] as string[] }
  let connections = 0
  let open = 0
  beforeAll(async () => {
    running = await serveNode(createToolwireTestServer(events), { port: 0 })
    running.httpServer.on('connection', (socket) => {
      connections++
      open++
      socket.once('close', () => open--)
    })
  })
  afterAll(() => running.close())

  it('reuses one kept-alive connection for sequential calls, and close() releases it', async () => {
    const before = connections
    const client = connect({ url: running.url })
    await client.listTools()
    for (let index = 0; index < 20; index++) {
      const result = await client.callTool('where', { region: `r${index}` })
      expect(result.structuredContent).toEqual({ region: `r${index}`, note: '' })
    }
    expect(connections - before).toBe(1)
    await client.close()
    await expect.poll(() => open, { timeout: 10_000 }).toBe(0)
  })

  it('sends nothing once closed, so no new connection outlives the client', async () => {
    const transport = new HttpTransport({ url: running.url })
    const before = connections
    await transport.close()
    // An answer to a server request that settles after close (a cancelled sampling command) is refused.
    const late = { jsonrpc: '2.0' as const, id: 7, error: { code: -32603, message: 'cancelled' } }
    await expect(transport.send(late)).rejects.toThrow(TransportError)
    await expect(transport.send(late)).rejects.toThrow(/the client is closed/)
    expect(connections).toBe(before)
  })

  it('opens one connection per call in flight, no more', async () => {
    const before = connections
    const client = connect({ url: running.url })
    await client.listTools()
    const calls = Array.from({ length: 8 }, (_, index) => client.callTool('where', { region: `p${index}` }))
    expect((await Promise.all(calls)).map((result) => result.structuredContent)).toEqual(
      Array.from({ length: 8 }, (_, index) => ({ region: `p${index}`, note: '' })),
    )
    expect(connections - before).toBeLessThanOrEqual(8)
    await client.close()
  })

  it('cancels a call waiting for its answer by closing the request', async () => {
    const client = connect({ url: running.url })
    const controller = new AbortController()
    const call = client.callTool('slow', {}, { signal: controller.signal })
    await expect.poll(() => events.started, { timeout: 10_000 }).toContain('slow')
    controller.abort()
    await expect(call).rejects.toBeInstanceOf(RequestCancelledError)
    await expect.poll(() => events.aborted, { timeout: 10_000 }).toContain('slow')
    await client.close()
  })

  it('cancels a call in the middle of its SSE stream', async () => {
    const client = connect({ url: running.url })
    const controller = new AbortController()
    const progress: number[] = []
    const call = client.callTool(
      'count',
      { n: 20, delayMs: 1000 },
      {
        signal: controller.signal,
        onProgress: (update) => {
          progress.push(update.progress)
          controller.abort()
        },
      },
    )
    await expect(call).rejects.toBeInstanceOf(RequestCancelledError)
    expect(progress).toEqual([1])
    await client.close()
    await expect.poll(() => open, { timeout: 10_000 }).toBe(0)
  })

  it('uses an injected fetch instead of node:http', async () => {
    const seen: string[] = []
    const client = connect({
      url: running.url,
      fetch: (request) => {
        seen.push(request.headers.get('mcp-method') ?? '')
        return fetch(request)
      },
    })
    expect((await client.callTool('where', { region: 'eu' })).structuredContent).toEqual({
      region: 'eu',
      note: '',
    })
    expect(seen).toEqual(['tools/list', 'tools/call'])
    await client.close()
  })
})

/** A plain node:http server on a free loopback port, answering with `handler`. */
async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const server = createServer(handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}

const urlOf = (server: Server): string => `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
const LIST: JsonRpcRequest = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }
const ANSWER = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: [] } })

describe('against hostile or unusual servers', () => {
  const servers: Server[] = []
  const serve = async (handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> => {
    const server = await listen(handler)
    servers.push(server)
    return urlOf(server)
  }
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('refuses an answer larger than maxResponseBytes, declared or streamed', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { pad: 'x'.repeat(200_000) } })
    const declared = await serve((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(big),
    )
    const streamed = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      for (let offset = 0; offset < big.length; offset += 10_000)
        res.write(big.slice(offset, offset + 10_000))
      res.end()
    })
    for (const url of [declared, streamed]) {
      const transport = new HttpTransport({ url, maxResponseBytes: 100_000 })
      await expect(transport.request(LIST)).rejects.toThrow(/larger than 100000 bytes/)
      await transport.close()
    }
  })

  it('refuses an SSE event larger than maxResponseBytes', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end(`data: ${'x'.repeat(200_000)}\n\n`)
    })
    const transport = new HttpTransport({ url, maxResponseBytes: 100_000 })
    await expect(transport.request(LIST)).rejects.toThrow(/refused/)
    await transport.close()
  })

  it('says so when the server hangs up in the middle of a JSON answer', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(ANSWER.length) })
      res.write(ANSWER.slice(0, 10), () => res.destroy())
    })
    const transport = new HttpTransport({ url })
    const error = await transport.request(LIST).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(TransportError)
    expect((error as Error).message).toMatch(/closed the connection before the answer was complete/)
    await transport.close()
  })

  it('says so when the server hangs up in the middle of an SSE stream', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(': opening\n\n', () => res.destroy())
    })
    const transport = new HttpTransport({ url })
    await expect(transport.request(LIST)).rejects.toThrow(
      /closed the connection before the answer was complete/,
    )
    await transport.close()
  })

  it('reads response headers whatever their case, and a repeated one as node combines it', async () => {
    const event = `event: message\ndata: ${ANSWER}\n\n`
    const upper = await serve((_req, res) =>
      res.writeHead(200, ['CONTENT-TYPE', 'text/event-stream']).end(event),
    )
    // node keeps the first of two Content-Type lines
    const repeated = await serve((_req, res) =>
      res
        .writeHead(200, ['Content-Type', 'application/json', 'content-type', 'text/event-stream'])
        .end(ANSWER),
    )
    for (const url of [upper, repeated]) {
      const transport = new HttpTransport({ url })
      expect(await transport.request(LIST)).toEqual(JSON.parse(ANSWER))
      await transport.close()
    }
  })

  it('follows a redirect on the same origin with every header', async () => {
    const seen: (string | undefined)[] = []
    const url = await serve((req, res) => {
      if (req.url === '/mcp') return res.writeHead(307, { location: '/moved' }).end()
      seen.push(req.headers.authorization)
      res.writeHead(200, { 'content-type': 'application/json' }).end(ANSWER)
    })
    const transport = new HttpTransport({ url, headers: { Authorization: 'Bearer secret' } })
    expect(await transport.request(LIST)).toEqual(JSON.parse(ANSWER))
    expect(seen).toEqual(['Bearer secret'])
    await transport.close()
  })

  it('sends no credentials after a redirect to another origin', async () => {
    const seen: Record<string, string | string[] | undefined>[] = []
    const other = await serve((req, res) => {
      seen.push(req.headers)
      res.writeHead(200, { 'content-type': 'application/json' }).end(ANSWER)
    })
    const url = await serve((_req, res) => res.writeHead(307, { location: other }).end())
    const transport = new HttpTransport({
      url,
      headers: { Authorization: 'Bearer secret', 'X-Api-Key': 'key', Cookie: 'c=1' },
    })
    expect(await transport.request(LIST)).toEqual(JSON.parse(ANSWER))
    expect(seen).toHaveLength(1)
    expect(seen[0]).not.toHaveProperty('authorization')
    expect(seen[0]).not.toHaveProperty('x-api-key')
    expect(seen[0]).not.toHaveProperty('cookie')
    expect(seen[0]?.['mcp-method']).toBe('tools/list')
    await transport.close()
  })
})
