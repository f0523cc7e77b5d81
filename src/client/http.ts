/**
 * Streamable HTTP, client side: one POST per message (streamable-http §Sending Messages), the standard
 * headers on every request (streamable-http §Standard Request Headers), a JSON or SSE answer, and an abort
 * closes the stream (streamable-http §Cancellation).
 * Against a 2025-era server (`legacy` set) it speaks that revision's transport instead: the negotiated
 * `MCP-Protocol-Version` and the `Mcp-Session-Id` on every message, the server's own requests on SSE
 * streams, a GET stream for notifications and DELETE to end the session (2025-11-25
 * basic/transports §Streamable HTTP).
 */
import {
  isRecord,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../wire/jsonrpc.js'
import { META_PROTOCOL_VERSION } from '../wire/meta.js'
import { encodeHeaderValue } from '../schema/x-mcp-header.js'
import { nestedDeeperThan } from '../wire/json-depth.js'
import { AuthorizationError } from './auth/errors.js'
import { TransportError } from './errors.js'
import { type Cancellation, cancellationOf } from './cancellation.js'
import { fetchStack, type HttpStack, type Incoming, type Outgoing } from './exchange.js'
import { asFetch, nodeHttpStack } from './node-http.js'
import { OversizedError, readSse, type SseCursor } from './sse.js'
import { type OldSseChannel, openOldSse } from './http-sse.js'
import {
  type ClientTransport,
  MAX_RESPONSE_DEPTH,
  type SendOptions,
  type ServerRequestHandler,
} from './transport.js'
import { pause } from './pause.js'

/** The 2025-era session this transport speaks for, once `initialize` chose that era. */
export interface LegacyHttpSession {
  /** The negotiated revision, sent as `MCP-Protocol-Version` on every later message. */
  readonly version: string
  /** Assigned by the server's answer to `initialize`, if it keeps sessions. */
  sessionId?: string
}

export type HeadersInput =
  | Readonly<Record<string, string>>
  | (() => Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>)

export interface HttpTransportOptions {
  readonly url: string | URL
  /** Sent on every request (e.g. `Authorization`); a function is called per request, for refreshed tokens. */
  readonly headers?: HeadersInput
  /**
   * A custom fetch, e.g. `createFetchHandler(server)` to talk to a server in-process. Without it, Node uses
   * `node:http` with a keep-alive pool, and other runtimes the global `fetch`.
   */
  readonly fetch?: (request: Request) => Promise<Response>
  /** Largest response body, or SSE event, accepted (default 16 MiB); larger is a TransportError. */
  readonly maxResponseBytes?: number
  /** Authorization for every request, e.g. an `OAuthProvider` (basic/authorization). */
  readonly auth?: HttpAuth
}

/** Wraps each request: adds credentials, answers 401/403 challenges, and keys per-credential caches. */
export interface HttpAuth {
  fetch(request: Request, next: (request: Request) => Promise<Response>): Promise<Response>
  credentialKey(): Promise<string>
}

export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024

/**
 * Methods whose `Mcp-Name` header mirrors `params.name` or `params.uri` (streamable-http §Standard Request
 * Headers), and the tasks methods, which mirror `params.taskId` (extensions/tasks §Streamable HTTP: Routing
 * Headers).
 */
const NAME_PARAM: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
}

/**
 * The Streamable HTTP client transport; `connect({ url })` makes one, construct it yourself to share or tune it.
 *
 * @example
 * ```ts
 * const transport = new HttpTransport({ url: 'https://mcp.example.com/mcp', headers: { 'x-team': 'docs' } })
 * const client = connect(transport)
 * ```
 */
export class HttpTransport implements ClientTransport {
  readonly kind = 'http'
  readonly url: URL
  onNotification: ((notification: JsonRpcNotification) => void) | undefined
  onRequest: ServerRequestHandler | undefined
  /** Set when the server turned out to be 2025-era (see legacy.ts). */
  legacy: LegacyHttpSession | undefined
  readonly #headers: HeadersInput | undefined
  readonly #stack: HttpStack
  readonly #maxBytes: number
  readonly #auth: HttpAuth | undefined

  constructor(options: HttpTransportOptions) {
    this.#maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
    this.url = new URL(options.url)
    if (this.url.protocol !== 'http:' && this.url.protocol !== 'https:') {
      throw new TypeError(`Expected an http(s) URL, got ${this.url.href}`)
    }
    this.#headers = options.headers
    const auth = (this.#auth = options.auth)
    const node = options.fetch ? undefined : nodeHttpStack()
    if (node && !auth) {
      this.#stack = node
    } else {
      // The auth middleware wraps a fetch-shaped function, so on Node the pool is presented as one.
      const plain = options.fetch ?? (node ? asFetch(node) : (request: Request) => fetch(request))
      const wrapped = auth ? (request: Request) => auth.fetch(request, plain) : plain
      const stack = fetchStack(wrapped)
      this.#stack = node ? { send: stack.send, close: () => node.close() } : stack
    }
  }

  async #userHeaders(): Promise<Readonly<Record<string, string>>> {
    const headers = this.#headers
    return typeof headers === 'function' ? await headers() : (headers ?? {})
  }

  async credentialKey(): Promise<string> {
    // Every credential the request carries counts: the OAuth token, and every configured header
    // (Authorization, X-Api-Key, Cookie …).
    const oauth = this.#auth ? await this.#auth.credentialKey() : 'anonymous'
    const headers = Object.entries(await this.#userHeaders())
      .map(([name, value]) => [name.toLowerCase(), value])
      .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0))
    return headers.length > 0 || oauth !== 'anonymous' ? JSON.stringify([oauth, headers]) : 'anonymous'
  }

  /** The headers a request must carry, derived from its body (the body stays the source of truth). */
  static standardHeaders(message: JsonRpcRequest | JsonRpcNotification): Record<string, string> {
    return addStandardHeaders({}, message)
  }

  async #post(message: JsonRpcMessage, options: SendOptions): Promise<Incoming> {
    // Fixed headers need no wait: a promise per call only for a headers function.
    const base = typeof this.#headers === 'function' ? await this.#baseHeaders() : this.#copyFixedHeaders()
    const headers = this.#messageHeaders(base, message, options)
    const cancel = options.cancellation ?? (options.signal && cancellationOf(options.signal))
    const response = await this.#exchange('POST', headers, JSON.stringify(message), cancel)
    // 2025-11-25 basic/transports §Session Management: the server assigns the session on initialize.
    const legacy = this.legacy
    if (legacy && legacy.sessionId === undefined) {
      const assigned = response.header('mcp-session-id')
      if (assigned) legacy.sessionId = assigned
    }
    options.onStatus?.(response.status)
    return response
  }

  #messageHeaders(
    headers: Record<string, string>,
    message: JsonRpcMessage,
    options: SendOptions,
  ): Record<string, string> {
    const legacy = this.legacy
    if (legacy) {
      this.#legacyHeaders(headers, legacy)
    } else if ('method' in message) {
      addStandardHeaders(headers, message)
      const extra = options.headers
      for (const name in extra) headers[name.toLowerCase()] = extra[name] as string
    }
    headers['content-type'] = 'application/json'
    headers.accept = 'application/json, text/event-stream'
    return headers
  }

  /** The configured headers, names in lower case: the base every request adds its own to. */
  async #baseHeaders(): Promise<Record<string, string>> {
    // Fixed headers are lower-cased once; a function is asked on every request (refreshed tokens).
    if (typeof this.#headers !== 'function') return this.#copyFixedHeaders()
    return lowerCased(await this.#headers())
  }

  #copyFixedHeaders(): Record<string, string> {
    const fixed = (this.#fixedHeaders ??= lowerCased(this.#headers as Readonly<Record<string, string>>))
    return { ...fixed }
  }

  #fixedHeaders: Record<string, string> | undefined

  #legacyHeaders(headers: Record<string, string>, legacy: LegacyHttpSession): void {
    headers['mcp-protocol-version'] = legacy.version
    if (legacy.sessionId !== undefined) headers['mcp-session-id'] = legacy.sessionId
  }

  async #exchange(
    method: Outgoing['method'],
    headers: Record<string, string>,
    body: string | undefined,
    cancel: Cancellation | undefined,
    url = this.url,
  ): Promise<Incoming> {
    const outgoing: { -readonly [K in keyof Outgoing]: Outgoing[K] } = { method, url, headers }
    if (body !== undefined) outgoing.body = body
    if (cancel) outgoing.cancel = cancel
    // After close only the session's DELETE goes out: an answer to a server request that settles after the
    // client closed (a cancelled sampling command) would open a new connection nobody ends, and keep an
    // application that waits for its event loop to empty (the CLI) running.
    if (this.#closed && method !== 'DELETE') throw new TransportError(`${url.href}: the client is closed`)
    try {
      return await this.#stack.send(outgoing)
    } catch (error) {
      if (cancel?.aborted) throw cancel.reason
      if (error instanceof AuthorizationError) throw error
      throw new TransportError(`Cannot reach ${url.href}: ${describe(error)}`, { cause: error })
    }
  }

  /** Whether the server turned out to serve the HTTP+SSE transport of 2024-11-05 (see http-sse.ts). */
  get oldSse(): boolean {
    return this.#oldSse !== undefined
  }

  /** The HTTP+SSE stream in use: its session lasts as long as the stream. */
  get oldSseChannel(): OldSseChannel | undefined {
    return this.#oldSse
  }

  #oldSse: OldSseChannel | undefined

  /**
   * Opens the HTTP+SSE transport of 2024-11-05 at this URL (2025-03-26 basic/transports §Backwards
   * Compatibility); from then on every message goes through it. Throws a one-line TransportError if the URL
   * serves no such stream within `timeoutMs`.
   */
  async openOldSse(timeoutMs: number): Promise<void> {
    this.#oldSse?.close()
    this.#oldSse = undefined
    this.#oldSse = await openOldSse(
      this.url,
      async (method, url, headers, body, cancel) =>
        this.#exchange(method, Object.assign(await this.#baseHeaders(), headers), body, cancel, url),
      this.#maxBytes,
      timeoutMs,
      {
        onNotification: (notification) => this.onNotification?.(notification),
        onRequest: (request, origin) => this.onRequest?.(request, origin),
      },
    )
  }

  async request(message: JsonRpcRequest, options: SendOptions = {}): Promise<JsonRpcResponse> {
    if (this.#oldSse) return this.#oldSse.request(message, options)
    const response = await this.#post(message, options)
    const type = response.header('content-type') ?? ''
    if (/^text\/event-stream/i.test(type)) {
      return this.#readStream(message, response, options)
    }
    const text = await this.#text(response, options)
    const parsed = parseJson(text)
    if (isResponseTo(parsed, message.id) || isIdlessError(parsed)) return parsed as JsonRpcResponse
    const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`
    // A web page (a 404 from a framework, a proxy's error) says nothing a terminal should show in full.
    const snippet = /^text\/html/i.test(type) ? '(an HTML page)' : text.trim().slice(0, 200)
    throw new TransportError(
      `${this.url.href} answered ${message.method} with ${status}${snippet ? `: ${snippet}` : ''}` +
        (isOk(response) ? ' (not a JSON-RPC response)' : ''),
      { status: response.status },
    )
  }

  async #text(response: Incoming, options: SendOptions): Promise<string> {
    try {
      return await response.text(this.#maxBytes)
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason
      if (error instanceof TransportError) throw error
      throw new TransportError(`Reading the response failed: ${describe(error)}`, { cause: error })
    }
  }

  async #readStream(
    message: JsonRpcRequest,
    first: Incoming,
    options: SendOptions,
  ): Promise<JsonRpcResponse> {
    const cursor: SseCursor = {}
    let response = first
    for (let resumed = 0; ; resumed++) {
      const answer = await this.#readEvents(response, options, cursor, message)
      if (answer) return answer
      if (options.signal?.aborted) throw options.signal.reason
      // 2025-11-25 basic/transports §Resumability and Redelivery: a stream that ends before its response
      // is resumed with GET and Last-Event-ID after `retry`. Only a server that numbers its events offers
      // that; 2026-07-28 streams are not resumable, so their servers send no ids.
      if (cursor.lastEventId === undefined || resumed >= MAX_RESUMES) {
        throw new TransportError(`The response stream for ${message.method} ended without a response`)
      }
      await pause(cursor.retryMs ?? DEFAULT_RETRY_MS, options.signal)
      response = await this.#openGet(cursor.lastEventId, options.signal)
    }
  }

  /** Reads one SSE body: notifications and server requests are dispatched; resolves with the response, if any. */
  async #readEvents(
    response: Incoming,
    options: SendOptions,
    cursor: SseCursor,
    message: JsonRpcRequest | undefined,
  ): Promise<JsonRpcResponse | undefined> {
    try {
      for await (const data of readSse(response.chunks(), this.#maxBytes, cursor)) {
        const parsed = parseJson(data)
        if (isRecord(parsed) && typeof parsed.method === 'string' && !('id' in parsed)) {
          const notification = parsed as unknown as JsonRpcNotification
          if (options.onNotification) options.onNotification(notification)
          else this.onNotification?.(notification)
        } else if (message && (isResponseTo(parsed, message.id) || isIdlessError(parsed))) {
          return parsed as JsonRpcResponse
        } else if (isServerRequest(parsed)) {
          // Only 2025-era servers ask on a stream; the answer is POSTed back, so reading goes on.
          this.onRequest?.(parsed, message)
        }
        // Anything else is ignored.
      }
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason
      if (error instanceof TransportError) throw error
      if (error instanceof OversizedError)
        throw new TransportError(`The response stream was refused: ${error.message}`)
      throw new TransportError(`The response stream broke: ${describe(error)}`, { cause: error })
    }
    return undefined
  }

  /** A GET for the session's stream (2025-era), resuming after `lastEventId` if given. */
  async #openGet(lastEventId: string | undefined, signal: AbortSignal | undefined): Promise<Incoming> {
    const headers = await this.#baseHeaders()
    if (this.legacy) this.#legacyHeaders(headers, this.legacy)
    headers.accept = 'text/event-stream'
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId
    const response = await this.#exchange('GET', headers, undefined, signal && cancellationOf(signal))
    const type = response.header('content-type') ?? ''
    if (!isOk(response) || !/^text\/event-stream/i.test(type)) {
      await response.discard()
      throw new TransportError(`${this.url.href} refused the GET stream with HTTP ${response.status}`, {
        status: response.status,
      })
    }
    return response
  }

  /** Sends a notification or a response to a server's request (202 expected). */
  async send(message: JsonRpcNotification | JsonRpcResponse): Promise<void> {
    if (this.#oldSse) return this.#oldSse.send(message)
    const response = await this.#post(message, {})
    await response.discard()
    if (!isOk(response)) {
      throw new TransportError(`${this.url.href} refused a message with HTTP ${response.status}`, {
        status: response.status,
      })
    }
  }

  /**
   * Keeps the 2025-era session's GET stream open in the background, where the server sends what belongs to
   * no request: list changes, resource updates, its own requests (2025-11-25 basic/transports §Listening
   * for Messages from the Server). A server without one answers 405; a stream the server ends is reopened.
   * Resolves whether the stream is open.
   */
  listenToSession(): Promise<boolean> {
    // The HTTP+SSE transport's one stream already carries everything.
    if (this.#oldSse) return Promise.resolve(true)
    if (this.legacy?.sessionId === undefined) return Promise.resolve(false)
    if (this.#sessionStream) return this.#sessionStream.opened
    const controller = new AbortController()
    let opened!: (open: boolean) => void
    const stream = { controller, opened: new Promise<boolean>((resolve) => (opened = resolve)) }
    this.#sessionStream = stream
    void (async () => {
      const cursor: SseCursor = {}
      let everOpen = false
      for (let failures = 0; failures < MAX_RESUMES && !controller.signal.aborted;) {
        try {
          const response = await this.#openGet(cursor.lastEventId, controller.signal)
          opened(true)
          everOpen = true
          failures = 0
          await this.#readEvents(response, {}, cursor, undefined)
        } catch {
          opened(false)
          if (!everOpen) return // no stream offered (405 …): nothing to reopen
          failures++
        }
        if (!controller.signal.aborted) await pause(cursor.retryMs ?? DEFAULT_RETRY_MS, controller.signal)
      }
    })().catch(() => opened(false))
    return stream.opened
  }

  #sessionStream: { controller: AbortController; opened: Promise<boolean> } | undefined

  /** Ends a 2025-era session with DELETE; a server that does not allow it (405) keeps it until it expires. */
  /** Drops a 2025-era session the server no longer knows (404): its stream stops, a new one may start. */
  forgetSession(): void {
    this.#sessionStream?.controller.abort()
    this.#sessionStream = undefined
    if (this.legacy) this.legacy = { version: this.legacy.version }
  }

  #closed = false

  async close(): Promise<void> {
    this.#closed = true
    this.#oldSse?.close()
    this.#oldSse = undefined
    this.#sessionStream?.controller.abort()
    this.#sessionStream = undefined
    const legacy = this.legacy
    if (legacy?.sessionId !== undefined) {
      const headers = await this.#baseHeaders()
      this.#legacyHeaders(headers, legacy)
      try {
        const timeout = cancellationOf(AbortSignal.timeout(5_000))
        const response = await this.#exchange('DELETE', headers, undefined, timeout)
        await response.discard()
      } catch {
        // the server is gone or slow: the session expires on its side
      }
      this.legacy = { version: legacy.version }
    }
    this.#stack.close()
  }
}

/** How often a stream that ends early is resumed in a row, and the wait when the server gave no `retry`. */
const MAX_RESUMES = 5
const DEFAULT_RETRY_MS = 1_000

function isServerRequest(value: unknown): value is JsonRpcRequest {
  return (
    isRecord(value) &&
    value.jsonrpc === '2.0' &&
    typeof value.method === 'string' &&
    (typeof value.id === 'string' || typeof value.id === 'number')
  )
}

/** Adds the headers a request must carry, derived from its body (the body stays the source of truth). */
function addStandardHeaders(
  headers: Record<string, string>,
  message: JsonRpcRequest | JsonRpcNotification,
): Record<string, string> {
  headers['mcp-method'] = message.method
  const meta = message.params?._meta
  const version = isRecord(meta) ? meta[META_PROTOCOL_VERSION] : undefined
  if (typeof version === 'string') headers['mcp-protocol-version'] = version
  const param = NAME_PARAM[message.method]
  const name = param === undefined ? undefined : message.params?.[param]
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name)
  return headers
}

function lowerCased(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const lower: Record<string, string> = {}
  for (const name in headers) lower[name.toLowerCase()] = headers[name] as string
  return lower
}

const isOk = (response: Incoming): boolean => response.status >= 200 && response.status < 300

function parseJson(text: string): unknown {
  if (nestedDeeperThan(text, MAX_RESPONSE_DEPTH))
    throw new TransportError(`The response is nested deeper than ${MAX_RESPONSE_DEPTH} levels; refused`)
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function isResponseTo(value: unknown, id: string | number): boolean {
  return (
    isRecord(value) && value.jsonrpc === '2.0' && value.id === id && ('result' in value || 'error' in value)
  )
}

function isIdlessError(value: unknown): boolean {
  return isRecord(value) && value.jsonrpc === '2.0' && isRecord(value.error) && (value.id ?? null) === null
}

export function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : ''
    return `${error.message}${cause}`
  }
  return String(error)
}
