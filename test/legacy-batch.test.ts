/**
 * JSON-RPC batches in 2025-era sessions: a session negotiated at 2025-03-26 gets them answered as that
 * revision says (basic/transports §Sending Messages to the Server: an array of responses, or an SSE stream
 * carrying them once something streams; 202 for notifications and responses alone); later revisions keep
 * refusing them. A batch holds at most `legacy.maxBatchLength` messages.
 */
import { describe, expect, it } from 'vitest'
import { createFetchHandler, defineServer, defineTool, type Server } from '../src/index.js'
import { parseSse } from './helpers/http.js'
import { MiB, startProbe } from './helpers/legacy-probe.js'

const makeServer = (): Server =>
  defineServer({
    name: 'legacy-batch',
    version: '1.0.0',
    requestState: { secret: 'legacy-batch-secret-0123456789' },
    security: { rateLimit: false, secretsFromEnv: false },
    legacy: { maxBatchLength: 8 },
    tools: [
      defineTool({ name: 'echo', handler: () => 'hi' }),
      defineTool({
        name: 'counts',
        handler: (_args, ctx) => {
          ctx.progress(1, 2)
          return 'counted'
        },
      }),
    ],
  })

type Fetcher = (request: Request) => Promise<Response>
const URL = 'http://127.0.0.1/mcp'
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

const handler = (): Fetcher => createFetchHandler(makeServer(), { clientAddress: () => '192.0.2.9' })

async function open(fetcher: Fetcher, protocolVersion: string): Promise<string> {
  const response = await fetcher(
    new Request(URL, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion, capabilities: {}, clientInfo: { name: 'batcher', version: '1' } },
      }),
    }),
  )
  const { result } = (await response.json()) as { result: { protocolVersion: string } }
  expect(result.protocolVersion).toBe(protocolVersion)
  return response.headers.get('mcp-session-id') as string
}

const post = (fetcher: Fetcher, sid: string, body: unknown): Promise<Response> =>
  fetcher(
    new Request(URL, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-session-id': sid },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  )

type Message = { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } }
const byId = (messages: Message[]): Message[] =>
  [...messages].sort((a, b) => String(a.id).localeCompare(String(b.id)))

describe('JSON-RPC batches of 2025-era sessions', () => {
  it('answers a 2025-03-26 batch with an array of responses, one per request', async () => {
    const fetcher = handler()
    const sid = await open(fetcher, '2025-03-26')
    const response = await post(fetcher, sid, [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: {} } },
      { jsonrpc: '2.0', id: 4, method: 'no/such/method' },
      { jsonrpc: '2.0', id: 5, method: 'initialize', params: {} },
      'not a message',
    ])
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/application\/json/)
    const answers = byId((await response.json()) as Message[])
    expect(answers.map((answer) => answer.id)).toEqual([1, 2, 3, 4, 5, undefined])
    expect(answers[0]?.result).toEqual({})
    expect((answers[1]?.result?.tools as unknown[]).length).toBe(2)
    expect(answers[2]?.result?.content).toEqual([{ type: 'text', text: 'hi' }])
    expect(answers[3]?.error?.code).toBe(-32601)
    expect(answers[4]?.error?.message).toMatch(/must not be part of a batch/)
    expect(answers[5]?.error?.code).toBe(-32600)
  })

  it('answers with 202 when a batch holds only notifications and responses', async () => {
    const fetcher = handler()
    const sid = await open(fetcher, '2025-03-26')
    const response = await post(fetcher, sid, [
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 'x.1', result: {} },
    ])
    expect(response.status).toBe(202)
  })

  it('streams the responses as SSE events once an element streams', async () => {
    const fetcher = handler()
    const sid = await open(fetcher, '2025-03-26')
    const response = await post(fetcher, sid, [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'counts', arguments: {}, _meta: { progressToken: 'p' } },
      },
    ])
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/)
    const events = parseSse(await response.text()) as (Message & { method?: string })[]
    expect(events.find((event) => event.method === 'notifications/progress')).toBeDefined()
    const answers = byId(events.filter((event) => event.id !== undefined))
    expect(answers.map((answer) => answer.id)).toEqual([1, 2])
    expect(answers[1]?.result?.content).toEqual([{ type: 'text', text: 'counted' }])
  })

  it.each(['2025-06-18', '2025-11-25'])('keeps refusing batches in %s sessions', async (version) => {
    const fetcher = handler()
    const sid = await open(fetcher, version)
    const response = await post(fetcher, sid, [{ jsonrpc: '2.0', id: 1, method: 'ping' }])
    expect(response.status).toBe(400)
    const { error } = (await response.json()) as Message
    expect(error?.code).toBe(-32600)
    expect(error?.message).toMatch(/Batch requests are not supported/)
  })

  it('refuses an empty batch and one over maxBatchLength', async () => {
    const fetcher = handler()
    const sid = await open(fetcher, '2025-03-26')
    const empty = await post(fetcher, sid, [])
    expect(empty.status).toBe(400)
    expect(((await empty.json()) as Message).error?.code).toBe(-32600)
    const pings = Array.from({ length: 9 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'ping' }))
    const over = await post(fetcher, sid, pings)
    expect(over.status).toBe(400)
    expect(((await over.json()) as Message).error?.message).toMatch(/at most 8 messages/)
  })

  it('holds no memory for batches past the default maxBatchLength', { timeout: 120_000 }, async () => {
    const probe = await startProbe()
    try {
      const response = await fetch(probe.url, {
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: '2025-03-26',
            capabilities: {},
            clientInfo: { name: 'b', version: '1' },
          },
        }),
      })
      await response.text()
      const sid = response.headers.get('mcp-session-id') as string
      const before = await probe.held()
      // 2.4 MB bodies of 30 000 tools/call each: refused before any of them runs.
      const calls = Array.from({ length: 30_000 }, (_, id) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'echo', arguments: {} },
      }))
      const body = JSON.stringify(calls)
      for (let i = 0; i < 4; i++) {
        const refused = await fetch(probe.url, {
          method: 'POST',
          headers: { ...HEADERS, 'mcp-session-id': sid },
          body,
        })
        expect(refused.status).toBe(400)
        expect(((await refused.json()) as Message).error?.message).toMatch(/at most 64 messages/)
      }
      const grown = (await probe.held()) - before
      expect(grown, `grew ${grown} bytes`).toBeLessThan(4 * MiB)
    } finally {
      await probe.stop()
    }
  })
})
