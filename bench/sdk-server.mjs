/**
 * The official TypeScript SDK v2 serving the same tools, wired exactly as its documentation prescribes:
 * HTTP through `createMcpHandler(factory)` (a fresh McpServer per request, the stateless 2026-07-28 entry)
 * mounted on node:http with `toNodeHandler` behind the loopback Host/Origin guards; stdio through
 * `serveStdio(factory)`. Tools are declared with zod, as the SDK's examples do.
 *
 *   PORT=3000 TOOLS=1000 node bench/sdk-server.mjs     HTTP on 127.0.0.1:PORT/mcp
 *   TOOLS=1 node bench/sdk-server.mjs --stdio           stdio
 */
import { createServer } from 'node:http'
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node'
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server'
import * as z from 'zod'

const TOOLS = Math.max(1, Number(process.env.TOOLS ?? 1))

function factory() {
  const server = new McpServer({ name: 'sdk-bench', version: '0.1.0' })
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: z.object({ a: z.number(), b: z.number() }).strict(),
      outputSchema: z.object({ sum: z.number() }).strict(),
    },
    async ({ a, b }) => {
      const output = { sum: a + b }
      return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output }
    },
  )
  for (let index = 1; index < TOOLS; index++) {
    server.registerTool(
      `tool_${String(index).padStart(4, '0')}`,
      {
        description: `Filler tool number ${index}: echoes its text argument.`,
        inputSchema: z
          .object({
            text: z.string().describe('Text to echo'),
            times: z.number().int().min(1).max(10).optional().describe('Repetitions'),
          })
          .strict(),
      },
      async ({ text, times }) => ({ content: [{ type: 'text', text: text.repeat(times ?? 1) }] }),
    )
  }
  return server
}

if (process.argv.includes('--stdio')) {
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio')
  serveStdio(factory)
} else {
  const validateHost = localhostHostValidation()
  const validateOrigin = localhostOriginValidation()
  const handler = toNodeHandler(createMcpHandler(factory))
  const server = createServer(async (req, res) => {
    if (!validateHost(req, res) || !validateOrigin(req, res)) return
    if (req.url !== '/mcp') {
      res.writeHead(404).end()
      return
    }
    await handler(req, res)
  })
  server.keepAliveTimeout = 65_000
  server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
    console.log(`SDK v2 bench server (${TOOLS} tools) on http://127.0.0.1:${server.address().port}/mcp`)
  })
}
