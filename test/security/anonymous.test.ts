/**
 * Anonymous callers are told apart by address: handle quotas per address over real sockets (a connection
 * from 127.0.0.2 is another address on Linux), and per-address request limits behind `createFetchHandler`
 * through its `clientAddress` hook.
 */
import { request as httpRequest } from 'node:http'
import { afterAll, describe, expect, it } from 'vitest'
import {
  createFetchHandler,
  defineHandles,
  defineServer,
  defineTool,
  MemoryHandleStore,
  type Server,
} from '../../src/index.js'
import { meta, post, standardHeaders } from '../helpers/http.js'
import { type Live, live, memoryLogger } from '../helpers/live.js'

const boxes = defineHandles<number>({
  kind: 'box',
  createTool: 'box_open',
  store: new MemoryHandleStore({ maxPerOwner: 2 }),
})
const open = defineTool({ name: 'box_open', handler: (_args, ctx) => boxes.create(ctx, 1) })
afterAll(() => boxes.store.close())

/** A tools/call sent from a chosen local address; resolves with the parsed JSON-RPC answer. */
function callFrom(
  mcp: Live,
  from: string,
): Promise<{ result?: { isError?: boolean; content: { text: string }[] } }> {
  const url = new URL(mcp.url)
  const params = { name: 'box_open', arguments: {} }
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { _meta: meta(), ...params },
  })
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress: from,
        headers: standardHeaders('tools/call', params),
      },
      (res) => {
        let text = ''
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')))
        res.on('end', () => resolve(JSON.parse(text) as never))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

describe('anonymous callers by address', () => {
  it('gives each address its own handle quota: one address filling it locks out no one else', async () => {
    const mcp = await live(defineServer({ name: 'boxes', version: '1.0.0', tools: [open] }))
    try {
      for (let i = 0; i < 2; i++) expect((await callFrom(mcp, '127.0.0.1')).result?.isError).toBeUndefined()
      const full = await callFrom(mcp, '127.0.0.1')
      expect(full.result?.isError).toBe(true)
      expect((await callFrom(mcp, '127.0.0.2')).result?.isError).toBeUndefined()
      expect((await callFrom(mcp, '127.0.0.3')).result?.isError).toBeUndefined()
    } finally {
      await mcp.close()
    }
  })

  it('createFetchHandler counts anonymous callers by clientAddress, and says so when it has none', async () => {
    const make = (logger = memoryLogger()): Server =>
      defineServer({
        name: 'limited',
        version: '1.0.0',
        tools: [open],
        logger,
        security: { rateLimit: { requests: { points: 2, durationMs: 60_000 } } },
      })
    // A trusted proxy in front sets the header; never trust one a client could set itself.
    const handler = createFetchHandler(make(), {
      clientAddress: (request) => request.headers.get('x-test-client') ?? undefined,
    })
    const list = (who: string) =>
      post(handler, 'tools/list', {}, { headers: { 'x-test-client': who } }).then((answer) => answer.status)
    expect([await list('203.0.113.1'), await list('203.0.113.1'), await list('203.0.113.1')]).toEqual([
      200, 200, 429,
    ])
    expect(await list('203.0.113.2')).toBe(200)
    expect(await list('2001:db8:1:2::1')).toBe(200)
    expect(await list('2001:db8:1:2::99')).toBe(200)
    expect(await list('2001:db8:1:2:ffff::1')).toBe(429) // the same /64

    // In-process use (the request alone, as a client's `fetch` calls it) is one caller: no warning.
    const logger = memoryLogger()
    const warnings = () => logger.lines.filter((line) => line.includes('has no clientAddress'))
    const unaddressed = createFetchHandler(make(logger))
    expect(await post(unaddressed, 'tools/list').then((answer) => answer.status)).toBe(200)
    expect(warnings()).toHaveLength(0)
    // Served by a runtime (a second argument: Workers' env, Deno's info, Bun's server): said once.
    const served = (request: Request) => unaddressed(request, { runtime: 'test' })
    expect((await post(served, 'tools/list')).status).toBe(200)
    expect(warnings()).toHaveLength(1)
    expect((await post(served, 'tools/list')).status).toBe(429) // the one shared budget the warning names
    expect(warnings()).toHaveLength(1)
    // Once per process: another handler built the same way stays silent.
    const again = createFetchHandler(make(logger))
    expect((await post((request) => again(request, {}), 'tools/list')).status).toBe(200)
    expect(warnings()).toHaveLength(1)
  })
})
