/**
 * Pinning a revision (`protocolVersion`, `--protocol-version`) skips era discovery (basic/versioning §Backward
 * Compatibility with Initialization-Based Versions): against the official SDK v1 server (2025-era), the SDK v2
 * server (2026-07-28) and a toolwire server that speaks both eras, the client speaks exactly the pinned
 * revision. A 2025-era pin opens with `initialize`; a 2026-07-28 pin never sends it.
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import { toNodeHandler } from '@modelcontextprotocol/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, type Client } from '../src/client/index.js'
import { connectStdio } from '../src/client/stdio-entry.js'
import { serveNode, type RunningServer } from '../src/transports/http/node.js'
import { createToolwireTestServer } from './fixtures/toolwire-server.js'
import { startSdkV1Http, type RunningSdkV1Http } from './fixtures/sdk-v1-server.mjs'
// @ts-expect-error plain JS fixture without type declarations
import { createSdkHandler } from './fixtures/sdk-server.mjs'
import { CLI, ROOT } from './helpers/paths.js'

const run = promisify(execFile)

/** Records each HTTP message the client sends: its method, JSON-RPC method and whether it carries a session. */
function recording(): { fetch: (request: Request) => Promise<Response>; sent: string[] } {
  const sent: string[] = []
  return {
    sent,
    fetch: async (request) => {
      const body =
        request.method === 'POST' ? (JSON.parse(await request.clone().text()) as { method?: string }) : {}
      const session = request.headers.get('mcp-session-id') ? ' +session' : ''
      const version = request.headers.get('mcp-protocol-version') ?? '-'
      sent.push(`${request.method} ${body.method ?? ''} ${version}${session}`.replace(/ +/g, ' '))
      return fetch(request)
    },
  }
}

const sentMethods = (sent: string[]): string[] => sent.map((line) => line.split(' ')[1] ?? '')

let dual: RunningServer
let v1: RunningSdkV1Http
let v2: { http: HttpServer; url: string; close: () => Promise<void> }

beforeAll(async () => {
  dual = await serveNode(createToolwireTestServer(), { host: '127.0.0.1', port: 0 })
  v1 = await startSdkV1Http()
  const handler = createSdkHandler() as {
    fetch: (request: Request) => Promise<Response>
    close: () => Promise<void>
  }
  const http = createServer(toNodeHandler(handler as never) as never)
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  v2 = {
    http,
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    close: async () => {
      await handler.close()
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
})

afterAll(async () => {
  await dual?.close()
  await v1?.close()
  await v2?.close()
})

const clients: Client[] = []
afterAll(async () => {
  for (const client of clients) await client.close()
})

function pinned(url: string, protocolVersion: string | undefined): { client: Client; sent: string[] } {
  const recorder = recording()
  const client = connect(
    { url, fetch: recorder.fetch },
    { ...(protocolVersion !== undefined && { protocolVersion }), warn: () => undefined },
  )
  clients.push(client)
  return { client, sent: recorder.sent }
}

describe('connect({ protocolVersion }) against a toolwire server that speaks both eras', () => {
  it('pinned to 2025-11-25, opens an initialize session', async () => {
    const { client, sent } = pinned(dual.url, '2025-11-25')
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toContain('where')
    expect(client.legacy).toBe(true)
    expect(client.protocolVersion).toBe('2025-11-25')
    expect(sent[0]).toBe('POST initialize 2025-11-25')
    expect(sent).toContain('POST tools/list 2025-11-25 +session')
  })

  it('pinned to 2025-03-26, the oldest streamable revision, gets exactly that one', async () => {
    const { client, sent } = pinned(dual.url, '2025-03-26')
    const result = await client.callTool('count', { n: 2 })
    expect(result.content).toEqual([{ type: 'text', text: 'counted to 2' }])
    expect(client.protocolVersion).toBe('2025-03-26')
    expect(sent[0]).toBe('POST initialize 2025-03-26')
  })

  it('pinned to 2026-07-28, sends no initialize', async () => {
    const { client, sent } = pinned(dual.url, '2026-07-28')
    await client.listTools()
    const discovered = await client.discover()
    expect(discovered.supportedVersions).toContain('2026-07-28')
    expect(client.legacy).toBe(false)
    expect(sentMethods(sent)).not.toContain('initialize')
    expect(sentMethods(sent)).toEqual(['tools/list', 'server/discover'])
  })
})

describe('connect({ protocolVersion }) against the official SDK servers', () => {
  it('SDK v1 (2025-era) pinned to 2025-06-18 speaks 2025-06-18', async () => {
    const { client, sent } = pinned(v1.url, '2025-06-18')
    const result = await client.callTool('add', { a: 2, b: 3 })
    expect(result.structuredContent).toEqual({ sum: 5 })
    expect(client.protocolVersion).toBe('2025-06-18')
    expect(sent[0]).toBe('POST initialize 2025-06-18')
  })

  it('SDK v1 pinned to 2026-07-28 is not initialized behind the pin', async () => {
    const { client, sent } = pinned(v1.url, '2026-07-28')
    await expect(client.listTools()).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/session/i) as unknown,
    })
    expect(sentMethods(sent)).not.toContain('initialize')
  })

  it('SDK v2 (2026-07-28) pinned to 2026-07-28 lists and calls without initialize', async () => {
    const { client, sent } = pinned(v2.url, '2026-07-28')
    const result = await client.callTool('add', { a: 4, b: 5 })
    expect(result.structuredContent).toEqual({ sum: 9 })
    expect(sentMethods(sent)).not.toContain('initialize')
  })

  it('SDK v2 pinned to 2025-11-25 fails on initialize instead of falling forward', async () => {
    const { client, sent } = pinned(v2.url, '2025-11-25')
    await expect(client.listTools()).rejects.toThrow(/Unsupported protocol version: 2025-11-25/)
    expect(sentMethods(sent)).toEqual(['initialize'])
  })
})

describe('connect({ protocolVersion }) over stdio', () => {
  it('SDK v1 pinned to 2025-06-18 speaks 2025-06-18', async () => {
    const client = connectStdio(
      { command: process.execPath, args: [join(ROOT, 'test', 'fixtures', 'sdk-v1-server.mjs')] },
      { protocolVersion: '2025-06-18', warn: () => undefined },
    )
    clients.push(client)
    const result = await client.callTool('add', { a: 20, b: 22 })
    expect(result.structuredContent).toEqual({ sum: 42 })
    expect(client.protocolVersion).toBe('2025-06-18')
  })

  it('the SDK v2 server pinned to 2026-07-28 is used without initialize', async () => {
    const client = connectStdio(
      {
        command: process.execPath,
        args: [join(ROOT, 'test', 'fixtures', 'sdk-server.mjs')],
        stderr: 'ignore',
      },
      { protocolVersion: '2026-07-28', warn: () => undefined },
    )
    clients.push(client)
    const result = await client.callTool('add', { a: 1, b: 1 })
    expect(result.structuredContent).toEqual({ sum: 2 })
    expect(client.legacy).toBe(false)
  })
})

describe('an unknown revision is refused before anything is sent', () => {
  it('connect() throws a TypeError naming the revisions it speaks', () => {
    expect(() => connect({ url: dual.url }, { protocolVersion: '2024-11-05' })).toThrow(
      /Unknown MCP protocol version "2024-11-05": pin one of 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26/,
    )
  })
})

describe('toolwire --protocol-version', () => {
  const toolwire = (...args: string[]): Promise<{ stdout: string; stderr: string }> =>
    run(process.execPath, [CLI, ...args], { timeout: 60_000, cwd: ROOT })

  it('discover pinned to 2025-11-25 on a dual-era server reports what initialize said', async () => {
    const { stdout } = await toolwire('discover', dual.url, '--protocol-version', '2025-11-25')
    expect(stdout).toMatch(/Versions: +2025-11-25/)
  })

  it('discover pinned to 2026-07-28 on a dual-era server reports the modern versions', async () => {
    const { stdout } = await toolwire('discover', dual.url, '--protocol-version', '2026-07-28')
    expect(stdout).toMatch(/Versions: +2026-07-28/)
  })

  it('list and call accept the pin', async () => {
    const listed = await toolwire('list', v1.url, '--protocol-version', '2025-06-18')
    expect(listed.stdout).toContain('add')
    const called = await toolwire(
      'call',
      v2.url,
      'add',
      'a=1',
      'b=2',
      '--yes',
      '--json',
      '--protocol-version',
      '2026-07-28',
    )
    expect(JSON.parse(called.stdout)).toMatchObject({ structuredContent: { sum: 3 } })
  })

  it('refuses an unknown revision in one line, with exit status 2', async () => {
    const failure = await toolwire('list', dual.url, '--protocol-version', '2024-11-05').then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    )
    expect(failure?.code).toBe(2)
    expect(failure?.stderr.trim()).toBe(
      'toolwire: --protocol-version "2024-11-05" is not a revision this client speaks; use one of 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26',
    )
  })
})
