/**
 * toolwire's client over real transports: toolwire's server as a child process on stdio and on a real
 * loopback socket; a 2025-11-25-only server on both, which the client uses through `initialize`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, RequestCancelledError, TransportError, type Client } from '../src/client/index.js'
import { connectStdio, type StdioTransport } from '../src/client/stdio-entry.js'
import { serveNode, type RunningServer } from '../src/transports/http/node.js'
import { createToolwireTestServer } from './fixtures/toolwire-server.js'
import { tapStdio } from './helpers/stdio-tap.js'
// @ts-expect-error plain JS fixture without type declarations
import { createLegacyFetch } from './fixtures/legacy-server.mjs'
import { ROOT } from './helpers/paths.js'
import { join } from 'node:path'

const fixture = (name: string): string => join(ROOT, 'test', 'fixtures', name)
const stdioServer = { command: process.execPath, args: ['--import', 'tsx', fixture('toolwire-server.ts')] }

describe('toolwire server over stdio', () => {
  let client: Client
  let stderr = ''
  let problems: unknown[] = []

  beforeAll(() => {
    client = connectStdio({ ...stdioServer, stderr: 'pipe' })
    const child = (client.transport as StdioTransport).process
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk))
    problems = tapStdio(child)
  })
  afterAll(async () => {
    await client.close()
    expect(problems).toEqual([]) // every line the server wrote is valid per the MCP schema
  })

  it('lists every tool (x-mcp-header does not apply on stdio) and calls with structured output', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(['where', 'count', 'slow', 'fail'])
    const result = await client.callTool('where', { region: 'eu', note: 'hi' })
    expect(result.structuredContent).toEqual({ region: 'eu', note: 'hi' })
  })

  it('routes progress of concurrent calls by token', async () => {
    const a: number[] = []
    const b: number[] = []
    const [ra, rb] = await Promise.all([
      client.callTool('count', { n: 4 }, { onProgress: (p) => a.push(p.progress) }),
      client.callTool('count', { n: 2 }, { onProgress: (p) => b.push(p.progress) }),
    ])
    expect(a).toEqual([1, 2, 3, 4])
    expect(b).toEqual([1, 2])
    expect(ra.content).toEqual([{ type: 'text', text: 'counted to 4' }])
    expect(rb.content).toEqual([{ type: 'text', text: 'counted to 2' }])
  })

  it('reports tool and protocol errors', async () => {
    expect((await client.callTool('fail')).isError).toBe(true)
    await expect(client.callTool('nope')).rejects.toMatchObject({ name: 'UnknownToolError', tool: 'nope' })
    await expect(client.callTool('nope', {}, { allowUnlisted: true })).rejects.toMatchObject({
      name: 'McpError',
      code: -32602,
    })
  })

  it('cancels with notifications/cancelled', async () => {
    const controller = new AbortController()
    const call = client.callTool('slow', {}, { signal: controller.signal })
    await expect.poll(() => stderr).toContain('started slow')
    controller.abort()
    await expect(call).rejects.toBeInstanceOf(RequestCancelledError)
    await expect.poll(() => stderr).toContain('aborted slow')
    // the connection is still usable afterwards
    expect((await client.callTool('count', { n: 1 })).isError).toBeFalsy()
  })

  it('closes the server process', async () => {
    const other = connectStdio(stdioServer)
    await other.discover()
    const child = (other.transport as StdioTransport).process
    await other.close()
    expect(child.exitCode !== null || child.signalCode !== null).toBe(true)
    await expect(other.listTools()).rejects.toBeInstanceOf(TransportError)
  })

  it('fails fast and clearly when a stdio server answers neither era', async () => {
    const silent = connectStdio(
      { command: process.execPath, args: ['-e', 'process.stdin.resume()'] },
      { discoverTimeoutMs: 200 },
    )
    const started = Date.now()
    await expect(silent.listTools()).rejects.toThrow(
      /answered neither server\/discover \(2026-07-28\) nor initialize \(2025-era\): no answer within 200 ms/,
    )
    expect(Date.now() - started).toBeLessThan(5_000)
    await silent.close()
  })

  it('fails clearly when the command cannot start or dies', async () => {
    const missing = connectStdio({ command: 'toolwire-no-such-command-xyz' })
    await expect(missing.listTools()).rejects.toThrow(/Cannot start toolwire-no-such-command-xyz/)
    await missing.close()
    const dying = connectStdio({ command: process.execPath, args: ['-e', 'process.exit(3)'] })
    await expect(dying.listTools()).rejects.toThrow(/exited \(code 3\)/)
    await dying.close()
  })
})

describe('toolwire server on a real socket', () => {
  let running: RunningServer
  const events = { aborted: [] as string[], started: [] as string[] }
  beforeAll(async () => {
    running = await serveNode(createToolwireTestServer(events), { port: 0 })
  })
  afterAll(() => running.close())

  it('lists, calls, streams progress and cancels by closing the stream', async () => {
    const client = connect({ url: running.url })
    expect((await client.listTools()).tools).toHaveLength(4)
    const seen: number[] = []
    await client.callTool('count', { n: 3 }, { onProgress: (p) => seen.push(p.progress) })
    expect(seen).toEqual([1, 2, 3])
    const controller = new AbortController()
    const call = client.callTool('slow', {}, { signal: controller.signal })
    await expect.poll(() => events.started).toEqual(['slow'])
    controller.abort()
    await expect(call).rejects.toBeInstanceOf(RequestCancelledError)
    await expect.poll(() => events.aborted).toEqual(['slow'])
  })

  it('names the server when nothing answers', async () => {
    const port = new URL(running.url).port
    const client = connect({ url: `http://127.0.0.1:${port}/elsewhere` })
    await expect(client.listTools()).rejects.toThrow(
      /elsewhere is not an MCP endpoint: POST answered HTTP 404/,
    )
  })
})

describe('a server that speaks only 2025-11-25 (SDK v2 without its 2026-07-28 entry)', () => {
  it('is used through initialize over HTTP with sessions', async () => {
    const client = connect({ url: 'http://127.0.0.1/mcp', fetch: (await createLegacyFetch()) as never })
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['hello'])
    expect(client.legacy).toBe(true)
    expect(client.protocolVersion).toBe('2025-11-25')
    expect((await client.callTool('hello')).content).toEqual([{ type: 'text', text: 'hello' }])
    await client.close()
  })

  it('is used through initialize over stdio', async () => {
    const client = connectStdio({
      command: process.execPath,
      args: [fixture('legacy-server.mjs')],
      stderr: 'ignore',
    })
    try {
      expect((await client.callTool('hello')).content).toEqual([{ type: 'text', text: 'hello' }])
      expect(client.legacy).toBe(true)
      expect((await client.discover()).supportedVersions).toEqual(['2025-11-25'])
    } finally {
      await client.close()
    }
  })
})
