/**
 * The floor: a hand-written node:http / stdio JSON-RPC handler doing the same arithmetic with no
 * validation, no header checks and no `_meta` handling — what any MCP server costs at the least.
 *
 *   PORT=3000 TOOLS=1000 node bench/raw-server.mjs     HTTP on 127.0.0.1:PORT/mcp
 *   TOOLS=1 node bench/raw-server.mjs --stdio           stdio
 *   TELEMETRY=on PORT=3000 node bench/raw-server.mjs    HTTP, each request in an OpenTelemetry span and
 *                                                       measurement (bench/raw-telemetry.mjs; needs
 *                                                       `npm run build:bench`)
 */
import { createServer } from 'node:http'

const TOOLS = Math.max(1, Number(process.env.TOOLS ?? 1))

const tools = [
  {
    name: 'add',
    description: 'Adds two numbers.',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
    outputSchema: {
      type: 'object',
      properties: { sum: { type: 'number' } },
      required: ['sum'],
      additionalProperties: false,
    },
  },
]
for (let index = 1; index < TOOLS; index++) {
  tools.push({
    name: `tool_${String(index).padStart(4, '0')}`,
    description: `Filler tool number ${index}: echoes its text argument.`,
    inputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string', description: 'Text to echo' },
        times: { type: 'integer', minimum: 1, maximum: 10, description: 'Repetitions' },
      },
      required: ['text'],
      additionalProperties: false,
    },
  })
}
const byName = new Map(tools.map((tool) => [tool.name, tool]))

function answer(message) {
  const { id, method, params } = message
  if (method === 'tools/list') {
    return { jsonrpc: '2.0', id, result: { resultType: 'complete', tools } }
  }
  if (method === 'tools/call') {
    if (!byName.has(params.name)) {
      return { jsonrpc: '2.0', id, error: { code: -32602, message: `Unknown tool: ${params.name}` } }
    }
    const { a, b, text, times } = params.arguments ?? {}
    if (params.name !== 'add') {
      return {
        jsonrpc: '2.0',
        id,
        result: { resultType: 'complete', content: [{ type: 'text', text: text.repeat(times ?? 1) }] },
      }
    }
    const structured = { sum: a + b }
    return {
      jsonrpc: '2.0',
      id,
      result: {
        resultType: 'complete',
        content: [{ type: 'text', text: JSON.stringify(structured) }],
        structuredContent: structured,
      },
    }
  }
  return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }
}

/** `(message, socket) => reply`: the bare handler, or the same inside the floor's telemetry. */
const respond =
  process.env.TELEMETRY === 'on' ? (await import('./raw-telemetry.mjs')).instrument(answer) : answer

if (process.argv.includes('--stdio')) {
  let rest = ''
  process.stdin.setEncoding('utf8')
  process.stdin.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n')
    rest = lines.pop()
    let out = ''
    for (const line of lines) if (line) out += JSON.stringify(answer(JSON.parse(line))) + '\n'
    if (out) process.stdout.write(out)
  })
  process.stdin.on('end', () => process.exit(0))
} else {
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/mcp') {
      res.writeHead(404).end()
      return
    }
    const chunks = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString())
      const body = JSON.stringify(respond(message, req.socket))
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
      res.end(body)
    })
  })
  server.keepAliveTimeout = 65_000
  process.on('SIGINT', () => process.exit(0))
  process.on('SIGTERM', () => process.exit(0))
  server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
    console.log(`raw bench server (${TOOLS} tools) on http://127.0.0.1:${server.address().port}/mcp`)
  })
}
