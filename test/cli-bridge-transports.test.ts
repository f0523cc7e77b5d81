/**
 * What `toolwire bridge --http` and `toolwire gateway` serve beside Streamable HTTP, as users run them: the
 * HTTP+SSE transport of 2024-11-05 (the official SDK v1 client's SSEClientTransport calls a tool through
 * both), CORS for a listed browser origin (real Chromium on another origin, and the preflight's headers
 * exactly), the Host/Origin checks on both SSE paths, the per-address bound on open SSE streams, and the
 * health endpoint going 503 once the upstream process is killed.
 */
import { execFileSync } from 'node:child_process'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningCli, startCli, stopCli } from './helpers/cli-process.js'
import { EVERYTHING_SERVER as EVERYTHING } from './helpers/paths.js'
import { type BrowserSession, launchChromium } from './helpers/inspector.js'

/** The process ids of `pid`'s children. */
const childrenOf = (pid: number): number[] =>
  execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((id) => id > 0)

/** The status of a request sent with `host` as its Host header. */
function statusWithHost(url: string, method: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { host, 'content-type': 'application/json' } }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', reject)
    req.end(method === 'POST' ? '{}' : undefined)
  })
}

/** A page server on its own port: its origin is another origin than the bridge's. */
async function pageServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>page</title>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

/** Calls `echo` over the SDK v1 client's HTTP+SSE transport. */
async function echoOverSse(sseUrl: string, tool: string): Promise<unknown> {
  const client = new SdkClient({ name: 'sse-client', version: '1.0.0' })
  await client.connect(new SSEClientTransport(new URL(sseUrl)))
  try {
    const result = await client.callTool({ name: tool, arguments: { message: 'over sse' } })
    return result.content
  } finally {
    await client.close()
  }
}

describe('toolwire bridge --http: HTTP+SSE, CORS, health', () => {
  let bridge: RunningCli | undefined
  let listed: { server: Server; origin: string }
  let unlisted: { server: Server; origin: string }
  let base = ''
  beforeAll(async () => {
    listed = await pageServer()
    unlisted = await pageServer()
    bridge = await startCli([
      'bridge',
      '--http',
      '127.0.0.1:0',
      '--cors',
      listed.origin,
      '--health',
      '/healthz',
      '--',
      process.execPath,
      EVERYTHING,
    ])
    base = new URL(bridge.url).origin
  }, 90_000)
  afterAll(async () => {
    await stopCli(bridge)
    listed.server.close()
    unlisted.server.close()
  })

  it('serves the SDK v1 SSEClientTransport: the endpoint event, then a tool call answered on the stream', async () => {
    const first = await fetch(`${base}/sse`, { headers: { accept: 'text/event-stream' } })
    expect(first.status).toBe(200)
    expect(first.headers.get('content-type')).toBe('text/event-stream')
    const reader = first.body!.getReader()
    const { value } = await reader.read()
    expect(new TextDecoder().decode(value)).toMatch(
      /^event: endpoint\ndata: \/messages\?sessionId=[0-9a-f-]{36}\n\n/,
    )
    await reader.cancel()
    expect(await echoOverSse(`${base}/sse`, 'echo')).toEqual([{ type: 'text', text: 'Echo: over sse' }])
  }, 60_000)

  it('applies the Host and Origin checks to both SSE paths', async () => {
    const evilOrigin = await fetch(`${base}/sse`, { headers: { origin: 'http://evil.example' } })
    expect(evilOrigin.status).toBe(403)
    // fetch sets Host itself: node:http sends the rebound name a browser would.
    for (const path of ['/sse', '/messages?sessionId=x'])
      expect(await statusWithHost(`${base}${path}`, path === '/sse' ? 'GET' : 'POST', 'evil.example')).toBe(
        403,
      )
    const unknown = await fetch(`${base}/messages?sessionId=nope`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
    expect(unknown.status).toBe(404)
  })

  it('bounds the POST body as /mcp does', async () => {
    const stream = await fetch(`${base}/sse`)
    const reader = stream.body!.getReader()
    const text = new TextDecoder().decode((await reader.read()).value)
    const endpoint = /data: (\S+)/.exec(text)![1]!
    const big = await fetch(`${base}${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(4 * 1024 * 1024 + 1),
    })
    expect(big.status).toBe(413)
    await reader.cancel()
  })

  it('refuses the 17th open SSE stream from one address (maxListenStreamsPerAddress)', async () => {
    const readers: ReadableStreamDefaultReader<Uint8Array>[] = []
    try {
      for (let index = 0; index < 16; index++) {
        const response = await fetch(`${base}/sse`)
        expect(response.status).toBe(200)
        const reader = response.body!.getReader()
        await reader.read()
        readers.push(reader)
      }
      expect((await fetch(`${base}/sse`)).status).toBe(429)
    } finally {
      await Promise.all(readers.map((reader) => reader.cancel()))
    }
    // Closed streams give their slots back.
    await expect
      .poll(
        async () => {
          const response = await fetch(`${base}/sse`)
          await response.body?.cancel()
          return response.status
        },
        { timeout: 20_000 },
      )
      .toBe(200)
  })

  it('answers a listed origin’s preflight with exactly the MCP methods and headers, an unlisted one with none', async () => {
    const asked = 'content-type, mcp-protocol-version, mcp-param-city, x-other'
    const preflight = await fetch(bridge!.url, {
      method: 'OPTIONS',
      headers: {
        origin: listed.origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': asked,
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe(listed.origin)
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE, OPTIONS')
    expect(preflight.headers.get('access-control-allow-headers')).toBe(
      'content-type, authorization, mcp-session-id, mcp-protocol-version, last-event-id, mcp-method, mcp-name, mcp-param-city',
    )
    expect(preflight.headers.get('access-control-expose-headers')).toBe('Mcp-Session-Id')
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull()
    const refused = await fetch(bridge!.url, {
      method: 'OPTIONS',
      headers: { origin: unlisted.origin, 'access-control-request-method': 'POST' },
    })
    expect(refused.headers.get('access-control-allow-origin')).toBeNull()
    expect(refused.status).toBe(405)
  })

  describe('in Chromium', () => {
    let browser: BrowserSession | undefined
    beforeAll(async () => {
      browser = await launchChromium()
    }, 60_000)
    afterAll(async () => {
      await browser?.close()
    })

    /** A page on `origin` POSTs initialize to the bridge: the session id it could read, or the error. */
    async function initializeFrom(origin: string): Promise<string> {
      const page = await browser!.context.newPage()
      try {
        await page.goto(origin)
        return await page.evaluate(async (url) => {
          try {
            const response = await fetch(url, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
              },
              body: JSON.stringify({
                jsonrpc: '2.0',
                id: 1,
                method: 'initialize',
                params: {
                  protocolVersion: '2025-06-18',
                  capabilities: {},
                  clientInfo: { name: 'page', version: '1' },
                },
              }),
            })
            return `session ${response.headers.get('mcp-session-id') ? 'read' : 'hidden'} (${response.status})`
          } catch (error) {
            return `blocked: ${String(error)}`
          }
        }, bridge!.url)
      } finally {
        await page.close()
      }
    }

    it('lets a page on the listed origin call and read Mcp-Session-Id; blocks a page on another origin', async () => {
      expect(await initializeFrom(listed.origin)).toBe('session read (200)')
      expect(await initializeFrom(unlisted.origin)).toMatch(/^blocked: TypeError: Failed to fetch/)
    }, 60_000)
  })

  it('answers health 200 while the upstream answers, 503 once its process is killed', async () => {
    const healthy = await fetch(`${base}/healthz`)
    expect(healthy.status).toBe(200)
    expect(await healthy.json()).toEqual({ status: 'up', members: { upstream: 'up' } })
    const upstreams = childrenOf(bridge!.child.pid!)
    expect(upstreams.length).toBeGreaterThan(0)
    for (const pid of upstreams) process.kill(pid, 'SIGKILL')
    await expect.poll(async () => (await fetch(`${base}/healthz`)).status, { timeout: 30_000 }).toBe(503)
  }, 60_000)
})

describe('toolwire gateway: HTTP+SSE and health from the config file', () => {
  let gateway: RunningCli | undefined
  let base = ''
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-gateway-sse-'))
    const file = join(dir, 'servers.json')
    writeFileSync(
      file,
      JSON.stringify({
        health: '/healthz',
        cors: ['http://app.example'],
        mcpServers: { every: { command: process.execPath, args: [EVERYTHING] } },
      }),
    )
    gateway = await startCli(['gateway', file, '--http', '127.0.0.1:0'])
    base = new URL(gateway.url).origin
  }, 90_000)
  afterAll(() => stopCli(gateway))

  it('serves the SDK v1 SSEClientTransport on the merged endpoint and on a member’s own', async () => {
    expect(await echoOverSse(`${base}/sse`, 'every_echo')).toEqual([{ type: 'text', text: 'Echo: over sse' }])
    expect(await echoOverSse(`${base}/servers/every/sse`, 'echo')).toEqual([
      { type: 'text', text: 'Echo: over sse' },
    ])
  }, 60_000)

  it('takes cors from the file (the listed origin also passes the Origin check) and reports each member’s health', async () => {
    const preflight = await fetch(gateway!.url, {
      method: 'OPTIONS',
      headers: { origin: 'http://app.example', 'access-control-request-method': 'POST' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://app.example')
    const stream = await fetch(`${base}/sse`, { headers: { origin: 'http://app.example' } })
    expect(stream.status).toBe(200)
    await stream.body?.cancel()
    const health = await fetch(`${base}/healthz`)
    expect(health.status).toBe(200)
    expect(await health.json()).toEqual({ status: 'up', members: { every: 'up' } })
  })
})
