/**
 * @modelcontextprotocol/server-everything's own server (2025-11-25), one per session, behind the official
 * SDK's Streamable HTTP transport on 127.0.0.1 and a free port: the 2025-era HTTP peer of the task tests.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { ROOT } from './paths.js'

interface Everything {
  createServer(): { server: { connect(transport: StreamableHTTPServerTransport): Promise<void> } }
}

/** server-everything's own server, one per session, behind the SDK's Streamable HTTP transport on port 0. */
export async function everythingOverHttp(): Promise<{ url: string; http: HttpServer }> {
  const module = join(
    ROOT,
    'node_modules',
    '@modelcontextprotocol',
    'server-everything',
    'dist',
    'server',
    'index.js',
  )
  const { createServer: createEverything } = (await import(pathToFileURL(module).href)) as Everything
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const readBody = async (request: IncomingMessage): Promise<unknown> => {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    return chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined
  }
  const http = createServer((request, response) => {
    void (async () => {
      const body = request.method === 'POST' ? await readBody(request) : undefined
      const id = request.headers['mcp-session-id']
      let transport = typeof id === 'string' ? sessions.get(id) : undefined
      if (!transport && (body as { method?: string } | undefined)?.method === 'initialize') {
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
        })
        await createEverything().server.connect(created)
        transport = created
      }
      if (!transport) return void response.writeHead(400).end('Bad Request: no session')
      await transport.handleRequest(request, response, body)
    })()
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, http }
}

/** Stops what `everythingOverHttp` started. */
export async function stopEverything(http: HttpServer): Promise<void> {
  http.closeAllConnections()
  await new Promise((resolve) => http.close(resolve))
}
