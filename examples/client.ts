// The client: serve examples/server.ts on a free port, list its tools, call one, check the answer.
import assert from 'node:assert/strict'
import { connect } from 'toolwire/client'
import { serveNode } from 'toolwire/node'
import server from './server.js'

const running = await serveNode(server, { port: 0 }) // 127.0.0.1 by default; 0 picks a free port

// #region client
const client = connect({ url: running.url })

const { supportedVersions } = await client.discover()
const { tools } = await client.listTools() // cached by ttlMs; private lists per credential
const result = await client.callTool(
  'add',
  { a: 2, b: 3 },
  { timeoutMs: 10_000, onProgress: ({ progress, total }) => console.log(progress, total) },
)
console.log(result.structuredContent) // { sum: 5 }, checked against the tool's outputSchema
await client.close()
// #endregion client

assert.ok(supportedVersions.includes('2026-07-28'))
assert.deepEqual(
  tools.map((tool) => tool.name),
  ['add'],
)
assert.deepEqual(result.structuredContent, { sum: 5 })
await running.close()
console.log('client: ok')
