/**
 * Connection limits of `serveNode` over real sockets: a cap per client address (429), a global cap (503),
 * a deadline for slow request bodies, and a cap on listen streams per address.
 */
import { connect as connectTcp, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { defineServer, defineTool } from '../../src/index.js'
import { serveNode, type RunningServer, type ServeOptions } from '../../src/transports/http/node.js'
import { meta, standardHeaders } from '../helpers/http.js'

/** A fresh server per test: closing one ends its listen streams for good. */
const makeServer = () =>
  defineServer({
    name: 'connections',
    version: '1.0.0',
    tools: [defineTool({ name: 'now', handler: () => 'tick' })],
    logger: { error: () => {}, warn: () => {} },
  })

let running: RunningServer | undefined
const sockets: Socket[] = []
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy()
  await running?.close()
  running = undefined
})

async function start(options: ServeOptions): Promise<number> {
  running = await serveNode(makeServer(), { ...options, host: '127.0.0.1', port: 0 })
  return Number(new URL(running.url).port)
}

/** A connection from `from` (any 127.x address is loopback on Linux) with everything it receives. */
async function open(
  port: number,
  from = '127.0.0.1',
): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const socket = connectTcp({ port, host: '127.0.0.1', localAddress: from })
  sockets.push(socket)
  let text = ''
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')))
  socket.on('error', () => {})
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  await new Promise<void>((resolve) => socket.once('connect', resolve))
  return { socket, received: () => text, closed }
}

function request(port: number, method: string, params: Record<string, unknown> = {}): string {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { _meta: meta(), ...params } })
  const headers = {
    ...standardHeaders(method, params),
    host: `127.0.0.1:${port}`,
    'content-length': String(Buffer.byteLength(body)),
  }
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}`)
  return `POST /mcp HTTP/1.1\r\n${head.join('\r\n')}\r\n\r\n${body}`
}

/** A server that allows two listen streams per address, holding two acknowledged ones. */
async function twoListenStreams() {
  const port = await start({ maxListenStreamsPerAddress: 2 })
  const listen = (): string =>
    request(port, 'subscriptions/listen', { notifications: { toolsListChanged: true } })
  const streams = [await open(port), await open(port)]
  for (const stream of streams) stream.socket.write(listen())
  for (const stream of streams)
    await expect.poll(() => stream.received(), { timeout: 20_000 }).toMatch(/subscriptions\/acknowledged/)
  return { port, listen, streams }
}

describe('serveNode connection limits', () => {
  it('refuses connections past the per-address cap with 429, and still serves other addresses', async () => {
    const port = await start({
      maxConnectionsPerAddress: 5,
      headersTimeoutMs: 60_000,
      requestTimeoutMs: 60_000,
    })
    for (let i = 0; i < 5; i++) await open(port)
    const refused = await open(port)
    await refused.closed
    expect(refused.received()).toMatch(/^HTTP\/1\.1 429 Too Many Requests\r\n/)
    const other = await open(port, '127.0.0.2')
    other.socket.write(request(port, 'tools/list'))
    await expect.poll(() => other.received(), { timeout: 20_000 }).toMatch(/^HTTP\/1\.1 200 OK/)
  })

  it('gives a closed connection back to its address, once', async () => {
    const port = await start({
      maxConnectionsPerAddress: 2,
      headersTimeoutMs: 60_000,
      requestTimeoutMs: 60_000,
    })
    const first = await open(port)
    await open(port)
    first.socket.destroy()
    await first.closed
    // The server sees the close a moment later: try until a connection is taken, then the cap holds again.
    let served = ''
    for (let attempt = 0; attempt < 200 && !served.includes('200 OK'); attempt++) {
      const next = await open(port)
      next.socket.write(request(port, 'tools/list'))
      await expect.poll(() => next.received(), { timeout: 20_000 }).toMatch(/^HTTP/)
      served = next.received()
    }
    expect(served).toMatch(/^HTTP\/1\.1 200 OK/)
    const refused = await open(port)
    await refused.closed
    expect(refused.received()).toMatch(/^HTTP\/1\.1 429 Too Many Requests\r\n/)
  })

  it('answers 503 past the global cap', async () => {
    const port = await start({
      maxConnectionsPerAddress: 3,
      maxConnections: 4,
      headersTimeoutMs: 60_000,
      requestTimeoutMs: 60_000,
    })
    for (let i = 0; i < 3; i++) await open(port)
    await open(port, '127.0.0.2')
    const refused = await open(port, '127.0.0.3')
    await refused.closed
    expect(refused.received()).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/)
  })

  it('closes a connection whose body trickles in past the request deadline', async () => {
    const port = await start({ headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 })
    const slow = await open(port)
    slow.socket.write(
      `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"a":`,
    )
    await slow.closed // waits for the server's deadline, whatever the machine's load
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408/)
  })

  it('refuses listen streams past the per-address cap with 429', async () => {
    const { port, listen } = await twoListenStreams()
    const third = await open(port)
    third.socket.write(listen())
    await expect.poll(() => third.received(), { timeout: 20_000 }).toMatch(/^HTTP\/1\.1 429/)
    expect(third.received()).toMatch(/more than 2 listen streams from one address/)
  })

  it('gives a listen slot back when its stream ends, and only once', async () => {
    const { port, listen, streams } = await twoListenStreams()
    streams[0]!.socket.destroy()
    await streams[0]!.closed
    // The server sees the close a moment later: try until a stream is taken; then the cap holds again.
    let taken: Awaited<ReturnType<typeof open>> | undefined
    for (let attempt = 0; attempt < 200 && !taken; attempt++) {
      const next = await open(port)
      next.socket.write(listen())
      await expect.poll(() => next.received(), { timeout: 20_000 }).toMatch(/acknowledged|HTTP\/1\.1 429/)
      if (next.received().includes('acknowledged')) taken = next
    }
    expect(taken).toBeDefined()
    const refused = await open(port)
    refused.socket.write(listen())
    await expect.poll(() => refused.received(), { timeout: 20_000 }).toMatch(/^HTTP\/1\.1 429/)
  })
})
