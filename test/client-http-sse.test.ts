/**
 * The HTTP+SSE transport of 2024-11-05 against the official SDK v1 server's `SSEServerTransport` on express:
 * POST to `/sse` fails with 4xx, so the client GETs it, takes the `endpoint` event and speaks that transport
 * (2025-03-26 basic/transports §Backwards Compatibility), in the library and in the CLI. A URL that serves
 * neither transport is reported in one line, never with the page it answered; an endpoint on another origin,
 * an oversized event and a stream that never names its endpoint are refused.
 */
import { execFile } from 'node:child_process'
import { createServer, type Server as HttpServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, type Client, type HttpTransport, TransportError } from '../src/client/index.js'
import { startSdkV1Sse, type RunningSdkV1Sse } from './fixtures/sdk-v1-sse-server.mjs'
import { CLI, ROOT } from './helpers/paths.js'

const run = promisify(execFile)
const text = (result: { content: unknown[] }): string => (result.content[0] as { text: string }).text

let server: RunningSdkV1Sse
beforeAll(async () => {
  server = await startSdkV1Sse()
})
afterAll(() => server?.close())

describe('the library against an SDK v1 HTTP+SSE server', () => {
  let client: Client
  beforeAll(() => {
    client = connect(
      { url: server.url },
      {
        warn: () => undefined,
        handlers: { elicitation: () => ({ action: 'accept', content: { name: 'Ada' } }) },
      },
    )
  })
  afterAll(() => client?.close())

  it('lists and calls tools through the endpoint the stream names', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['add', 'steps', 'ask_name']))
    const result = await client.callTool('add', { a: 2, b: 3 })
    expect(result.structuredContent).toEqual({ sum: 5 })
    expect(client.legacy).toBe(true)
    expect(client.protocolVersion).toBe('2025-11-25')
    expect(server.posted.slice(0, 2)).toEqual(['initialize', 'notifications/initialized'])
  })

  it('routes progress to its call, and answers the server’s own requests on the stream', async () => {
    const progress: number[] = []
    const steps = await client.callTool(
      'steps',
      {},
      { onProgress: (update) => progress.push(update.progress) },
    )
    expect(text(steps)).toBe('three steps done')
    expect(progress).toEqual([1, 2, 3])
    expect(text(await client.callTool('ask_name', {}))).toBe('Hello, Ada!')
  })

  it('tells the server about a cancelled call', async () => {
    const before = Number(text(await client.callTool('cancelled_count')))
    const controller = new AbortController()
    const call = client.callTool(
      'slow',
      {},
      { signal: controller.signal, onProgress: () => controller.abort() },
    )
    await expect(call).rejects.toThrow()
    await expect
      .poll(async () => Number(text(await client.callTool('cancelled_count'))), { timeout: 10_000 })
      .toBe(before + 1)
  })

  it('a stream the server ended is replaced by a new one, with a new session, for the next call', async () => {
    await client.listTools()
    const initialized = server.posted.filter((method) => method === 'initialize').length
    await server.endStreams()
    // A call in flight when the stream ends fails (its answer is lost); the next one finds the stream over.
    await expect
      .poll(() => (client.transport as HttpTransport).oldSseChannel?.ended, { timeout: 10_000 })
      .toBe(true)
    const result = await client.callTool('add', { a: 4, b: 4 })
    expect(result.structuredContent).toEqual({ sum: 8 })
    expect(server.posted.filter((method) => method === 'initialize')).toHaveLength(initialized + 1)
    expect(server.transports.size).toBe(1)
  })

  it('closing the client closes its stream', async () => {
    const other = connect({ url: server.url }, { warn: () => undefined })
    await other.listTools()
    const open = server.transports.size
    await other.close()
    await expect.poll(() => server.transports.size, { timeout: 10_000 }).toBe(open - 1)
  })
})

/** A server for the hostile cases: `GET /sse` is answered by `stream`, every POST with express-style 404 HTML. */
async function startHostile(
  stream: (res: ServerResponse) => void,
): Promise<{ url: string; http: HttpServer }> {
  const http = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      stream(res)
      return
    }
    req.resume()
    res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' })
    res.end(`<!DOCTYPE html>\n<html><body><pre>Cannot POST ${req.url}</pre></body></html>`)
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/sse`, http }
}

async function stop(http: HttpServer): Promise<void> {
  http.closeAllConnections()
  await new Promise<void>((resolve) => http.close(() => resolve()))
}

describe('what the client refuses', () => {
  it('a 404 HTML page: one line that says what went wrong, without the HTML', async () => {
    const client = connect({ url: `${server.base}/missing` }, { warn: () => undefined })
    const failure = await client.listTools().then(
      () => undefined,
      (error: unknown) => error,
    )
    await client.close()
    expect(failure).toBeInstanceOf(TransportError)
    const message = (failure as Error).message
    expect(message).not.toContain('\n')
    expect(message).not.toMatch(/<|DOCTYPE|Cannot POST/)
    expect(message).toMatch(/is not an MCP endpoint: POST answered HTTP 404 and GET answered HTTP 404/)
    expect(message).toMatch(/check the URL/)
  })

  it('an endpoint on another origin', async () => {
    const hostile = await startHostile((res) =>
      res.write('event: endpoint\ndata: http://evil.example/messages\n\n'),
    )
    const client = connect({ url: hostile.url }, { warn: () => undefined })
    await expect(client.listTools()).rejects.toThrow(
      /the endpoint http:\/\/evil\.example is not on the stream's origin http:\/\/127\.0\.0\.1:\d+/,
    )
    await client.close()
    await stop(hostile.http)
  })

  it('a first event larger than maxResponseBytes', async () => {
    const hostile = await startHostile((res) => res.write(`event: endpoint\ndata: /${'m'.repeat(8192)}\n\n`))
    const client = connect({ url: hostile.url, maxResponseBytes: 1024 }, { warn: () => undefined })
    await expect(client.listTools()).rejects.toThrow(/event stream was refused: an event exceeds 1024 bytes/)
    await client.close()
    await stop(hostile.http)
  })

  it('a stream that never names its endpoint, within discoverTimeoutMs', async () => {
    const hostile = await startHostile((res) => res.write(': still here\n\n'))
    const client = connect({ url: hostile.url }, { warn: () => undefined, discoverTimeoutMs: 300 })
    await expect(client.listTools()).rejects.toThrow(/sent no endpoint event within 300 ms/)
    await client.close()
    await stop(hostile.http)
  })
})

describe('the CLI against an SDK v1 HTTP+SSE server', () => {
  const toolwire = (...args: string[]): Promise<{ stdout: string; stderr: string }> =>
    run(process.execPath, [CLI, ...args], { timeout: 60_000, cwd: ROOT })

  it('toolwire list <url>/sse', async () => {
    const { stdout } = await toolwire('list', server.url)
    expect(stdout).toContain('add')
    expect(stdout).toContain('args: a: number, b: number')
  })

  it('toolwire call <url>/sse add a=2 b=3', async () => {
    const { stdout } = await toolwire('call', server.url, 'add', 'a=2', 'b=3', '--yes', '--json')
    expect(JSON.parse(stdout)).toMatchObject({ structuredContent: { sum: 5 } })
  })

  it('a wrong path is one line on stderr, exit status 2', async () => {
    const failure = await toolwire('list', `${server.base}/missing`).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    )
    expect(failure?.code).toBe(2)
    const lines = failure?.stderr.trim().split('\n') ?? []
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^toolwire: .*\/missing is not an MCP endpoint: POST answered HTTP 404/)
    expect(lines[0]).not.toMatch(/<|DOCTYPE/)
  })
})
