// The raw node:http floor for the listen-stream benchmark (bench/listen.ts): the least a server can do to hold
// SSE streams open and tell each of them about a change. No MCP checks, no limits, no keep-alive timer.
import { createServer } from 'node:http'

const ACK = 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged"}\n\n'
const CHANGED = 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n'
const streams = new Set()

const server = createServer((req, res) => {
  let body = ''
  req.setEncoding('utf8')
  req.on('data', (chunk) => (body += chunk))
  req.on('end', () => {
    const message = JSON.parse(body)
    if (message.method === 'tools/call') {
      for (const stream of streams) stream.write(CHANGED)
      const result = { jsonrpc: '2.0', id: message.id, result: { content: [] } }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result))
      return
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write(ACK)
    streams.add(res)
    res.on('close', () => streams.delete(res))
  })
})
server.maxConnections = Number(process.env.STREAMS ?? '10000') + 64
server.listen(0, '127.0.0.1', () =>
  console.log(`raw listen floor on http://127.0.0.1:${server.address().port}/mcp`),
)

process.on('message', async (message) => {
  // bench/listen-memory.mjs: a heap snapshot (taken after a full collection) written where it asks.
  if (typeof message === 'object' && typeof message.snapshot === 'string') {
    const { writeHeapSnapshot } = await import('node:v8')
    writeHeapSnapshot(message.snapshot)
    process.send?.({ written: message.snapshot })
    return
  }
  if (message !== 'memory') return
  globalThis.gc?.()
  globalThis.gc?.()
  const usage = process.memoryUsage()
  process.send?.({ rss: usage.rss, heap: usage.heapUsed + usage.external + usage.arrayBuffers })
})
