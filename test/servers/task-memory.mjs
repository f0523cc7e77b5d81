/**
 * Measures what one caller's tasks cost a server's heap, by counting, in a process of its own:
 * `node --expose-gc task-memory.mjs <scenario>` prints one JSON line with the heap before and after (each
 * after a full GC) and how every creation was answered. Scenarios:
 *   quick    100 tasks with 1 MB arguments that finish at once, each awaited
 *   waiting  60 tasks with 1 MB arguments that keep running
 *   stored   1010 small tasks that finish at once, each awaited
 * Uses the built package (dist/), as an application would.
 */
import { createFetchHandler, defineServer, defineTool } from '../../dist/index.js'

const scenario = process.argv[2] ?? 'quick'
const VERSION = '2026-07-28'
const meta = {
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'task-memory', version: '0.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
}

const BLOB = { type: 'object', properties: { blob: { type: 'string' } } }
const server = defineServer({
  name: 'task-memory',
  version: '1.0.0',
  logger: { error: () => {}, warn: () => {} },
  security: { rateLimit: false },
  tools: [
    defineTool({
      name: 'quick',
      task: 'optional',
      inputSchema: BLOB,
      handler: (args) => `got ${String(args.blob).length}`,
    }),
    defineTool({
      name: 'slow',
      task: 'optional',
      inputSchema: BLOB,
      handler: (_args, ctx) =>
        new Promise((resolve) =>
          ctx.signal.addEventListener('abort', () => resolve('stopped'), { once: true }),
        ),
    }),
  ],
})
const handler = createFetchHandler(server)

let id = 1
async function rpc(method, params) {
  const name = params.name ?? params.taskId
  const response = await handler(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': VERSION,
        'mcp-method': method,
        'mcp-name': name,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params: { _meta: meta, ...params } }),
    }),
  )
  return { status: response.status, body: await response.json() }
}

async function finished(taskId) {
  for (;;) {
    const { body } = await rpc('tasks/get', { taskId })
    const status = body.result?.status
    if (status !== 'working' && status !== 'input_required') return status
    await new Promise((resolve) => setImmediate(resolve))
  }
}

function heap() {
  globalThis.gc()
  globalThis.gc()
  return process.memoryUsage().heapUsed
}

const plans = {
  quick: { tool: 'quick', count: 100, bytes: 1_000_000, wait: true },
  waiting: { tool: 'slow', count: 60, bytes: 1_000_000, wait: false },
  stored: { tool: 'quick', count: 1010, bytes: 100, wait: true },
}
const plan = plans[scenario]
// Warm up every path once (module loading, validators) so the baseline holds what any server holds.
await finished((await rpc('tools/call', { name: 'quick', arguments: { blob: 'w' } })).body.result.taskId)
const before = heap()
const outcomes = {}
let firstRefusal
for (let i = 0; i < plan.count; i++) {
  const blob = String(i % 10).repeat(plan.bytes)
  const { status, body } = await rpc('tools/call', { name: plan.tool, arguments: { blob } })
  const taskId = body.result?.taskId
  const outcome = taskId ? 'created' : `${status} ${body.error?.code}`
  outcomes[outcome] = (outcomes[outcome] ?? 0) + 1
  if (!taskId) firstRefusal ??= { index: i, status, error: body.error }
  if (taskId && plan.wait) await finished(taskId)
}
const after = heap()
process.stdout.write(`${JSON.stringify({ scenario, before, after, outcomes, firstRefusal })}\n`)
await server.close()
process.exit(0)
