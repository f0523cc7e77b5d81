// toolwire mounted in an Express 5 app, beside the app's own routes and body parser.
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { defineServer, defineTool } from 'toolwire'
import { connect } from 'toolwire/client'
import { createNodeHandler } from 'toolwire/node'

const server = defineServer({
  name: 'express-app',
  version: '1.0.0',
  tools: [defineTool({ name: 'ping', handler: () => 'pong' })],
})

// #region mount
const app = express()
app.use(express.json()) // toolwire reads req.body when a body parser consumed the stream first
app.all('/mcp', createNodeHandler(server))
app.get('/health', (_req, res) => void res.send('ok'))
// #endregion mount

const listener = app.listen(0, '127.0.0.1')
await new Promise<void>((resolve) => listener.once('listening', () => resolve()))
const { port } = listener.address() as AddressInfo

const client = connect({ url: `http://127.0.0.1:${port}/mcp` })
assert.deepEqual((await client.callTool('ping', {})).content, [{ type: 'text', text: 'pong' }])
await client.close()
server.close()
await new Promise<void>((resolve) => {
  listener.close(() => resolve())
  listener.closeAllConnections()
})
console.log('express: ok')
