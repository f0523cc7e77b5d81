/** Every row of the error table over Streamable HTTP, in process, with the status the table gives. */
import { describe, expect, it } from 'vitest'
import { createFetchHandler, defineServer, defineTool } from '../src/index.js'
import { McpError } from '../src/wire/index.js'
import { createFixtureServer } from './fixtures/conformance/server.js'
import { errorOf, meta, post, postRaw, resultOf, standardHeaders, VERSION } from './helpers/http.js'

const fetcher = createFetchHandler(createFixtureServer())
const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

describe('HTTP error table', () => {
  it('-32700 parse error, 400, for malformed JSON', async () => {
    const answer = await postRaw(fetcher, '{"jsonrpc":"2.0",', json)
    expect(answer.status).toBe(400)
    expect(errorOf(answer).code).toBe(-32700)
  })

  it('-32700 for a body that is not UTF-8', async () => {
    const answer = await postRaw(fetcher, new Uint8Array([0x7b, 0xff, 0x7d]), json)
    expect(answer.status).toBe(400)
    expect(errorOf(answer)).toMatchObject({ code: -32700, message: expect.stringContaining('UTF-8') })
  })

  it('-32600 invalid request, 400, echoing the id when it can be read', async () => {
    const answer = await postRaw(
      fetcher,
      JSON.stringify({ jsonrpc: '1.0', id: 7, method: 'tools/list' }),
      json,
    )
    expect(answer.status).toBe(400)
    expect(answer.response).toMatchObject({ id: 7, error: { code: -32600 } })
  })

  it('-32600 for batches (removed from MCP)', async () => {
    const answer = await postRaw(
      fetcher,
      JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]),
      json,
    )
    expect(answer.status).toBe(400)
    expect(errorOf(answer).code).toBe(-32600)
  })

  it('-32600 for a response sent by a client', async () => {
    const answer = await postRaw(fetcher, JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }), json)
    expect(answer.status).toBe(400)
    expect(errorOf(answer).code).toBe(-32600)
  })

  it('-32601 method not found, 404, for unknown and removed methods', async () => {
    for (const method of [
      'unknown/method',
      'initialize',
      'ping',
      'logging/setLevel',
      'resources/subscribe',
    ]) {
      const answer = await post(fetcher, method, {}, { id: method })
      expect(answer.status).toBe(404)
      expect(answer.response).toMatchObject({ id: method, error: { code: -32601 } })
    }
  })

  it('-32602 with 400 when _meta or one of its required fields is missing', async () => {
    for (const bad of [
      {},
      { 'io.modelcontextprotocol/clientCapabilities': {} },
      { 'io.modelcontextprotocol/protocolVersion': VERSION },
      {
        'io.modelcontextprotocol/protocolVersion': VERSION,
        'io.modelcontextprotocol/clientCapabilities': [],
      },
    ]) {
      const answer = await post(fetcher, 'server/discover', {}, { meta: bad })
      expect(answer.status).toBe(400)
      expect(errorOf(answer).code).toBe(-32602)
    }
  })

  it('serves a request without clientInfo', async () => {
    const bare = {
      'io.modelcontextprotocol/protocolVersion': VERSION,
      'io.modelcontextprotocol/clientCapabilities': {},
    }
    const answer = await post(fetcher, 'server/discover', {}, { meta: bare })
    expect(answer.status).toBe(200)
  })

  it('-32602 for an unknown log level and a malformed progress token', async () => {
    const level = await post(
      fetcher,
      'tools/list',
      {},
      { meta: meta({ 'io.modelcontextprotocol/logLevel': 'loud' }) },
    )
    expect([level.status, errorOf(level).code]).toEqual([400, -32602])
    const token = await post(fetcher, 'tools/list', {}, { meta: meta({ progressToken: { a: 1 } }) })
    expect([token.status, errorOf(token).code]).toEqual([400, -32602])
  })

  it('-32602 for an unknown tool (200: the envelope was fine)', async () => {
    const answer = await post(fetcher, 'tools/call', { name: 'nope', arguments: {} })
    expect(answer.status).toBe(200)
    expect(errorOf(answer)).toMatchObject({ code: -32602, message: 'Unknown tool: nope' })
  })

  it('-32602 for malformed tools/call params', async () => {
    const noName = await post(fetcher, 'tools/call', { arguments: {} }, { headers: { 'mcp-name': 'x' } })
    expect([noName.status, errorOf(noName).code]).toEqual([400, -32602])
    const badArgs = await post(fetcher, 'tools/call', { name: 'test_simple_text', arguments: [1] })
    expect([badArgs.status, errorOf(badArgs).code]).toEqual([400, -32602])
  })

  it('-32022 with 400, data.supported and data.requested, for an unsupported version', async () => {
    const answer = await post(
      fetcher,
      'server/discover',
      {},
      {
        meta: meta({ 'io.modelcontextprotocol/protocolVersion': '1900-01-01' }),
        headers: { 'mcp-protocol-version': '1900-01-01' },
      },
    )
    expect(answer.status).toBe(400)
    expect(errorOf(answer)).toMatchObject({
      code: -32022,
      data: { supported: [VERSION], requested: '1900-01-01' },
    })
  })

  it('with legacy: false, answers a legacy initialize (no _meta) naming the versions and what to do', async () => {
    const modernOnly = createFetchHandler(
      defineServer({ name: 'modern-only', version: '1.0.0', legacy: false, tools: [] }),
    )
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
    }
    const answer = await postRaw(modernOnly, JSON.stringify(body), json)
    expect(answer.status).toBe(400)
    expect(errorOf(answer)).toMatchObject({
      code: -32022,
      data: { supported: [VERSION], requested: '2025-11-25' },
    })
    expect(errorOf(answer).message).toBe(
      `Unsupported protocol version 2025-11-25: this server speaks only ${VERSION}; ` +
        'upgrade the client, or turn on its automatic version negotiation',
    )
  })

  it('-32020 with 400 when header and body versions differ, even if both are unsupported', async () => {
    const answer = await post(
      fetcher,
      'server/discover',
      {},
      { meta: meta({ 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' }) },
    )
    expect(answer.status).toBe(400)
    expect(errorOf(answer).code).toBe(-32020)
  })

  it('-32021 with 400 and data.requiredCapabilities for a missing client capability', async () => {
    const answer = await post(fetcher, 'tools/call', { name: 'test_missing_capability', arguments: {} })
    expect(answer.status).toBe(400)
    expect(errorOf(answer)).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } })
  })

  it('-32603 with a correlation id, and no internals, when a method handler crashes', async () => {
    const logged: string[] = []
    const server = defineServer({
      name: 'crash',
      version: '1',
      logger: { error: (m, d) => logged.push(`${m} ${JSON.stringify(d)}`), warn: () => {} },
      features: [
        {
          methods: {
            'tools/list': {
              handler: () => {
                throw new Error('secret database password in a stack')
              },
            },
          },
        },
      ],
    })
    const answer = await post(createFetchHandler(server), 'tools/list')
    expect(answer.status).toBe(200)
    const error = errorOf(answer)
    expect(error.code).toBe(-32603)
    expect(error.message).not.toContain('secret')
    const ref = (error.data as { correlationId: string }).correlationId
    expect(logged.join('\n')).toContain(ref)
    expect(logged.join('\n')).toContain('secret database password')
  })

  it('a deliberate McpError from a tool passes through with its code', async () => {
    const server = defineServer({
      name: 'deliberate',
      version: '1',
      tools: [
        defineTool({
          name: 'refuse',
          handler: () => {
            throw new McpError(-32602, 'Invalid params: refused on purpose')
          },
        }),
      ],
    })
    const answer = await post(createFetchHandler(server), 'tools/call', { name: 'refuse', arguments: {} })
    expect(errorOf(answer)).toMatchObject({ code: -32602, message: 'Invalid params: refused on purpose' })
  })

  it('202 with no body for a notification', async () => {
    const answer = await postRaw(
      fetcher,
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }),
      json,
    )
    expect(answer.status).toBe(202)
    expect(answer.text).toBe('')
  })

  it('405 for GET and DELETE, with Allow: POST', async () => {
    for (const method of ['GET', 'DELETE', 'PUT']) {
      const answer = await postRaw(fetcher, '', {}, 'http://127.0.0.1/mcp', method)
      expect(answer.status).toBe(405)
      expect(answer.headers.get('allow')).toBe('POST')
    }
  })

  it('413 for a body over the limit, declared or streamed', async () => {
    const small = createFetchHandler(createFixtureServer(), { maxBodyBytes: 1024 })
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { pad: 'x'.repeat(5000) },
    })
    const answer = await postRaw(small, big, json)
    expect(answer.status).toBe(413)
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big))
        controller.close()
      },
    })
    const response = await small(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: json,
        body: stream,
        duplex: 'half',
      } as RequestInit),
    )
    expect(response.status).toBe(413)
  })

  it('415 for a non-JSON content type and 406 for an Accept that allows neither JSON nor SSE', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } })
    const type = await postRaw(fetcher, body, {
      ...standardHeaders('tools/list', {}),
      'content-type': 'text/plain',
    })
    expect(type.status).toBe(415)
    const accept = await postRaw(fetcher, body, { ...standardHeaders('tools/list', {}), accept: 'text/html' })
    expect(accept.status).toBe(406)
    const any = await postRaw(fetcher, body, { ...standardHeaders('tools/list', {}), accept: '*/*' })
    expect(any.status).toBe(200)
  })

  it('reads an origin policy once, when the handler is made', async () => {
    const allowedHosts = ['mcp.example.com']
    const allowedOrigins = ['https://app.example.com']
    const guarded = createFetchHandler(createFixtureServer(), { allowedHosts, allowedOrigins })
    allowedHosts.push('evil.example.com')
    allowedOrigins.push('https://evil.example.com')
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } })
    const status = async (extra: Record<string, string>) =>
      (await postRaw(guarded, body, { ...standardHeaders('tools/list', {}), ...extra })).status
    expect(await status({ host: 'mcp.example.com' })).toBe(200)
    expect(await status({ host: 'evil.example.com' })).toBe(403)
    expect(await status({ host: 'mcp.example.com', origin: 'https://evil.example.com' })).toBe(403)
    expect(await status({ host: 'mcp.example.com', origin: 'https://app.example.com' })).toBe(200)
    expect(await status({ host: 'mcp.example.com', origin: 'https://evil.example.com' })).toBe(403)
  })

  it('takes a listed Host with a port, and nothing that only starts like one', async () => {
    const guarded = createFetchHandler(createFixtureServer(), { allowedHosts: ['mcp.example.com', '[::1]'] })
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } })
    const status = async (host: string) =>
      (await postRaw(guarded, body, { ...standardHeaders('tools/list', {}), host })).status
    for (const host of ['mcp.example.com', 'mcp.example.com:8443', 'MCP.Example.com:443', '[::1]:3000'])
      expect(await status(host), host).toBe(200)
    for (const host of [
      'mcp.example.com:443.evil.example',
      'mcp.example.com:',
      'mcp.example.com:80:80',
      'mcp.example.com:123456',
      'MCP.example.com:80.evil.example',
      'mcp.example.com.evil.example',
      'evil.mcp.example.com',
      '[::1]evil',
      '[::1]:80.evil.example',
    ])
      expect(await status(host), host).toBe(403)
  })

  it('takes every JSON media type as a body and refuses near misses (415)', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } })
    const status = async (type: string) =>
      (await postRaw(fetcher, body, { ...standardHeaders('tools/list', {}), 'content-type': type })).status
    for (const type of ['application/json', 'Application/JSON', 'application/json; charset=utf-8'])
      expect(await status(type), type).toBe(200)
    expect(await status('application/vnd.example+json')).toBe(200)
    for (const type of ['application/jsonl', 'application/xml', 'text/json', 'application/x-json5'])
      expect(await status(type), type).toBe(415)
  })

  it('keeps answering after every kind of error', async () => {
    expect(resultOf(await post(fetcher, 'tools/list')).resultType).toBe('complete')
  })
})
