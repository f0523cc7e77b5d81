/**
 * A hostile server for client tests: a real toolwire server (spec-correct answers) behind an HTTP proxy on
 * a real socket that rewrites each JSON-RPC message on its way out. Toolwire's own guards would never send
 * escapes, unsafe schemas or mismatching results; the proxy does, so the client meets them over the wire.
 */
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

export type Fetcher = (request: Request) => Promise<Response>

export interface HostileProxyOptions {
  /** Rewrites the request body text (e.g. a hostile tool name back to the real one). */
  readonly inbound?: (body: string) => string
  /** Rewrites a request header value. */
  readonly header?: (name: string, value: string) => string
  /** Rewrites one outgoing JSON-RPC message (a response or a notification) given the request's method. */
  readonly outbound: (message: Record<string, unknown>, method: string) => Record<string, unknown>
}

export interface HostileProxy {
  readonly url: string
  close(): Promise<void>
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })

export async function hostileProxy(inner: Fetcher, options: HostileProxyOptions): Promise<HostileProxy> {
  const server = createServer((req, res) => {
    void (async () => {
      const body = (options.inbound ?? ((text: string) => text))(await readBody(req))
      const method = (JSON.parse(body) as { method?: string }).method ?? ''
      const headers = new Headers()
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && name !== 'content-length')
          headers.set(name, options.header ? options.header(name, value) : value)
      }
      const response = await inner(
        new Request(`http://127.0.0.1${req.url ?? '/'}`, { method: 'POST', headers, body }),
      )
      const type = response.headers.get('content-type') ?? ''
      const text = await response.text()
      const rewrite = (json: string): string =>
        JSON.stringify(options.outbound(JSON.parse(json) as Record<string, unknown>, method))
      const out = type.startsWith('text/event-stream')
        ? text.replace(/^data: (.*)$/gm, (_line, json: string) => `data: ${rewrite(json)}`)
        : text === ''
          ? text
          : rewrite(text)
      res.writeHead(response.status, { 'content-type': type }).end(out)
    })().catch((error: unknown) => res.writeHead(500).end(String(error)))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
