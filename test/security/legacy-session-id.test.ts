/**
 * A 2025-era `Mcp-Session-Id` is opaque: a JWE (`dir` + `A256GCM`) whose key is derived from the shared
 * secret, so proxies that log the header learn nothing (no principal, no client capabilities), an altered
 * id opens nowhere, and every instance with the secret still serves the session.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterEach, describe, expect, it } from 'vitest'
import { createFetchHandler, defineServer, defineTool, type Server } from '../../src/index.js'
import { byHeader, live, type Live } from '../helpers/live.js'

const SECRET = 'legacy-session-id-secret-0123456789'

const makeServer = (secret = SECRET): Server =>
  defineServer({
    name: 'session-id',
    version: '1.0.0',
    requestState: { secret },
    security: { auth: byHeader, secretsFromEnv: false },
    tools: [defineTool({ name: 'whoami', handler: (_args, ctx) => ctx.auth?.subject ?? 'nobody' })],
  })

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const ALICE = { 'x-user': 'alice' }

const initializeBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: { roots: { listChanged: true }, elicitation: {} },
    clientInfo: { name: 'distinctive-client-name', version: '9.9.9' },
  },
})

async function initialize(fetcher: (request: Request) => Promise<Response>): Promise<string> {
  const response = await fetcher(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { ...HEADERS, ...ALICE },
      body: initializeBody,
    }),
  )
  expect(response.status).toBe(200)
  return response.headers.get('mcp-session-id') as string
}

async function ping(fetcher: (request: Request) => Promise<Response>, sid: string): Promise<number> {
  const response = await fetcher(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { ...HEADERS, ...ALICE, 'mcp-session-id': sid },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    }),
  )
  await response.text()
  return response.status
}

/** Everything a proxy could read out of the id: each part as text, base64url-decoded where it decodes. */
function readable(sid: string): string {
  return sid
    .split('.')
    .map((part) => Buffer.from(part, 'base64url').toString('latin1'))
    .join('\n')
}

describe('2025-era session ids', () => {
  let server: Live | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  it('carry neither the principal nor the client capabilities readably', async () => {
    const fetcher = createFetchHandler(makeServer(), { clientAddress: () => '192.0.2.1' })
    const sid = await initialize(fetcher)
    const visible = readable(sid) + sid
    for (const secret of ['alice', 'user:', 'distinctive-client-name', 'elicitation', 'roots', '2025-11-25'])
      expect(visible).not.toContain(secret)
    // A JWE in compact form: header, (empty) key, IV, ciphertext, tag; the header names dir + A256GCM.
    const parts = sid.split('.')
    expect(parts).toHaveLength(5)
    expect(parts[1]).toBe('')
    expect(JSON.parse(Buffer.from(parts[0] as string, 'base64url').toString())).toMatchObject({
      alg: 'dir',
      enc: 'A256GCM',
    })
    expect(sid.length).toBeLessThan(1024)
    expect(await ping(fetcher, sid)).toBe(200)
  })

  it('opens on every instance with the secret, never with another, never once altered', async () => {
    const first = createFetchHandler(makeServer(), { clientAddress: () => '192.0.2.1' })
    const second = createFetchHandler(makeServer(), { clientAddress: () => '192.0.2.1' })
    const stranger = createFetchHandler(makeServer('another-secret-entirely-0123456789'), {
      clientAddress: () => '192.0.2.1',
    })
    const sid = await initialize(first)
    expect(await ping(second, sid)).toBe(200)
    expect(await ping(stranger, sid)).toBe(404)
    const parts = sid.split('.')
    const ciphertext = parts[3] as string
    const flipped = (ciphertext[0] === 'A' ? 'B' : 'A') + ciphertext.slice(1)
    expect(await ping(first, [parts[0], parts[1], parts[2], flipped, parts[4]].join('.'))).toBe(404)
  })

  it('serves the official SDK v1 client through a whole session', async () => {
    server = await live(makeServer())
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: ALICE },
    })
    const client = new Client({ name: 'sdk-v1', version: '1.0.0' })
    await client.connect(transport)
    expect(transport.sessionId?.split('.')).toHaveLength(5)
    expect(readable(transport.sessionId as string)).not.toContain('alice')
    const result = (await client.callTool({ name: 'whoami', arguments: {} })) as {
      content: { text: string }[]
    }
    expect(result.content[0]?.text).toBe('alice')
    await transport.terminateSession()
    await client.close()
  })
})
