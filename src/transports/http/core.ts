/**
 * Streamable HTTP, framework-free. Adapters (node:http, fetch) supply a request view and a response sink;
 * this file owns every MCP rule: POST only, Origin/Host, body limits, parsing, headers vs body, JSON or SSE.
 */
import type { Server } from '../../server.js'
import type { AuthInfo, Exchange } from '../../protocol/exchange.js'
import type { TransportCheck } from '../../protocol/dispatcher.js'
import { encodeError } from '../../protocol/encode.js'
import { decodeHeaderValue } from '../../schema/x-mcp-header.js'
import { headerMismatch, invalidRequest, McpError, nestedTooDeep, parseError } from '../../wire/errors.js'
import { nestedDeeperThan, topLevelId } from '../../wire/json-depth.js'
import { tooManyRequests } from '../../security/errors.js'
import { addressKey } from '../../security/principal.js'
import { classify, type JsonRpcNotification } from '../../wire/jsonrpc.js'
import { HEADER_METHOD, HEADER_NAME, HEADER_PROTOCOL_VERSION } from '../../wire/meta.js'
import { checkOrigin, isLoopbackAddress, loopbackPolicy, type OriginPolicy } from './guard.js'

export interface HttpOptions {
  /** Largest request body accepted, in bytes (default 4 MiB); larger is 413. */
  readonly maxBodyBytes?: number
  /**
   * Host/Origin policy; `false` turns the check off (only behind a proxy that does it). Default: when the
   * connection arrived on a loopback address, only loopback Hosts and Origins; otherwise an Origin must name
   * the Host itself. `allowedHosts` / `allowedOrigins` are shorthands for a policy.
   */
  readonly originPolicy?: OriginPolicy | false
  /** Host header values accepted (host or host:port); needed where the adapter cannot see a local address. */
  readonly allowedHosts?: readonly string[]
  /** Origins accepted (scheme://host[:port]). */
  readonly allowedOrigins?: readonly string[]
  /** Interval of SSE keep-alive comments on `subscriptions/listen` streams, in ms (default 15 s; 0 = off). */
  readonly keepAliveMs?: number
  /**
   * Unsent bytes an SSE response (a tool's progress and logs as much as a listen stream) may pile up for a
   * client that does not read; past it the response is cut and the request cancelled (default 256 KiB).
   */
  readonly maxBacklogBytes?: number
  /** `subscriptions/listen` streams one client address may hold open (default 16); more get 429. */
  readonly maxListenStreamsPerAddress?: number
  /** Authenticates a request before it is parsed; return a Response-like rejection to refuse it. */
  readonly authenticate?: (request: HttpRequestView) => Promise<AuthResult> | AuthResult
}

export type AuthResult =
  | { readonly ok: true; readonly auth?: AuthInfo }
  | {
      readonly ok: false
      readonly status: number
      readonly headers?: Record<string, string>
      readonly body?: string
    }

/** What the core reads of an HTTP request. */
export interface HttpRequestView {
  readonly method: string
  /** A header by lower-case name. */
  header(name: string): string | undefined
  readonly signal: AbortSignal
  /** Whether `signal` has fired, when the adapter makes the signal lazily. */
  readonly aborted?: boolean
  readonly remoteAddress?: string | undefined
  /** The address the connection arrived on, where the adapter knows it (picks the default Host policy). */
  readonly localAddress?: string | undefined
}

/** Where the core writes its answer. Exactly one of `send` or `startStream` is called. */
export interface HttpResponseSink {
  send(status: number, headers: Record<string, string>, body?: string): void
  startStream(headers: Record<string, string>): void
  write(chunk: string): void
  end(): void
  /** Bytes written to the stream that the client has not taken yet. */
  pending?(): number
  /** Cuts the response off; the request's signal then fires, as for a client that went away. */
  abort?(): void
}

export const DEFAULT_MAX_BODY = 4 * 1024 * 1024
const LOOPBACK_POLICY = loopbackPolicy()
const OPEN_POLICY: OriginPolicy = {}
const JSON_HEADERS = { 'content-type': 'application/json' }
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
}
const utf8 = new TextDecoder('utf-8', { fatal: true })

function sendError(out: HttpResponseSink, error: McpError, id?: string | number): void {
  out.send(
    error.status,
    error.headers ? { ...JSON_HEADERS, ...error.headers } : JSON_HEADERS,
    encodeError(id, error),
  )
}

function acceptsResponse(accept: string | undefined): boolean {
  return accepts(accept, 'application/json') || accepts(accept, 'text/event-stream')
}

/**
 * Whether an Accept header allows a media type (RFC 9110 §12.5.1): the most specific matching range decides,
 * and `q=0` refuses. No header allows anything.
 */
function accepts(accept: string | undefined, mediaType: string): boolean {
  if (accept === undefined || accept.trim() === '') return true
  const [type] = mediaType.split('/')
  let best: { specificity: number; q: number } | undefined
  for (const range of accept.split(',')) {
    const [name = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase())
    const specificity = name === mediaType ? 2 : name === `${type}/*` ? 1 : name === '*/*' ? 0 : -1
    if (specificity < 0 || (best && best.specificity > specificity)) continue
    const q = params.find((param) => param.startsWith('q='))
    best = { specificity, q: q === undefined ? 1 : Number(q.slice(2)) }
  }
  return best !== undefined && best.q > 0
}

/** Checks on the standard headers against the body (requirements §11.4 order, HTTP-17..21). */
const checkStandardHeaders =
  (view: HttpRequestView): TransportCheck =>
  (request, meta, spec) => {
    const version = view.header(HEADER_PROTOCOL_VERSION)?.trim()
    if (version === undefined || version === '')
      throw headerMismatch('MCP-Protocol-Version header is required')
    if (version !== meta.protocolVersion) {
      throw headerMismatch(
        `MCP-Protocol-Version header '${version}' does not match _meta protocolVersion '${meta.protocolVersion}'`,
      )
    }
    const method = view.header(HEADER_METHOD)?.trim()
    if (method === undefined || method === '') throw headerMismatch('Mcp-Method header is required')
    if (method !== request.method) {
      throw headerMismatch(
        `Mcp-Method header value '${method}' does not match body value '${request.method}'`,
      )
    }
    if (!spec?.nameParam) return
    const bodyName = request.params?.[spec.nameParam]
    const raw = view.header(HEADER_NAME)
    if (raw === undefined || raw.trim() === '')
      throw headerMismatch('Mcp-Name header is required for this method')
    let name: string
    try {
      name = decodeHeaderValue(raw.trim())
    } catch (error) {
      throw headerMismatch(`Mcp-Name header ${(error as Error).message}`)
    }
    if (typeof bodyName === 'string' && name !== bodyName) {
      throw headerMismatch(`Mcp-Name header value '${name}' does not match body value '${bodyName}'`)
    }
  }

/**
 * One request's exchange. A class rather than an object literal with getters or per-request closures, which
 * measurably raised the CPU cost of a small tools/call. `header` and `notify` are handed out as bound
 * functions only when read, since callers may pass them around.
 */
class HttpExchange implements Exchange {
  readonly transport = 'http' as const
  /** Set once the first notification turned the answer into an SSE stream. */
  streaming = false
  readonly remoteAddress: string | undefined

  constructor(
    private readonly view: HttpRequestView,
    private readonly out: HttpResponseSink,
    readonly auth: AuthInfo | undefined,
    /** Whether the client's Accept allows an SSE answer; without it the answer stays one JSON body. */
    private readonly eventStream: boolean,
    private readonly maxBacklog: number,
  ) {
    this.remoteAddress = view.remoteAddress
  }

  get header(): (name: string) => string | undefined {
    return (name) => this.view.header(name)
  }

  get notify(): (message: JsonRpcNotification) => void {
    return (message) => {
      // A client that accepts only JSON gets one JSON body (streamable-http §Sending Messages, item 6): its
      // progress and log notifications are dropped, as they are when it did not ask for them.
      if (this.aborted || !this.eventStream) return
      if (!this.streaming) {
        this.streaming = true
        this.out.startStream(SSE_HEADERS)
      } else if (this.backlog() > this.maxBacklog) {
        // A client that does not read must not grow the server without bound: cancel the request.
        this.out.abort?.()
        return
      }
      this.out.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`)
    }
  }

  get signal(): AbortSignal {
    return this.view.signal
  }

  get aborted(): boolean {
    return this.view.aborted ?? this.view.signal.aborted
  }

  /** Bytes written for this request that the peer has not taken yet (bounds slow listen streams). */
  backlog(): number {
    return this.out.pending?.() ?? 0
  }
}

export class HttpCore {
  readonly server: Server
  readonly maxBodyBytes: number
  /** Undefined: chosen per request from the local address (see `HttpOptions.originPolicy`). */
  readonly #policy: OriginPolicy | false | undefined
  readonly #authenticate: HttpOptions['authenticate']
  readonly #keepAliveMs: number
  readonly #maxBacklog: number
  readonly #maxListens: number
  /** Open listen streams per client network. */
  readonly #listens = new Map<string, number>()

  constructor(server: Server, options: HttpOptions = {}) {
    this.server = server
    this.#keepAliveMs = options.keepAliveMs ?? 15_000
    this.#maxBacklog = options.maxBacklogBytes ?? 256 * 1024
    this.#maxListens = options.maxListenStreamsPerAddress ?? 16
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY
    this.#policy =
      options.originPolicy ??
      (options.allowedHosts || options.allowedOrigins
        ? {
            ...(options.allowedHosts && { allowedHosts: options.allowedHosts }),
            ...(options.allowedOrigins && { allowedOrigins: options.allowedOrigins }),
          }
        : undefined)
    this.#authenticate = options.authenticate ?? server.auth?.authenticate
  }

  /** A document the server publishes beside its endpoint (RFC 9728 metadata when auth is on), or undefined. */
  wellKnown(
    method: string,
    path: string,
  ): { status: number; headers: Record<string, string>; body: string } | undefined {
    const auth = this.server.auth
    if (!auth || !path.startsWith('/.well-known/')) return undefined
    return auth.document(method, path, this.server.tools.scopes())
  }

  /**
   * Checks that need no body. Returns false when it already answered (405, 403, 413, 415, 406).
   * `contentLength` is the declared length, when there is one.
   */
  precheck(view: HttpRequestView, out: HttpResponseSink, contentLength: number | undefined): boolean {
    if (view.method !== 'POST') {
      out.send(
        405,
        { allow: 'POST', ...JSON_HEADERS },
        encodeError(undefined, invalidRequest('only POST is supported')),
      )
      return false
    }
    // DNS rebinding (basic/transports/streamable-http §Security & Endpoint): a loopback listener only answers
    // loopback names, however the handler was mounted.
    const policy = this.#policy ?? (isLoopbackAddress(view.localAddress) ? LOOPBACK_POLICY : OPEN_POLICY)
    if (policy) {
      const refusal = checkOrigin(policy, view.header('host'), view.header('origin'))
      if (refusal) {
        out.send(403, JSON_HEADERS, encodeError(undefined, new McpError(-32600, `Forbidden: ${refusal}`)))
        return false
      }
    }
    if (contentLength !== undefined && contentLength > this.maxBodyBytes) {
      out.send(
        413,
        JSON_HEADERS,
        encodeError(undefined, invalidRequest(`body exceeds ${this.maxBodyBytes} bytes`)),
      )
      return false
    }
    const type = view.header('content-type')
    if (type !== undefined && !/^application\/(.+\+)?json\b/i.test(type.trim())) {
      out.send(
        415,
        JSON_HEADERS,
        encodeError(undefined, invalidRequest('Content-Type must be application/json')),
      )
      return false
    }
    if (!acceptsResponse(view.header('accept'))) {
      out.send(
        406,
        JSON_HEADERS,
        encodeError(undefined, invalidRequest('Accept must allow application/json')),
      )
      return false
    }
    return true
  }

  /** Answers a POST whose body has been read (at most maxBodyBytes). */
  async handle(view: HttpRequestView, body: Uint8Array, out: HttpResponseSink): Promise<void> {
    let auth: AuthInfo | undefined
    if (this.#authenticate) {
      const outcome = await this.#authenticate(view)
      if (!outcome.ok) {
        out.send(outcome.status, { ...JSON_HEADERS, ...outcome.headers }, outcome.body)
        return
      }
      auth = outcome.auth
    }
    let text: string
    try {
      text = utf8.decode(body)
    } catch {
      return sendError(out, parseError('body is not valid UTF-8'))
    }
    // Checked on the raw text: parsing a deeply nested body is itself the attack.
    const maxDepth = this.server.maxParamsDepth
    if (nestedDeeperThan(text, maxDepth + 1)) return sendError(out, nestedTooDeep(maxDepth), topLevelId(text))
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return sendError(out, parseError())
    }
    const inbound = classify(parsed)
    if (inbound.kind === 'invalid') return sendError(out, invalidRequest(inbound.reason), inbound.id)
    if (inbound.kind === 'response') return sendError(out, invalidRequest('clients must not send responses'))
    if (inbound.kind === 'notification') {
      out.send(202, {})
      return
    }
    const request = inbound.message
    const eventStream = accepts(view.header('accept'), 'text/event-stream')
    if (!eventStream && request.method === 'subscriptions/listen') {
      // The answer to subscriptions/listen is a stream (streamable-http §Receiving Messages): nothing else fits.
      out.send(
        406,
        JSON_HEADERS,
        encodeError(
          request.id,
          invalidRequest(
            'subscriptions/listen answers with an SSE stream: Accept must allow text/event-stream',
          ),
        ),
      )
      return
    }
    // Listen streams stay open indefinitely: one address may not hold an unbounded number of them.
    const listenKey =
      request.method === 'subscriptions/listen' && view.remoteAddress !== undefined
        ? addressKey(view.remoteAddress)
        : undefined
    if (listenKey !== undefined) {
      const held = this.#listens.get(listenKey) ?? 0
      if (held >= this.#maxListens) {
        const what = `more than ${this.#maxListens} listen streams from one address`
        return sendError(out, tooManyRequests(5_000, what), request.id)
      }
      this.#listens.set(listenKey, held + 1)
    }
    const exchange = new HttpExchange(view, out, auth, eventStream, this.#maxBacklog)
    // Long-lived listen streams get periodic SSE comments so proxies keep them open (SUB-17).
    const keepAlive =
      request.method === 'subscriptions/listen' && this.#keepAliveMs > 0
        ? setInterval(() => {
            if (exchange.streaming && !exchange.aborted) out.write(':\n\n')
          }, this.#keepAliveMs)
        : undefined
    keepAlive?.unref?.()
    let reply: Awaited<ReturnType<Server['handle']>>
    try {
      reply = await this.server.handle(request, exchange, checkStandardHeaders(view))
    } finally {
      if (keepAlive) clearInterval(keepAlive)
      if (listenKey !== undefined) {
        const left = (this.#listens.get(listenKey) ?? 1) - 1
        if (left === 0) this.#listens.delete(listenKey)
        else this.#listens.set(listenKey, left)
      }
    }
    if (exchange.aborted || reply === null) {
      if (exchange.streaming) out.end()
      return
    }
    if (exchange.streaming) {
      out.write(`event: message\ndata: ${reply.body}\n\n`)
      out.end()
    } else {
      out.send(reply.status, reply.headers ? { ...JSON_HEADERS, ...reply.headers } : JSON_HEADERS, reply.body)
    }
  }
}
