// A 2025-era server for the bounds tests, run in its own process with --expose-gc so a test can count the
// bytes it holds: `GET /heap` collects garbage and answers with process.memoryUsage(). Options come as
// JSON in PROBE_OPTIONS (the server's `legacy` and `security` options, and the HTTP options of serveNode).
import { defineResource, defineResourceTemplate, defineServer, defineTool } from '../../src/index.js'
import { serveNode } from '../../src/transports/http/node.js'

interface ProbeOptions {
  legacy?: Record<string, number>
  rateLimit?: false | { requests: { points: number; durationMs: number } }
  http?: Record<string, number>
}

const options = JSON.parse(process.env.PROBE_OPTIONS ?? '{}') as ProbeOptions
const collect = (globalThis as { gc?: () => void }).gc
if (!collect) throw new Error('run with --expose-gc')

const server = defineServer({
  name: 'legacy-probe',
  version: '1.0.0',
  requestState: { secret: 'legacy-probe-secret-0123456789abcdef' },
  ...(options.legacy && { legacy: options.legacy }),
  security: { rateLimit: options.rateLimit ?? false, secretsFromEnv: false },
  tools: [defineTool({ name: 'echo', handler: () => 'hi' })],
  resources: [
    defineResource({ uri: 'test://counter', name: 'counter', read: () => '0' }),
    defineResourceTemplate({ uriTemplate: 'notes://{id}', name: 'note', read: (uri) => `note ${uri}` }),
  ],
})

const running = await serveNode(server, {
  host: '127.0.0.1',
  port: 0,
  ...options.http,
  fallback: (req, res) => {
    if (req.url !== '/heap') return void res.writeHead(404).end()
    collect()
    collect()
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(process.memoryUsage()))
  },
})
process.stdout.write(`LISTENING ${running.url}\n`)
process.on('SIGTERM', () => void running.close().then(() => process.exit(0)))
