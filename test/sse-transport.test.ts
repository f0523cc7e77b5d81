/**
 * The HTTP+SSE transport of 2024-11-05 on `serveNode({ sse: true })`, driven by the official SDK v1 client's
 * SSEClientTransport: a request the server makes during a call (elicitation) travels on the stream and its
 * answer comes back by POST; a resource update the server sends outside any call reaches the client on the
 * stream; closing the stream ends the 2025-era session behind it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { defineResource, defineServer, defineTool, type Server } from '../src/index.js'
import { checkOrigin } from '../src/transports/http/guard.js'
import { type Live, live } from './helpers/live.js'

function server(): Server {
  return defineServer({
    name: 'sse',
    version: '1',
    tools: [
      defineTool({
        name: 'ask',
        handler: async (_args, ctx) => {
          const answer = await ctx.input.elicit(
            {
              message: 'Name?',
              requestedSchema: {
                type: 'object',
                properties: { name: { type: 'string' } },
                required: ['name'],
              },
            },
            'form',
          )
          return `hello ${String(answer.content?.name)}`
        },
      }),
    ],
    resources: [defineResource({ uri: 'test://thing', name: 'thing', read: () => 'thing' })],
  })
}

const running: Live[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((each) => each.close()))
})

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'v1-sse', version: '1.0.0' }, { capabilities: { elicitation: {} } })
  await client.connect(new SSEClientTransport(new URL('/sse', url)))
  return client
}

describe('serveNode({ sse: true }) with the SDK v1 SSEClientTransport', () => {
  it('carries an elicitation request on the stream and takes its answer by POST', async () => {
    const served = await live(server(), { sse: true })
    running.push(served)
    const client = await connect(served.url)
    client.setRequestHandler(ElicitRequestSchema, () => ({
      action: 'accept' as const,
      content: { name: 'Ada' },
    }))
    try {
      const result = await client.callTool({ name: 'ask', arguments: {} })
      expect(result.content).toEqual([{ type: 'text', text: 'hello Ada' }])
    } finally {
      await client.close()
    }
  })

  it('sends a subscribed resource update on the stream, outside any call', async () => {
    const mcp = server()
    const served = await live(mcp, { sse: true })
    running.push(served)
    const client = await connect(served.url)
    const updates: string[] = []
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri))
    try {
      await client.subscribeResource({ uri: 'test://thing' })
      mcp.resourceUpdated('test://thing')
      await expect.poll(() => updates, { timeout: 10_000 }).toEqual(['test://thing'])
    } finally {
      await client.close()
    }
  })

  it('ends the session with its stream: the POST URL is then unknown (404)', async () => {
    const served = await live(server(), { sse: true })
    running.push(served)
    const base = new URL(served.url).origin
    const stream = await fetch(`${base}/sse`)
    const reader = stream.body!.getReader()
    const endpoint = /data: (\S+)/.exec(new TextDecoder().decode((await reader.read()).value))![1]!
    const initialized = await fetch(`${base}${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2024-11-05',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    })
    expect(initialized.status).toBe(202)
    // The reply travels on the stream. A 2024-11-05 client is offered the newest 2025-era revision (the
    // transport is served; the revision's own rules are not), which SDK clients accept.
    const reply = new TextDecoder().decode((await reader.read()).value)
    expect(reply).toMatch(
      /^event: message\ndata: \{"jsonrpc":"2\.0","id":1,"result":\{"protocolVersion":"2025-11-25"/,
    )
    await reader.cancel()
    const post = (): Promise<number> =>
      fetch(`${base}${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
      }).then((response) => response.status)
    await expect.poll(post, { timeout: 10_000 }).toBe(404)
  })

  it('is refused for a server without 2025-era sessions', async () => {
    await expect(
      live(defineServer({ name: 'modern', version: '1', legacy: false }), { sse: true }),
    ).rejects.toThrow(/2025-era sessions/)
  })
})

describe('extraOrigins (the CORS origins a listener serves)', () => {
  it('adds the listed origins and keeps the default rule for the others', () => {
    const policy = { allowedHosts: ['localhost', '127.0.0.1'], extraOrigins: ['https://app.example'] }
    expect(checkOrigin(policy, '127.0.0.1:3000', 'https://app.example')).toBeUndefined()
    expect(checkOrigin(policy, '127.0.0.1:3000', 'http://localhost:5173')).toBeUndefined()
    expect(checkOrigin(policy, '127.0.0.1:3000', 'https://evil.example')).toBe(
      'Origin https://evil.example is not allowed',
    )
    // The Host check still applies to a listed origin.
    expect(checkOrigin(policy, 'evil.example', 'https://app.example')).toBe(
      'Host evil.example is not allowed',
    )
  })
})
