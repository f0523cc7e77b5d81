/**
 * Standard headers and Mcp-Param-* against the body (streamable-http §Standard Request Headers, §Custom
 * Headers from Tool Parameters, §Server Validation).
 */
import { describe, expect, it } from 'vitest'
import { createFetchHandler, defineServer, defineTool, jsonSchema } from '../src/index.js'
import { connect } from '../src/client/index.js'
import { errorOf, post, resultOf } from './helpers/http.js'
import { recordingFetch } from './helpers/recording-fetch.js'

const server = defineServer({
  name: 'headers',
  version: '1',
  tools: [
    defineTool({
      name: 'query',
      inputSchema: jsonSchema<{
        region?: string | null
        limit?: number
        dry?: boolean
        nested?: { tenant?: string }
      }>({
        type: 'object',
        properties: {
          region: { type: ['string', 'null'], 'x-mcp-header': 'Region' },
          limit: { type: 'integer', 'x-mcp-header': 'Limit' },
          dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
          nested: { type: 'object', properties: { tenant: { type: 'string', 'x-mcp-header': 'Tenant' } } },
        },
      }),
      handler: (args) => JSON.stringify(args),
    }),
    defineTool({ name: 'plain', handler: () => 'plain' }),
  ],
})
const fetcher = createFetchHandler(server)
const call = (args: Record<string, unknown>, headers: Record<string, string | undefined> = {}) =>
  post(fetcher, 'tools/call', { name: 'query', arguments: args }, { headers })

describe('standard request headers', () => {
  it('requires MCP-Protocol-Version, Mcp-Method and (for tools/call) Mcp-Name', async () => {
    for (const missing of ['mcp-protocol-version', 'mcp-method', 'mcp-name']) {
      const answer = await post(
        fetcher,
        'tools/call',
        { name: 'plain', arguments: {} },
        { headers: { [missing]: undefined } },
      )
      expect(answer.status, missing).toBe(400)
      expect(errorOf(answer).code, missing).toBe(-32020)
    }
  })

  it('compares header names case-insensitively and values case-sensitively', async () => {
    const ok = await post(
      fetcher,
      'tools/list',
      {},
      {
        rawHeaders: {
          'Content-Type': 'application/json',
          'MCP-PROTOCOL-VERSION': '2026-07-28',
          'mCp-MeThOd': 'tools/list',
        },
      },
    )
    expect(ok.status).toBe(200)
    const wrongCase = await post(fetcher, 'tools/list', {}, { headers: { 'mcp-method': 'TOOLS/LIST' } })
    expect([wrongCase.status, errorOf(wrongCase).code]).toEqual([400, -32020])
  })

  it('rejects an Mcp-Method or Mcp-Name that differs from the body', async () => {
    const method = await post(fetcher, 'tools/list', {}, { headers: { 'mcp-method': 'tools/call' } })
    expect([method.status, errorOf(method).code]).toEqual([400, -32020])
    const name = await post(
      fetcher,
      'tools/call',
      { name: 'plain', arguments: {} },
      { headers: { 'mcp-name': 'query' } },
    )
    expect([name.status, errorOf(name).code]).toEqual([400, -32020])
    expect(errorOf(name).message).toContain("'query'")
  })

  it('trims any whitespace around the standard headers, and only around them', async () => {
    // fetch's Headers drop spaces and tabs at the ends themselves; a no-break space reaches the server.
    const nbsp = '\u00a0'
    const padded = await post(
      fetcher,
      'tools/call',
      { name: 'plain', arguments: {} },
      {
        headers: {
          'mcp-protocol-version': `${nbsp}2026-07-28`,
          'mcp-method': `tools/call${nbsp}`,
          'mcp-name': `${nbsp}plain${nbsp}`,
        },
      },
    )
    expect(padded.status).toBe(200)
    const inner = await post(fetcher, 'tools/list', {}, { headers: { 'mcp-method': `tools/${nbsp}list` } })
    expect([inner.status, errorOf(inner).code]).toEqual([400, -32020])
  })

  it('accepts whitespace around Mcp-Name and a Base64-encoded Mcp-Name', async () => {
    const padded = await post(
      fetcher,
      'tools/call',
      { name: 'plain', arguments: {} },
      { headers: { 'mcp-name': '  plain ' } },
    )
    expect(padded.status).toBe(200)
    const encoded = await post(
      fetcher,
      'tools/call',
      { name: 'plain', arguments: {} },
      {
        headers: { 'mcp-name': `=?base64?${btoa('plain')}?=` },
      },
    )
    expect(encoded.status).toBe(200)
    const broken = await post(
      fetcher,
      'tools/call',
      { name: 'plain', arguments: {} },
      {
        headers: { 'mcp-name': '=?base64?cGxhaW4?=' },
      },
    )
    expect([broken.status, errorOf(broken).code]).toEqual([400, -32020])
  })

  it('checks the version header against _meta before the version is judged', async () => {
    const answer = await post(
      fetcher,
      'tools/list',
      {},
      { headers: { 'mcp-protocol-version': '2025-11-25' } },
    )
    expect([answer.status, errorOf(answer).code]).toEqual([400, -32020])
  })

  it('checks the tool exists before its Mcp-Param headers', async () => {
    const answer = await post(fetcher, 'tools/call', { name: 'ghost', arguments: { region: 'x' } })
    expect(errorOf(answer)).toMatchObject({ code: -32602, message: 'Unknown tool: ghost' })
  })
})

describe('Mcp-Param-* headers', () => {
  it('accepts matching plain values for string, integer and boolean', async () => {
    const answer = await call(
      { region: 'us-west1', limit: 42, dry: true, nested: { tenant: 'acme' } },
      {
        'mcp-param-region': 'us-west1',
        'mcp-param-limit': '42',
        'mcp-param-dry-run': 'true',
        'mcp-param-tenant': 'acme',
      },
    )
    expect(answer.status).toBe(200)
    expect(resultOf(answer).isError).toBeUndefined()
  })

  it('compares integers numerically (42.0 == 42)', async () => {
    expect((await call({ limit: 42 }, { 'mcp-param-limit': '42.0' })).status).toBe(200)
    expect((await call({ limit: 42 }, { 'mcp-param-limit': '43' })).status).toBe(400)
    expect((await call({ limit: 42 }, { 'mcp-param-limit': 'forty-two' })).status).toBe(400)
  })

  it('refuses body integers outside ±(2^53−1) even when the header repeats them', async () => {
    for (const [limit, header] of [
      [9007199254740992, '9007199254740992'], // what 9007199254740993 parses to
      [1e21, '1e21'],
      [-9007199254740992, '-9007199254740992'],
    ] as const) {
      const answer = await call({ limit }, { 'mcp-param-limit': header })
      expect(answer.status).toBe(400)
      expect(errorOf(answer)).toMatchObject({ code: -32020 })
      expect(errorOf(answer).message).toMatch(/outside the range x-mcp-header integers allow/)
    }
    const edge = await call({ limit: 9007199254740991 }, { 'mcp-param-limit': '9007199254740991' })
    expect(edge.status).toBe(200)
  })

  it('makes the client send safe integers as plain decimals and refuse the rest before sending', async () => {
    const recorder = recordingFetch(fetcher)
    const client = connect({ url: 'http://127.0.0.1/mcp', fetch: recorder.fetch })
    await client.callTool('query', { limit: Number.MAX_SAFE_INTEGER })
    expect(recorder.requests.at(-1)!.headers.get('mcp-param-limit')).toBe('9007199254740991')
    await client.callTool('query', { limit: -7 })
    expect(recorder.requests.at(-1)!.headers.get('mcp-param-limit')).toBe('-7')
    const sent = recorder.requests.length
    await expect(client.callTool('query', { limit: 1e21 })).rejects.toThrow(
      /limit = 1e\+21 is outside the range x-mcp-header integers allow/,
    )
    expect(recorder.requests.length).toBe(sent)
  })

  it('decodes Base64 values before comparing (encoding table rows)', async () => {
    const rows: [string, string][] = [
      ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
      [' padded ', '=?base64?IHBhZGRlZCA=?='],
      ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
      ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
      ['日本語', '=?base64?5pel5pys6Kqe?='],
      ['line1\r\nline2', '=?base64?bGluZTENCmxpbmUy?='],
      ['\tindented', '=?base64?CWluZGVudGVk?='],
    ]
    for (const [value, header] of rows) {
      const answer = await call({ region: value }, { 'mcp-param-region': header })
      expect(answer.status, value).toBe(200)
    }
  })

  it('treats values without the exact sentinel as literals', async () => {
    for (const literal of ['=?base64?SGVsbG8=', 'SGVsbG8=?=', '=?BASE64?SGVsbG8=?=']) {
      expect((await call({ region: literal }, { 'mcp-param-region': literal })).status, literal).toBe(200)
    }
  })

  it('rejects bad Base64 padding, bad characters and non-UTF-8 payloads with 400/-32020', async () => {
    for (const bad of ['=?base64?SGVsbG8?=', '=?base64?SGV$bG8=?=', '=?base64?/w==?=']) {
      const answer = await call({ region: 'Hello' }, { 'mcp-param-region': bad })
      expect([answer.status, errorOf(answer).code], bad).toEqual([400, -32020])
    }
  })

  it('requires the header when the body has the value, and refuses it when the value is absent or null', async () => {
    const missing = await call({ region: 'eu' })
    expect([missing.status, errorOf(missing).code]).toEqual([400, -32020])
    const extra = await call({}, { 'mcp-param-region': 'eu' })
    expect([extra.status, errorOf(extra).code]).toEqual([400, -32020])
    const nullValue = await call({ region: null })
    expect(nullValue.status).toBe(200)
    const nullWithHeader = await call({ region: null }, { 'mcp-param-region': 'eu' })
    expect(nullWithHeader.status).toBe(400)
  })

  it('rejects a mismatch and ignores unrelated Mcp-Param headers', async () => {
    const mismatch = await call({ region: 'eu' }, { 'mcp-param-region': 'us' })
    expect([mismatch.status, errorOf(mismatch).code]).toEqual([400, -32020])
    const unrelated = await call({}, { 'mcp-param-other': 'whatever' })
    expect(unrelated.status).toBe(200)
  })

  it('leaves a value of the wrong type to argument validation', async () => {
    const answer = await call({ region: { not: 'a string' } })
    expect(answer.status).toBe(200)
    expect(resultOf(answer)).toMatchObject({ isError: true })
  })
})
