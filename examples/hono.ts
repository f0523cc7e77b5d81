// toolwire in a Hono app, served on Node by @hono/node-server. The app is a fetch handler, so the same code
// runs on Workers, Bun and Deno.
import assert from 'node:assert/strict'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { createFetchHandler, defineServer, defineTool } from 'toolwire'
import { connect } from 'toolwire/client'

const server = defineServer({
  name: 'hono-app',
  version: '1.0.0',
  tools: [defineTool({ name: 'ping', handler: () => 'pong' })],
})

// #region mount
const handler = createFetchHandler(server)
const app = new Hono()
// c.env carries the connection (on Node, @hono/node-server's `incoming`): the handler learns the caller's
// address from it, and a loopback connection gets the loopback Host/Origin check against DNS rebinding.
app.all('/mcp', (c) => handler(c.req.raw, c.env))
app.get('/health', (c) => c.text('ok'))
// #endregion mount

const listener = await new Promise<{ port: number; close: () => void }>((resolve) => {
  const running = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) =>
    resolve({ port: info.port, close: () => running.close() }),
  )
})
const url = `http://127.0.0.1:${listener.port}`
const client = connect({ url: `${url}/mcp` })
assert.deepEqual((await client.callTool('ping', {})).content, [{ type: 'text', text: 'pong' }])
assert.equal(await (await fetch(`${url}/health`)).text(), 'ok')
await client.close()
server.close()
listener.close()
console.log('hono: ok')
