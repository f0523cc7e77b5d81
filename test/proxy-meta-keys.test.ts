/**
 * A proxy mirrors an upstream's tools through `defineTool`, which refuses `_meta` keys outside the key-name
 * rules (basic/index §_meta). The upstream is untrusted: its bad keys are dropped, never its tool.
 */
import { randomUUID } from 'node:crypto'
import { McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { connect } from '../src/client/index.js'
import { defineProxy } from '../src/proxy/index.js'
import { createFetchHandler } from '../src/index.js'
import { post, resultOf } from './helpers/http.js'

async function upstreamFetch(): Promise<(request: Request) => Promise<Response>> {
  const server = new McpServer({ name: 'upstream', version: '1.0.0' })
  server.registerTool(
    'tagged',
    {
      description: 'A tool with odd _meta keys',
      inputSchema: z.object({}),
      _meta: { 'com.example/ok': 1, 'io.modelcontextprotocol/mine': 2, '-bad': 3, 'bad prefix/x': 4 },
    },
    async () => ({ content: [{ type: 'text', text: 'tagged' }] }),
  )
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() })
  await server.connect(transport)
  return (request) => transport.handleRequest(request)
}

describe('a proxy and an upstream tool with invalid _meta keys', () => {
  it('offers the tool with only its valid keys', async () => {
    const fetch = await upstreamFetch()
    const proxy = await defineProxy({
      target: () => connect({ url: 'http://upstream.test/mcp', fetch: fetch as never }, { warn: () => {} }),
    })
    try {
      const fetcher = createFetchHandler(proxy)
      const tools = resultOf(await post(fetcher, 'tools/list')).tools as { name: string; _meta?: unknown }[]
      expect(tools.find((tool) => tool.name === 'tagged')?._meta).toEqual({ 'com.example/ok': 1 })
      const called = resultOf(await post(fetcher, 'tools/call', { name: 'tagged', arguments: {} }))
      expect(called.content).toEqual([{ type: 'text', text: 'tagged' }])
    } finally {
      await proxy.close()
    }
  })
})
