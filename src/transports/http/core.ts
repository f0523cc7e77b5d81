/**
 * Streamable HTTP, framework-free. Adapters (node:http, fetch) supply a request view and a response sink;
 * this file owns every MCP rule: POST only, Origin/Host, body limits, parsing, headers vs body, JSON or SSE.
 */
import type { Server } from '../../server.js'
import type { AuthInfo, Exchange } from '../../protocol/exchange.js'
import type { TransportCheck } from '../../protocol/dispatcher.js'
import { encodeError } from '../../protocol/encode.js'
import { decodeHeaderValue } from '../../schema/x-mcp-header.js'
import { headerMismatch, invalidRequest, McpError, parseError } from '../../wire/errors.js'
import { classify, type JsonRpcNotification } from '../../wire/jsonrpc.js'
import { HEADER_METHOD, HEADER_NAME, HEADER_PROTOCOL_VERSION } from '../../wire/meta.js'
import { checkOrigin, type OriginPolicy } from './guard.js'

export interface HttpOptions {
  /** Largest request body accepted, in bytes (default 4 MiB); larger is 413. */
  readonly maxBodyBytes?: number
  /** Host/Origin policy; `false` turns the check off (only behind a proxy that does it). */
  readonly originPolicy?: OriginPolicy | false
  /** Interval of SSE keep-alive comments on `subscriptions/listen` streams, in ms (default 15 s; 0 = off). */
  readonly keepAliveMs?: number
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
}

/** Where the core writes its answer. Exactly one of `send` or `startStream` is called. */
export interface HttpResponseSink {
  send(status: number, headers: Record<string, string>, body?: string): void
  startStream(headers: Record<string, string>): void
  write(chunk: string): void
  end(): void
  /** Bytes written to the stream that the client has not taken yet. */
  pending?(): number
}

export const DEFAULT_MAX_BODY = 4 * 1024 * 1024
const JSON_HEADERS = { 'content-type': 'application/json' }
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
}
const utf8 = new TextDecoder('utf-8', { fatal: true })

function sendError(out: HttpResponseSink, error: McpError, id?: string | number): void {
  out.send(error.status, JSON_HEADERS, encodeError(id, error))
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
  readonly #policy: OriginPolicy | false
  readonly #authenticate: HttpOptions['authenticate']
  readonly #keepAliveMs: number

  constructor(server: Server, options: HttpOptions = {}) {
    this.server = server
    this.#keepAliveMs = options.keepAliveMs ?? 15_000
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY
    this.#policy = options.originPolicy ?? {}
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
    if (this.#policy) {
      const refusal = checkOrigin(this.#policy, view.header('host'), view.header('origin'))
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
    let parsed: unknown
    try {
      parsed = JSON.parse(utf8.decode(body))
    } catch (error) {
      sendError(out, error instanceof TypeError ? parseError('body is not valid UTF-8') : parseError())
      return
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
    const exchange = new HttpExchange(view, out, auth, eventStream)
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
