/** One HTTP request's exchange and how its answer is written (plain JSON, or SSE once something streamed). */
import type { MethodSpec, Reply, TransportCheck } from '../../protocol/dispatcher.js'
import { type AuthInfo, type Exchange, onSignalAbort } from '../../protocol/exchange.js'
import type { JsonRpcNotification, JsonRpcRequest } from '../../wire/jsonrpc.js'
import type { RequestMeta } from '../../wire/types.js'
import type { HttpRequestView, HttpResponseSink } from './core.js'
import { checkStandardHeaders } from './standard-headers.js'
import type { KeepAliveStream } from './keep-alive.js'

export const JSON_HEADERS = { 'content-type': 'application/json' }
/** Unsent SSE bytes one response may pile up for a client that does not read (`HttpOptions.maxBacklogBytes`). */
export const DEFAULT_MAX_BACKLOG = 256 * 1024

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
}

/**
 * One request's exchange. A class rather than an object literal with getters or per-request closures, which
 * measurably raised the CPU cost of a small tools/call. `header` and `notify` are handed out as bound
 * functions only when read, since callers may pass them around. It is also the request's transport check.
 */
export class HttpExchange implements Exchange, TransportCheck, KeepAliveStream {
  readonly transport = 'http' as const
  /** Set once the first notification turned the answer into an SSE stream. */
  streaming = false
  readonly remoteAddress: string | undefined
  /** Set by the core once the body's raw text passed the depth check (`Exchange.checkedDepth`). */
  checkedDepth: number | undefined = undefined

  constructor(
    protected readonly view: HttpRequestView,
    protected readonly out: HttpResponseSink,
    readonly auth: AuthInfo | undefined,
    /** Whether the client's Accept allows an SSE answer; without it the answer stays one JSON body. */
    private readonly eventStream = true,
    private readonly maxBacklog = DEFAULT_MAX_BACKLOG,
  ) {
    this.remoteAddress = view.remoteAddress
  }

  checkRequest(request: JsonRpcRequest, meta: RequestMeta, spec: MethodSpec | undefined): void {
    checkStandardHeaders(this.view, request, meta, spec)
  }

  /** Read only by telemetry: a getter, so a request without it pays nothing. */
  get remotePort(): number | undefined {
    return this.view.remotePort
  }

  get httpVersion(): string | undefined {
    return this.view.httpVersion
  }

  get header(): (name: string) => string | undefined {
    return (name) => this.view.header(name)
  }

  get notify(): (message: JsonRpcNotification) => void {
    return (message) => this.send(message)
  }

  /** An SSE comment on an open stream, so proxies keep it open (see `KeepAlives`). */
  keepAlive(): void {
    if (this.streaming && !this.aborted) this.out.write(':\n\n')
  }

  /** Writes a message on this request's stream, turning the answer into SSE on the first one. */
  send(message: object): void {
    if (this.#ready()) this.out.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`)
  }

  /** A notification serialised by the caller (once for many streams): see Exchange.notifyEncoded. */
  notifyEncoded(json: string): void {
    if (this.#ready()) this.out.write(`event: message\ndata: ${json}\n\n`)
  }

  /** Whether a message may be written now; the first one turns the answer into an SSE stream. */
  #ready(): boolean {
    // A client that accepts only JSON gets one JSON body (streamable-http §Sending Messages, item 6): its
    // progress and log notifications are dropped, as they are when it did not ask for them.
    if (this.aborted || !this.eventStream) return false
    if (!this.streaming) {
      this.streaming = true
      this.out.startStream(SSE_HEADERS)
    } else if (this.backlog() > this.maxBacklog) {
      // A client that does not read must not grow the server without bound: cancel the request.
      this.out.abort?.()
      return false
    }
    return true
  }

  get signal(): AbortSignal {
    return this.view.signal
  }

  get aborted(): boolean {
    return this.view.aborted ?? this.view.signal.aborted
  }

  onAbort(listener: () => void): () => void {
    return this.view.onAbort ? this.view.onAbort(listener) : onSignalAbort(this.view.signal, listener)
  }

  /** Bytes written for this request that the peer has not taken yet (bounds slow listen streams). */
  backlog(): number {
    return this.out.pending?.() ?? 0
  }
}

/** Ends a request's answer: the final message on its stream, or a plain JSON response. */
export function writeReply(exchange: HttpExchange, reply: Reply | null, out: HttpResponseSink): void {
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
