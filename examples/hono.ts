// toolwire in a Hono app. The app is a fetch handler, so the same code runs on Workers, Bun, Deno and Node;
// here the client calls app.fetch in-process.
import assert from 'node:assert/strict'
import { Hono } from 'hono'
import { createFetchHandler, defineServer, defineTool } from 'toolwire'
import { connect } from 'toolwire/client'

const server = defineServer({
  name: 'hono-app',
  version: '1.0.0',
  tools: [defineTool({ name: 'ping', handler: () => 'pong' })],
})

// #region mount
const handler = createFetchHandler(server, {
  // Who is calling, so anonymous callers are counted apart (on Workers: the cf-connecting-ip header).
  clientAddress: (request) => request.headers.get('cf-connecting-ip') ?? undefined,
})
const app = new Hono()
app.all('/mcp', (c) => handler(c.req.raw))
app.get('/health', (c) => c.text('ok'))
// #endregion mount

const client = connect({
  url: 'http://localhost/mcp',
  fetch: async (request) => {
    request.headers.set('cf-connecting-ip', '203.0.113.7')
    return app.fetch(request)
  },
})
assert.deepEqual((await client.callTool('ping', {})).content, [{ type: 'text', text: 'pong' }])
assert.equal(await (await app.fetch(new Request('http://localhost/health'))).text(), 'ok')
await client.close()
console.log('hono: ok')
