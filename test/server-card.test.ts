/**
 * The Server Card over real HTTP: published at `<endpoint>/server-card` by serveNode (and the fetch adapter),
 * consistent with server/discover, cacheable (ETag, If-None-Match, Cache-Control), CORS-open, served without
 * authentication by an auth-protected server without naming a tool only an authenticated caller may see;
 * fetched and checked by toolwire's client; a malformed card from a raw node:http server is refused.
 */
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import express from 'express'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkServerCard, connect, fetchServerCard, ServerCardError } from '../src/client/index.js'
import { bearerAuth, createFetchHandler, defineServer, defineTool, InvalidTokenError } from '../src/index.js'
import { createNodeHandler, type RunningServer, serveNode } from '../src/transports/http/node.js'

const SECRET_TOOL = 'purge_all_customer_records'
const TOKEN = 'admin-token'

async function freePort(): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const port = (probe.address() as AddressInfo).port
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

describe('a server publishing its card', () => {
  let running: RunningServer

  beforeAll(async () => {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}/mcp`
    const server = defineServer({
      name: 'io.example/notes',
      version: '2.1.0',
      title: 'Notes',
      description: 'Keeps notes',
      websiteUrl: 'https://example.com/notes',
      tools: [
        defineTool({ name: 'public_echo', handler: () => 'echo' }),
        defineTool({ name: SECRET_TOOL, scopes: ['admin'], handler: () => 'purged' }),
      ],
      serverCard: {
        headers: [{ name: 'Authorization', description: 'Bearer token', isRequired: true, isSecret: true }],
      },
      security: {
        auth: bearerAuth({
          resource: url,
          authorizationServers: ['https://issuer.invalid'],
          verifier: (token) => {
            if (token !== TOKEN) throw new InvalidTokenError('unknown token')
            return { subject: 'root', scopes: ['admin'], token }
          },
        }),
      },
    })
    running = await serveNode(server, { port, host: '127.0.0.1' })
  })

  afterAll(async () => {
    await running.close()
  })

  it('serves the card without authentication, cacheable, CORS-open, with no tool names', async () => {
    const unauthorized = await fetch(running.url, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    })
    expect(unauthorized.status).toBe(401)
    await unauthorized.body?.cancel()

    const response = await fetch(`${running.url}/server-card`, {
      headers: { accept: 'application/mcp-server-card+json' },
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/mcp-server-card+json')
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600')
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(response.headers.get('access-control-expose-headers')).toBe('ETag')
    const etag = response.headers.get('etag')
    expect(etag).toMatch(/^".+"$/)
    const text = await response.text()
    expect(text).not.toContain(SECRET_TOOL)
    expect(text).not.toContain('public_echo')
    const card = checkServerCard(JSON.parse(text))
    expect(card).toMatchObject({
      $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
      name: 'io.example/notes',
      version: '2.1.0',
      title: 'Notes',
      description: 'Keeps notes',
      remotes: [{ type: 'streamable-http', url: running.url }],
    })

    const revalidated = await fetch(`${running.url}/server-card`, {
      headers: { 'if-none-match': etag as string },
    })
    expect(revalidated.status).toBe(304)
    await revalidated.body?.cancel()
    const preflight = await fetch(`${running.url}/server-card`, { method: 'OPTIONS' })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET')
    const post = await fetch(`${running.url}/server-card`, { method: 'POST', body: '{}' })
    expect(post.status).toBe(405)
    await post.body?.cancel()
  })

  it('says what server/discover says (identity and protocol versions)', async () => {
    const card = await fetchServerCard(running.url)
    const client = connect({ url: running.url, headers: { authorization: `Bearer ${TOKEN}` } })
    try {
      const discovered = await client.discover()
      const info = await client.serverInfo()
      expect(card.name).toBe(info?.name)
      expect(card.version).toBe(info?.version)
      for (const version of discovered.supportedVersions)
        expect(card.remotes?.[0]?.supportedProtocolVersions).toContain(version)
      // The tool the card hides exists for an authenticated caller.
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain(SECRET_TOOL)
    } finally {
      await client.close()
    }
  })

  it('connects the official SDK client to the endpoint the card names', async () => {
    const card = await fetchServerCard(`${running.url}/server-card`)
    const remote = card.remotes?.[0]
    const sdk = new SdkClient({ name: 'sdk-v1-test', version: '1.0.0' })
    await sdk.connect(
      new StreamableHTTPClientTransport(new URL(remote?.url as string), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    )
    try {
      // The SDK v1 client speaks 2025-11-25; the card says the endpoint does too.
      expect(remote?.supportedProtocolVersions).toContain('2025-11-25')
      expect(sdk.getServerVersion()).toMatchObject({ name: card.name, version: card.version })
    } finally {
      await sdk.close()
    }
  })
})

describe('the fetch adapter', () => {
  it('serves the card beside the endpoint it is mounted at', async () => {
    const handler = createFetchHandler(
      defineServer({
        name: 'io.example/calc',
        version: '1.0.0',
        description: 'Adds numbers',
        serverCard: {},
      }),
    )
    const response = await handler(new Request('https://calc.example.com/api/mcp/server-card'))
    expect(response.status).toBe(200)
    const card = checkServerCard(await response.json())
    expect(card.remotes?.[0]?.url).toBe('https://calc.example.com/api/mcp')
  })
})

describe('framework adapters', () => {
  const cardServer = () =>
    defineServer({ name: 'io.example/calc', version: '1.0.0', description: 'Adds numbers', serverCard: {} })

  it('Express: the card route goes to the same node handler', async () => {
    const handler = createNodeHandler(cardServer())
    const app = express()
    app.all('/mcp', handler)
    app.get('/mcp/server-card', handler)
    const http = createServer(app)
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    try {
      const endpoint = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`
      const card = await fetchServerCard(endpoint)
      expect(card.remotes?.[0]?.url).toBe(endpoint)
    } finally {
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    }
  })

  it('Hono: the card route goes to the same fetch handler', async () => {
    const handler = createFetchHandler(cardServer())
    const app = new Hono()
    app.all('/mcp', (c) => handler(c.req.raw))
    app.get('/mcp/server-card', (c) => handler(c.req.raw))
    const response = await app.request('http://calc.example.com/mcp/server-card')
    expect(response.status).toBe(200)
    expect(response.headers.get('etag')).toMatch(/^"/)
    expect(checkServerCard(await response.json()).remotes?.[0]?.url).toBe('http://calc.example.com/mcp')
  })
})

describe('definition and hostile cards', () => {
  it('refuses a card that would be invalid when the server is defined', () => {
    expect(() => defineServer({ name: 'notes', version: '1.0.0', description: 'x', serverCard: {} })).toThrow(
      /serverCard is invalid/,
    )
    expect(() => defineServer({ name: 'io.example/notes', version: '1.0.0', serverCard: {} })).toThrow(
      /description/,
    )
  })

  let http: HttpServer
  let base: string
  const bodies: Record<string, string> = {
    '/bad/server-card': JSON.stringify({
      $schema: 'https://example.com/other.json',
      name: 'no-slash',
      version: '1',
    }),
    '/notjson/server-card': '<html>',
    '/huge/server-card': JSON.stringify({ padding: 'x'.repeat(100_000) }),
  }

  beforeAll(async () => {
    http = createServer((req, res) => {
      const body = bodies[req.url ?? '']
      if (body === undefined) return void res.writeHead(404).end()
      res.writeHead(200, { 'content-type': 'application/mcp-server-card+json' }).end(body)
    })
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    http.closeAllConnections()
    await new Promise<void>((resolve) => http.close(() => resolve()))
  })

  it('refuses a malformed, non-JSON, oversized or missing card', async () => {
    const bad = fetchServerCard(`${base}/bad`)
    await expect(bad).rejects.toBeInstanceOf(ServerCardError)
    await expect(bad).rejects.toMatchObject({ errorCode: 'ERR_SERVER_CARD' })
    expect(((await bad.catch((e: unknown) => e)) as ServerCardError).issues.length).toBeGreaterThan(0)
    await expect(fetchServerCard(`${base}/notjson`)).rejects.toThrow(/not JSON/)
    await expect(fetchServerCard(`${base}/huge`)).rejects.toThrow(/larger than/)
    await expect(fetchServerCard(`${base}/missing`)).rejects.toThrow(/HTTP 404/)
  })
})
