/** Real-socket harness: serveNode on 127.0.0.1 port 0, requests through the global fetch. */
import { type NodeHandlerOptions, serveNode, type RunningServer } from '../../src/transports/http/node.js'
import type { Server } from '../../src/server.js'
import type { HttpAuthenticator } from '../../src/protocol/handler.js'
import { type Answer, post, type PostOptions } from './http.js'

export interface Live {
  readonly url: string
  readonly running: RunningServer
  call(method: string, params?: Record<string, unknown>, options?: PostOptions): Promise<Answer>
  close(): Promise<void>
}

const viaFetch = (request: Request): Promise<Response> => fetch(request)

export async function live(server: Server, options: NodeHandlerOptions = {}): Promise<Live> {
  const running = await serveNode(server, { ...options, host: '127.0.0.1', port: 0 })
  return {
    url: running.url,
    running,
    call: (method, params = {}, postOptions = {}) => post(viaFetch, method, params, postOptions, running.url),
    close: () => running.close(),
  }
}

/** A tools/call through `live`, returning the answer. */
export function callTool(
  server: Live,
  name: string,
  args: Record<string, unknown> = {},
  options: PostOptions = {},
): Promise<Answer> {
  return server.call('tools/call', { name, arguments: args }, options)
}

/** The text of a tool result's first text block. */
export function textOf(result: Record<string, unknown>): string {
  const content = result.content as { type: string; text?: string }[]
  return content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n')
}

/** A logger that keeps what it is told, for asserting what reaches the operator. */
export function memoryLogger(): {
  lines: string[]
  error(message: string, details?: Record<string, unknown>): void
  warn(message: string, details?: Record<string, unknown>): void
} {
  const lines: string[] = []
  const keep = (message: string, details?: Record<string, unknown>): void => {
    lines.push(`${message} ${details ? JSON.stringify(details) : ''}`)
  }
  return { lines, error: keep, warn: keep }
}

/** Trusts an `x-user` header as the principal: enough to tell callers apart in tests. */
export const byHeader: HttpAuthenticator = {
  authenticate: (request) => {
    const subject = request.header('x-user')
    return subject ? { ok: true, auth: { subject, scopes: [] } } : { ok: true }
  },
}

/** Request options that present `user` through the `x-user` header. */
export const as = (user: string): { headers: Record<string, string> } => ({ headers: { 'x-user': user } })
