import { spawn } from 'node:child_process'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
const decline = process.argv.includes('--decline')
const nocap = process.argv.includes('--nocap')
async function client(transport) {
  const c = new Client({ name: 'c', version: '1' }, { capabilities: nocap ? {} : { sampling: {}, elicitation: { form: {} }, roots: {} } })
  if (!nocap) {
  c.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'Paris' } }))
  c.setRequestHandler(ElicitRequestSchema, async () => decline ? { action: 'decline' } : ({ action: 'accept', content: { ok: true } }))
  c.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///a' }] }))
  }
  await c.connect(transport)
  return c
}
async function run(c, label) {
  for (const name of ['ask_model', 'confirm', 'list_roots']) {
    try { console.log(label, name, JSON.stringify(await c.callTool({ name, arguments: {} }))) } catch (e) { console.log(label, name, 'ERR', e.code, e.message, JSON.stringify(e.data)) }
  }
}
const direct = await client(new StdioClientTransport({ command: 'node', args: ['test/fixtures/sdk-v1-asking-server.mjs'] }))
await run(direct, 'direct'); await direct.close()
const child = spawn('node', ['dist/cli/main.js', 'bridge', '--http', '127.0.0.1:0', '--', 'node', 'test/fixtures/sdk-v1-asking-server.mjs'], { stdio: ['ignore', 'pipe', 'inherit'] })
const url = await new Promise((r) => child.stdout.once('data', (d) => r(String(d).trim())))
const b = await client(new StreamableHTTPClientTransport(new URL(url)))
await run(b, 'bridge'); await b.close(); child.kill()
