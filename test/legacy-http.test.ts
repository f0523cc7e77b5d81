/**
 * 2025-era sessions over Streamable HTTP at the wire: sealed session ids any instance with the secret can
 * open, the revision's own result shapes, DELETE, 404 for unknown or ended sessions, the GET stream of
 * list changes, and the current revision unaffected by a stray `Mcp-Session-Id`.
 */
import { describe, expect, it } from 'vitest'
import {
  createFetchHandler,
  defineServer,
  defineTool,
  type HttpAuthenticator,
  type Server,
} from '../src/index.js'
import { meta, parseSse, standardHeaders } from './helpers/http.js'
import { byHeader } from './helpers/live.js'

type Fetcher = (request: Request) => Promise<Response>

const SECRET = 'legacy-http-test-secret-0123456789'
const echo = defineTool({ name: 'echo', handler: () => 'hi' })
const makeServer = (secret = SECRET, auth?: HttpAuthenticator): Server =>
  defineServer({
    name: 'legacy-http',
    version: '1.0.0',
    tools: [echo],
    requestState: { secret },
    ...(auth && { security: { auth } }),
  })

const URL = 'http://127.0.0.1/mcp'

function send(
  fetcher: Fetcher,
  body: unknown,
  headers: Record<string, string> = {},
  method = 'POST',
): Promise<Response> {
  return fetcher(
    new Request(URL, {
      method,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      ...(method === 'POST' && { body: JSON.stringify(body) }),
    }),
  )
}

async function initialize(
  fetcher: Fetcher,
  protocolVersion = '2025-11-25',
): Promise<{ sid: string; result: Record<string, unknown> }> {
  const response = await send(fetcher, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion, capabilities: { elicitation: {} }, clientInfo: { name: 'old', version: '1' } },
  })
  expect(response.status).toBe(200)
  const sid = response.headers.get('mcp-session-id')
  expect(sid).toMatch(/^[\x21-\x7e]+$/)
  const { result } = (await response.json()) as { result: Record<string, unknown> }
  return { sid: sid as string, result }
}

async function rpc(fetcher: Fetcher, sid: string, method: string, params: Record<string, unknown> = {}) {
  const response = await send(fetcher, { jsonrpc: '2.0', id: 1, method, params }, { 'mcp-session-id': sid })
  const text = await response.text()
  const body = response.headers.get('content-type')?.includes('event-stream')
    ? parseSse(text).at(-1)
    : text && JSON.parse(text)
  return { status: response.status, body: body as Record<string, unknown> }
}

describe('2025-era sessions over Streamable HTTP', () => {
  it('negotiates the version and answers initialize with a session id and 2025-era capabilities', async () => {
    const fetcher = createFetchHandler(makeServer())
    expect((await initialize(fetcher, '2025-06-18')).result.protocolVersion).toBe('2025-06-18')
    expect((await initialize(fetcher, '2025-03-26')).result.protocolVersion).toBe('2025-03-26')
    const { result } = await initialize(fetcher, '2024-11-05')
    expect(result).toEqual({
      protocolVersion: '2025-11-25',
      capabilities: { logging: {}, tools: { listChanged: true } },
      serverInfo: { name: 'legacy-http', version: '1.0.0' },
    })
    const bad = await send(fetcher, {
      jsonrpc: '2.0',
      id: 9,
      method: 'initialize',
      params: { capabilities: {} },
    })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ id: 9, error: { code: -32602 } })
  })

  it('answers in the 2025 shapes: no resultType, ttlMs, cacheScope or serverInfo _meta', async () => {
    const fetcher = createFetchHandler(makeServer())
    const { sid } = await initialize(fetcher)
    const list = await rpc(fetcher, sid, 'tools/list')
    expect(list.status).toBe(200)
    const result = list.body.result as Record<string, unknown>
    expect(Object.keys(result)).toEqual(['tools'])
    const call = await rpc(fetcher, sid, 'tools/call', { name: 'echo', arguments: {} })
    expect(call.body.result).toEqual({ content: [{ type: 'text', text: 'hi' }] })
    expect((await rpc(fetcher, sid, 'ping')).body).toEqual({ jsonrpc: '2.0', id: 1, result: {} })
    // Methods of the current revision only do not exist for a 2025 session.
    expect((await rpc(fetcher, sid, 'server/discover')).body).toMatchObject({ error: { code: -32601 } })
    const wrongVersion = await send(
      fetcher,
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' },
    )
    expect(wrongVersion.status).toBe(400)
  })

  it('keeps nothing per session: another instance with the same secret serves it, one without refuses it', async () => {
    const first = createFetchHandler(makeServer())
    const second = createFetchHandler(makeServer())
    const foreign = createFetchHandler(makeServer('another-secret-of-enough-length-42'))
    const { sid } = await initialize(first)
    expect((await rpc(second, sid, 'tools/call', { name: 'echo', arguments: {} })).body.result).toBeDefined()
    expect((await rpc(foreign, sid, 'ping')).status).toBe(404)
    // A character in the middle: all six of its bits are data. (The last characters of base64url may carry
    // unused bits, so changing them can decode to the same bytes; and 'BA' for an id ending in 'BA' is no change.)
    const middle = Math.floor(sid.length / 2)
    const tampered = `${sid.slice(0, middle)}${sid[middle] === 'A' ? 'B' : 'A'}${sid.slice(middle + 1)}`
    expect(tampered).not.toBe(sid)
    expect((await rpc(first, tampered, 'ping')).status).toBe(404)
  })

  it("binds the session to the principal that opened it: another user's request gets 404", async () => {
    const fetcher = createFetchHandler(makeServer(SECRET, byHeader))
    const response = await send(
      fetcher,
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {} },
      },
      { 'x-user': 'alice' },
    )
    const sid = response.headers.get('mcp-session-id') as string
    const ping = (user: string) =>
      send(fetcher, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': sid, 'x-user': user })
    expect((await ping('alice')).status).toBe(200)
    expect((await ping('mallory')).status).toBe(404)
    expect(
      (await send(fetcher, undefined, { 'mcp-session-id': sid, 'x-user': 'mallory' }, 'DELETE')).status,
    ).toBe(404)
    expect((await ping('alice')).status).toBe(200)
  })

  it('binds the session to the namespaced principal: a client token with a user id as subject gets 404', async () => {
    // A client-credentials token names a client, not a user (`authPrincipal`): same subject, other caller.
    const byKind: HttpAuthenticator = {
      authenticate: (request) => {
        const subject = request.header('x-user') as string
        const subjectKind = request.header('x-kind') === 'client' ? 'client' : 'user'
        return { ok: true, auth: { subject, subjectKind, scopes: [] } }
      },
    }
    const fetcher = createFetchHandler(makeServer(SECRET, byKind))
    const response = await send(
      fetcher,
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {} },
      },
      { 'x-user': 'alice' },
    )
    const sid = response.headers.get('mcp-session-id') as string
    const ping = (kind: string) =>
      send(
        fetcher,
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { 'mcp-session-id': sid, 'x-user': 'alice', 'x-kind': kind },
      )
    expect((await ping('user')).status).toBe(200)
    expect((await ping('client')).status).toBe(404)
  })

  it('DELETE ends the session: later POST and GET get 404', async () => {
    const fetcher = createFetchHandler(makeServer())
    const { sid } = await initialize(fetcher)
    expect((await send(fetcher, undefined, { 'mcp-session-id': sid }, 'DELETE')).status).toBe(200)
    const after = await rpc(fetcher, sid, 'ping')
    expect(after.status).toBe(404)
    expect(after.body).toMatchObject({ error: { code: -32001 } })
    expect((await send(fetcher, undefined, { 'mcp-session-id': sid }, 'GET')).status).toBe(404)
    // Without a session id, GET and DELETE stay 405 as for the current revision.
    expect((await send(fetcher, undefined, {}, 'GET')).status).toBe(405)
  })

  it('sends list changes on the GET stream of the session', async () => {
    const server = makeServer()
    const fetcher = createFetchHandler(server)
    const { sid } = await initialize(fetcher)
    const stream = await send(
      fetcher,
      undefined,
      { 'mcp-session-id': sid, accept: 'text/event-stream' },
      'GET',
    )
    expect(stream.status).toBe(200)
    expect(stream.headers.get('content-type')).toBe('text/event-stream')
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader()
    server.tools.add(defineTool({ name: 'later', handler: () => 'x' }))
    const decoder = new TextDecoder()
    let text = ''
    while (!text.includes('list_changed')) {
      const { value, done } = await reader.read()
      if (done) break
      text += decoder.decode(value)
    }
    expect(parseSse(text)).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }])
    await server.close()
    expect((await reader.read()).done).toBe(true)
  })

  it('serves a current-revision request that carries a stray Mcp-Session-Id as the current revision', async () => {
    const fetcher = createFetchHandler(makeServer())
    const params = { _meta: meta() }
    const response = await send(
      fetcher,
      { jsonrpc: '2.0', id: 3, method: 'tools/list', params },
      { ...standardHeaders('tools/list', params), 'mcp-session-id': 'not-a-session' },
    )
    expect(response.status).toBe(200)
    expect(((await response.json()) as { result: Record<string, unknown> }).result.resultType).toBe(
      'complete',
    )
  })
})
