/**
 * Real peers for OpenAPI tests: an HTTP API on 127.0.0.1:0 that records every request as it arrived (method,
 * raw target, headers, body), and the MCP side that serves a set of tools and connects a client to them.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect } from 'vitest'
import { type Client, connect } from '../../src/client/index.js'
import { defineServer, type ToolDefinition } from '../../src/index.js'
import { serveNode, type RunningServer } from '../../src/transports/http/node.js'

export interface SeenRequest {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

export interface RecordingApi {
  readonly server: Server
  readonly port: number
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string
  readonly seen: SeenRequest[]
  /** Calls a tool, requires it to succeed and this API to have seen exactly one request, and returns that request. */
  sent(client: Client, tool: string, args: Record<string, unknown>): Promise<SeenRequest>
  close(): Promise<void>
}

/** Answers `{"ok":true}` as JSON. */
function answerOk(_request: IncomingMessage, response: ServerResponse): void {
  response.setHeader('content-type', 'application/json')
  response.end(JSON.stringify({ ok: true }))
}

/** Starts an API that records each request once its body has arrived, then lets `respond` answer it. */
export async function recordingApi(
  respond: (request: IncomingMessage, response: ServerResponse, body: string) => void = answerOk,
): Promise<RecordingApi> {
  const seen: SeenRequest[] = []
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString()))
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body })
      respond(request, response, body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    seen,
    sent: async (client, tool, args) => {
      const before = seen.length
      const result = await client.callTool(tool, args)
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy()
      expect(seen).toHaveLength(before + 1)
      return seen.at(-1) as SeenRequest
    },
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

export interface ToolServers {
  /** Serves `tools` over Streamable HTTP and returns a client connected to them and the endpoint's URL. */
  start(tools: ToolDefinition[]): Promise<{ client: Client; url: string }>
  /** `start`, when only the client is needed. */
  connect(tools: ToolDefinition[]): Promise<Client>
  /** Closes every client and server started. */
  close(): Promise<void>
}

/** Serves sets of tools and connects a client to each; `close` ends them all. */
export function toolServers(): ToolServers {
  const running: { mcp: RunningServer; client: Client }[] = []
  const start = async (tools: ToolDefinition[]): Promise<{ client: Client; url: string }> => {
    const mcp = await serveNode(defineServer({ name: 't', version: '1', tools }), {
      host: '127.0.0.1',
      port: 0,
    })
    const client = connect({ url: mcp.url })
    running.push({ mcp, client })
    return { client, url: mcp.url }
  }
  return {
    start,
    connect: async (tools) => (await start(tools)).client,
    close: async () => {
      for (const { mcp, client } of running) {
        await client.close()
        await mcp.close()
      }
    },
  }
}
