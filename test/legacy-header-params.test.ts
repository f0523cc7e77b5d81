/**
 * `x-mcp-header` parameters in a 2025-era session: `Mcp-Param-*` headers exist only from revision 2026-07-28
 * (streamable-http §Custom Headers from Tool Parameters), so the official SDK v1 client, which never sends
 * them, calls such a tool like any other; a 2026-07-28 request without the header is still refused.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { createToolwireTestServer } from './fixtures/toolwire-server.js'
import { errorOf, post } from './helpers/http.js'

let running: RunningServer

beforeAll(async () => {
  running = await serveNode(createToolwireTestServer(), { host: '127.0.0.1', port: 0 })
})

afterAll(async () => {
  await running.close()
})

describe('a tool with a header-mirrored parameter', () => {
  it('is called by the SDK v1 client in a 2025-11-25 session without Mcp-Param headers', async () => {
    const client = new Client({ name: 'sdk-v1-test', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(running.url))
    await client.connect(transport)
    try {
      const result = await client.callTool({ name: 'where', arguments: { region: 'eu-west', note: 'hi' } })
      expect(result.isError).toBeFalsy()
      expect(result.structuredContent).toEqual({ region: 'eu-west', note: 'hi' })
    } finally {
      await transport.terminateSession()
      await client.close()
    }
  })

  it('still needs the header from a 2026-07-28 request', async () => {
    const answer = await post(
      fetch,
      'tools/call',
      { name: 'where', arguments: { region: 'eu-west' } },
      {},
      running.url,
    )
    expect(errorOf(answer).message).toMatch(/Mcp-Param-Region/)
  })
})
