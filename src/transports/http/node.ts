/** node:http adapter: the fast path. `createNodeHandler` for any node server, `serveNode` to listen. */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server as NodeHttpServer,
  type ServerResponse,
} from 'node:http'
import type { AddressInfo } from 'node:net'
import type { RequestHandler } from '../../protocol/handler.js'
import { HttpCore, sendError, type HttpOptions, type HttpRequestView, type HttpResponseSink } from './core.js'
import { payloadTooLarge } from '../../wire/errors.js'
import { LazyAbort } from '../../wire/lazy-abort.js'
import { SERVER_CARD_SUFFIX } from '../../wire/server-card.js'
import { bindPolicy, isLoopbackBind, machineHosts, openBindWarning } from './bind-hosts.js'
import {
  type ConnectionLimitOptions,
  limitConnections,
  TIMEOUT_CHECK_INTERVAL_MS,
} from './connection-limits.js'
import { alreadyReadBody, answerConsumedBody } from './consumed-body.js'
import { applyCors } from './cors.js'
import { answerHealth, type HealthOptions } from './health.js'
import { type SseOptions, SseTransport } from './sse.js'

export type { HealthOptions, HealthReport } from './health.js'
export type { SseOptions } from './sse.js'

export interface NodeHandlerOptions extends HttpOptions {
  /** The MCP endpoint path (default `/mcp`); other paths get 404 unless `fallback` handles them. */
  readonly path?: string
  /** Called for requests to other paths (metadata documents, health checks …). */
  readonly fallback?: (req: IncomingMessage, res: ServerResponse) => void
  /**
   * Also serve the HTTP+SSE transport of revision 2024-11-05 (`GET /sse`, `POST /messages?sessionId=…`) for
   * clients that speak only that; `true` takes the default paths. Needs a server that serves 2025-era sessions.
   */
  readonly sse?: boolean | SseOptions
  /**
   * Browser origins (`scheme://host[:port]`) allowed to call the server from a page: they get CORS headers and
   * preflight answers, and pass the Origin check. `*` is refused: it would turn the Origin check off.
   */
  readonly corsOrigins?: readonly string[]
  /** A health endpoint: 200 or 503 as `probe` finds, outside the Host/Origin check and authentication. */
  readonly health?: HealthOptions
}

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void

class NodeSink implements HttpResponseSink {
  constructor(readonly res: ServerResponse) {}
  send(status: number, headers: Record<string, string>, body?: string): void {
    if (this.res.headersSent || this.res.destroyed) return
    if (body === undefined) {
      this.res.writeHead(status, headers).end()
      return
    }
    // A flat name/value list: node takes it as it is, where an object would be copied and walked.
    const list: string[] = []
    for (const name in headers) list.push(name, headers[name] as string)
    list.push('content-length', String(Buffer.byteLength(body)))
    this.res.writeHead(status, list).end(body)
  }
  startStream(headers: Record<string, string>): void {
    this.res.writeHead(200, headers)
    this.res.flushHeaders()
  }
  write(chunk: string): void {
    if (!this.res.destroyed) this.res.write(chunk)
  }
  end(): void {
    if (!this.res.writableEnded) this.res.end()
  }
  pending(): number {
    return this.res.writableLength
  }
  abort(): void {
    this.res.destroy()
  }
}

/**
 * One request as the core reads it, its cancellation, and the reading of its body. A class with methods: an
 * object literal with getters, or per-request closures over `req`, each measurably raised the CPU cost of a
 * request in the benchmark; the body listeners below are shared by every request and find theirs on `req`.
 */
class NodeRequest implements HttpRequestView {
  readonly #abort = new LazyAbort()
  readonly method: string
  readonly remoteAddress: string | undefined
  /** The body so far; let go once it is handed on (see onBodyEnd). */
  chunks: Buffer[] | undefined
  size = 0
  refused = false

  /** `req.headers`, read once: node's getter runs again on every read. */
  readonly #headers: IncomingHttpHeaders

  constructor(
    private readonly req: IncomingMessage,
    readonly sink: NodeSink,
    readonly core: HttpCore,
  ) {
    this.method = req.method ?? 'GET'
    this.remoteAddress = req.socket.remoteAddress
    this.#headers = req.headers
  }

  get aborted(): boolean {
    return this.#abort.aborted
  }

  get signal(): AbortSignal {
    return this.#abort.signal
  }

  abort(reason?: unknown): void {
    this.#abort.abort(reason)
  }

  onAbort(listener: () => void): () => void {
    return this.#abort.onAbort(listener)
  }

  get localAddress(): string | undefined {
    return this.req.socket.localAddress
  }

  get remotePort(): number | undefined {
    return this.req.socket.remotePort
  }

  get httpVersion(): string {
    return this.req.httpVersion
  }

  header(name: string): string | undefined {
    const value = headerOf(this.#headers, name)
    return Array.isArray(value) ? value.join(', ') : value
  }
}

/**
 * One request header. The names the core reads on every request are read as named properties: a single
 * keyed read that sees many names goes megamorphic in V8, about 140 instructions a read under callgrind,
 * against a few for a named one.
 */
function headerOf(headers: IncomingHttpHeaders, name: string): string | string[] | undefined {
  switch (name) {
    case 'host':
      return headers.host
    case 'origin':
      return headers.origin
    case 'content-type':
      return headers['content-type']
    case 'accept':
      return headers.accept
    case 'mcp-protocol-version':
      return headers['mcp-protocol-version']
    case 'mcp-method':
      return headers['mcp-method']
    case 'mcp-name':
      return headers['mcp-name']
    default:
      return headers[name]
  }
}

const REQUEST = Symbol('toolwire.nodeRequest')
type Tagged = IncomingMessage & { [REQUEST]: NodeRequest }

function onBodyChunk(this: Tagged, chunk: Buffer): void {
  const request = this[REQUEST]
  if (request.refused) return
  request.size += chunk.length
  if (request.size > request.core.maxBodyBytes) {
    request.refused = true
    request.chunks = undefined
    request.core.refuseTooLarge(request.sink)
    return
  }
  // A literal of one: an array that starts empty and is pushed to reserves room for 17.
  if (request.chunks) request.chunks.push(chunk)
  else request.chunks = [chunk]
}

function onBodyEnd(this: Tagged): void {
  const request = this[REQUEST]
  if (request.refused) return
  const chunks = request.chunks ?? []
  const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)
  // The request stays reachable as long as its response is open, and a listen stream's response stays open
  // for hours: let go of the body bytes, and of the array that held them, once they are handed on.
  request.chunks = undefined
  request.core.handle(request, body, request.sink)
  followClose(request.sink.res)
}

/**
 * A client that goes away before the answer is written cancels the request (streamable-http
 * §Cancellation). This also covers a request that fails while its body arrives: node destroys the socket,
 * so the response closes unfinished (and emits no request `error` to a request without listeners for it).
 */
function onResponseClose(this: ServerResponse): void {
  if (!this.writableFinished) (this.req as Tagged)[REQUEST].abort()
}

/**
 * Follows the response's close once the request has been handed on, and only while its answer is still to
 * be written (a slow tool, a stream): an answer written at once has nothing left to cancel, and a listener
 * per request costs more than the rest of node's own bookkeeping for it. A response closed before this
 * looked (node sets `destroyed` as it emits `close`) cancels at once.
 */
function followClose(res: ServerResponse): void {
  if (res.writableEnded) return
  if (res.destroyed) (res.req as Tagged)[REQUEST].abort()
  else res.on('close', onResponseClose)
}

/**
 * `Number(value)` for a Content-Length: node's parser lets only digits through, read here without the
 * generic string-to-number conversion; anything else still goes to `Number`.
 */
function declaredLength(value: string): number {
  if (value.length === 0 || value.length > 15) return Number(value)
  let length = 0
  for (let index = 0; index < value.length; index++) {
    const digit = value.charCodeAt(index) - 0x30
    if (digit < 0 || digit > 9) return Number(value)
    length = length * 10 + digit
  }
  return length
}

function pathOf(url: string | undefined): string {
  if (!url) return '/'
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}

/**
 * A `node:http` request listener serving the MCP endpoint at `options.path` (default `/mcp`).
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http'
 * createServer(createNodeHandler(server, { originPolicy: { allowedHosts: ['mcp.example.com'] } })).listen(8080)
 * ```
 */
export function createNodeHandler(server: RequestHandler, options: NodeHandlerOptions = {}): NodeHandler {
  const fixed = options.originPolicy !== undefined || options.allowedHosts || options.allowedOrigins
  const cors = options.corsOrigins && new Set(options.corsOrigins)
  if (cors?.has('*')) throw new TypeError('corsOrigins lists origins; `*` would turn the Origin check off')
  // Without a policy, a connection on a non-loopback address accepts this machine's names (read once).
  const core = new HttpCore(server, options, fixed ? undefined : machineHosts(), cors && [...cors])
  const endpoint = options.path ?? '/mcp'
  const notFoundBody = `Not found: the MCP endpoint is ${endpoint}\n`
  const cardPath = `${endpoint.replace(/\/$/, '')}${SERVER_CARD_SUFFIX}`
  const sse = options.sse ? new SseTransport(core, options.sse === true ? {} : options.sse) : undefined
  const health = options.health
  return (req, res) => {
    const path = pathOf(req.url)
    if (health && path === health.path) return answerHealth(health, req, res)
    if (cors && applyCors(cors, req, res)) return
    if (sse && (path === sse.path || path === sse.messagesPath)) return sse.serve(req, res, path)
    if (path !== endpoint) {
      const document =
        path === cardPath
          ? core.serverCard(
              cardRequest(req),
              `${cardScheme(req)}://${req.headers.host ?? 'localhost'}${endpoint}`,
            )
          : core.wellKnown(req.method ?? 'GET', path)
      if (document) {
        res
          .writeHead(document.status, document.headers)
          .end(req.method === 'HEAD' ? undefined : document.body)
        return
      }
      if (options.fallback) return options.fallback(req, res)
      // Plain text, not a JSON-RPC error: the request never reached the MCP endpoint. Naming the endpoint
      // answers the usual first mistake (a browser or client pointed at the bare host).
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(notFoundBody)
      return
    }
    const sink = new NodeSink(res)
    const request = new NodeRequest(req, sink, core)
    ;(req as Tagged)[REQUEST] = request
    const declared = req.headers['content-length']
    if (!core.precheck(request, sink, declared === undefined ? undefined : declaredLength(declared))) {
      followClose(res) // a 2025-era session's GET stream stays open
      req.resume()
      return
    }
    const preread = alreadyReadBody(req)
    if (preread !== undefined) {
      answerPreread(server, core, request, sink, preread)
      return followClose(res)
    }
    req.on('data', onBodyChunk)
    req.on('end', onBodyEnd)
  }
}

/** The request as the card check reads it: method, headers, the address it arrived on. */
function cardRequest(req: IncomingMessage): Pick<HttpRequestView, 'method' | 'header' | 'localAddress'> {
  return {
    method: req.method ?? 'GET',
    header: (name) => {
      const value = req.headers[name]
      return Array.isArray(value) ? value.join(', ') : value
    },
    localAddress: req.socket.localAddress,
  }
}

/** `https` when the connection is TLS (an `https.Server`), else `http`. */
const cardScheme = (req: IncomingMessage): string =>
  (req.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http'

/** A body a framework already parsed (`req.body`): the same checks as a streamed one, no waiting. */
function answerPreread(
  server: RequestHandler,
  core: HttpCore,
  view: HttpRequestView,
  sink: HttpResponseSink,
  body: Uint8Array | 'gone',
): void {
  if (body === 'gone') return answerConsumedBody(server, sink)
  // The framework read the whole body already, so the connection stays usable after the 413.
  if (body.byteLength > core.maxBodyBytes) return sendError(sink, payloadTooLarge(core.maxBodyBytes))
  core.handle(view, body, sink)
}

export interface ServeOptions extends NodeHandlerOptions, ConnectionLimitOptions {
  /** Interface to bind (default 127.0.0.1). */
  readonly host?: string
  /** Port (default 3000; 0 picks a free one). */
  readonly port?: number
}

export interface RunningServer {
  /** Where the MCP endpoint listens, e.g. `http://127.0.0.1:3000/mcp` (the bound port when `port` is 0). */
  readonly url: string
  readonly httpServer: NodeHttpServer
  close(): Promise<void>
}

/**
 * Listens on host:port and serves the MCP endpoint. The Host policy follows the bind (`bindPolicy`): loopback
 * names on a loopback bind, the machine's own names and addresses on a wildcard bind (`0.0.0.0`, `::`),
 * the address itself otherwise, each plus `allowedHosts`. Bound beyond loopback with no authenticator, it
 * warns once through the server's logger: anyone who can reach the address can call every tool.
 *
 * @example
 * ```ts
 * import { serveNode } from 'toolwire/node'
 *
 * const running = await serveNode(server, { port: 3000 }) // 127.0.0.1 unless told otherwise
 * // … later
 * await running.close()
 * ```
 */
export async function serveNode(server: RequestHandler, options: ServeOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1'
  const policy = options.originPolicy ?? bindPolicy(host, options)
  const httpServer = createServer(
    { connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS },
    createNodeHandler(server, { ...options, originPolicy: policy }),
  )
  httpServer.keepAliveTimeout = 65_000
  limitConnections(httpServer, options)
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject)
    httpServer.listen(options.port ?? 3000, host, () => {
      httpServer.off('error', reject)
      resolve()
    })
  })
  const address = httpServer.address() as AddressInfo
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  if (!isLoopbackBind(host) && !server.authenticator)
    server.logger.warn(openBindWarning(`${shownHost}:${address.port}`))
  return {
    url: `http://${shownHost}:${address.port}${options.path ?? '/mcp'}`,
    httpServer,
    close: async () => {
      // Listen streams first get their graceful closing result (patterns/subscriptions §Graceful Closure),
      // then connections go.
      server.close()
      await new Promise((resolve) => setTimeout(resolve, 10))
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve())
        httpServer.closeAllConnections()
      })
    },
  }
}
