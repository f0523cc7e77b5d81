/**
 * Streamable HTTP as 2025-era clients speak it (2025-11-25 basic/transports §Streamable HTTP): `initialize`
 * mints a sealed `Mcp-Session-Id`, POSTs carry requests, notifications and the client's responses to our
 * requests, GET opens the session's notification stream, DELETE ends the session.
 */
import type { AuthInfo } from '../../protocol/exchange.js'
import { ownerKey, principalOf } from '../../protocol/principal.js'
import type { LegacyEngine } from '../../legacy/engine.js'
import type { LegacySession, SessionCodec } from '../../legacy/session.js'
import { encodeError } from '../../protocol/encode.js'
import { ErrorCode, invalidRequest, McpError } from '../../wire/errors.js'
import { classify, type Inbound, isRecord, isRequestId, type JsonRpcRequest } from '../../wire/jsonrpc.js'
import { LazyAbort } from '../../wire/lazy-abort.js'
import { HEADER_PROTOCOL_VERSION } from '../../wire/meta.js'
import { hasModernMeta } from '../../legacy/versions.js'
import type { HttpRequestView, HttpResponseSink } from './core.js'
import type { ListenSlots } from './listen-slots.js'
import { BATCHING_VERSIONS, BatchSink } from './legacy-batch.js'
import { HttpExchange, JSON_HEADERS, SSE_HEADERS, writeReply } from './exchange.js'

export const HEADER_SESSION_ID = 'mcp-session-id'

/** A legacy request's exchange: it can also ask the client (elicitation, sampling, roots) on its stream. */
class LegacyHttpExchange extends HttpExchange {
  // Lazy: an eager AbortController per POST was the largest single cost of a 2025-era call, and almost none
  // is ever cancelled.
  readonly #cancel = new LazyAbort()
  #signal: AbortSignal | undefined

  constructor(
    view: HttpRequestView,
    out: HttpResponseSink,
    auth: AuthInfo | undefined,
    private readonly engine: LegacyEngine,
    /** The session's random id (not the sealed token); telemetry records it as `mcp.session.id`. */
    readonly sessionId: string,
    maxBacklog: number,
  ) {
    super(view, out, auth, true, maxBacklog)
  }

  /** Aborted by a client disconnect or by `notifications/cancelled` on another POST. */
  override get signal(): AbortSignal {
    this.#signal ??= AbortSignal.any([this.view.signal, this.#cancel.signal])
    return this.#signal
  }

  override get aborted(): boolean {
    return this.#cancel.aborted || (this.view.aborted ?? this.view.signal.aborted)
  }

  override onAbort(listener: () => void): () => void {
    let called = false
    const once = (): void => {
      if (called) return
      called = true
      listener()
    }
    const offView = super.onAbort(once)
    const offCancel = this.#cancel.onAbort(once)
    return () => {
      offView()
      offCancel()
    }
  }

  cancel(reason: unknown): void {
    this.#cancel.abort(reason)
  }

  get request(): (method: string, params: unknown, signal: AbortSignal) => Promise<unknown> {
    return (method, params, signal) =>
      this.engine.ask(this.sessionId, (message) => this.send(message), method, params, signal)
  }
}

function sendError(out: HttpResponseSink, status: number, error: McpError, id?: JsonRpcRequest['id']): void {
  out.send(
    status,
    error.headers ? { ...JSON_HEADERS, ...error.headers } : JSON_HEADERS,
    encodeError(id, error),
  )
}

export class LegacyHttp {
  constructor(
    private readonly engine: LegacyEngine,
    private readonly sessions: SessionCodec,
    private readonly keepAliveMs: number,
    /** Unsent bytes a session's SSE answer or GET stream may pile up before it is cut. */
    private readonly maxBacklog: number,
    /** GET streams count as listen streams (`maxListenStreamsPerAddress`), whichever adapter serves them. */
    private readonly listens: ListenSlots,
  ) {}

  /** True when a POST belongs to the legacy era: an `initialize` or a session's message without `_meta`. */
  static claims(view: HttpRequestView, inbound: Inbound): boolean {
    if (inbound.kind === 'invalid') return false
    const message = inbound.message
    if ('method' in message && hasModernMeta(message.params)) return false
    if (inbound.kind === 'request' && inbound.message.method === 'initialize') return true
    return view.header(HEADER_SESSION_ID) !== undefined
  }

  async post(
    view: HttpRequestView,
    inbound: Inbound,
    out: HttpResponseSink,
    auth: AuthInfo | undefined,
  ): Promise<void> {
    if (inbound.kind === 'request' && inbound.message.method === 'initialize') {
      return this.#initialize(view, inbound.message, out, auth)
    }
    const session = await this.#session(view, out, auth)
    if (!session) return
    await this.deliver(view, inbound, out, auth, session)
  }

  /**
   * A JSON-RPC batch (an array body). Only 2025-03-26 has them (basic/transports §Sending Messages to the
   * Server: the body may be a batch of requests, notifications or responses); later revisions removed them,
   * so their sessions keep getting the refusal the current revision gives.
   */
  async batch(
    view: HttpRequestView,
    messages: readonly unknown[],
    out: HttpResponseSink,
    auth: AuthInfo | undefined,
  ): Promise<void> {
    const session = await this.#session(view, out, auth)
    if (!session) return
    if (!BATCHING_VERSIONS.has(session.version))
      return sendError(out, 400, invalidRequest('Batch requests are not supported'))
    const max = this.engine.maxBatchLength
    if (messages.length === 0) return sendError(out, 400, invalidRequest('a batch may not be empty'))
    if (messages.length > max)
      return sendError(out, 400, invalidRequest(`a batch may hold at most ${max} messages`))
    const sink = new BatchSink(out)
    await Promise.all(
      messages.map((message) => {
        const inbound = classify(message)
        if (inbound.kind === 'invalid')
          return sink.add(encodeError(inbound.id, invalidRequest(inbound.reason)))
        if (inbound.kind === 'request' && inbound.message.method === 'initialize') {
          // 2025-03-26 basic/lifecycle §Initialization: the initialize request must not be part of a batch.
          const refusal = invalidRequest('initialize must not be part of a batch')
          return sink.add(encodeError(inbound.message.id, refusal))
        }
        return this.deliver(view, inbound, sink, auth, session)
      }),
    )
    sink.finish()
  }

  /** One message of an open session (alone in its POST, or one element of a batch). */
  async deliver(
    view: HttpRequestView,
    inbound: Inbound,
    out: HttpResponseSink,
    auth: AuthInfo | undefined,
    session: LegacySession,
  ): Promise<void> {
    if (inbound.kind === 'notification') {
      const { method, params } = inbound.message
      if (method === 'notifications/cancelled' && isRecord(params) && isRequestId(params.requestId)) {
        // The cancelled request may run on another instance: the change bus carries the cancellation.
        const change: { kind: 'cancelled'; requestId: string | number; reason?: string } = {
          kind: 'cancelled',
          requestId: params.requestId,
        }
        if (typeof params.reason === 'string') change.reason = params.reason
        this.engine.share(session.id, change)
      }
      out.send(202, {})
      return
    }
    if (inbound.kind === 'response') {
      this.engine.answer(session.id, inbound.message, true)
      out.send(202, {})
      return
    }
    if (inbound.kind !== 'request') return
    const request = inbound.message
    const exchange = new LegacyHttpExchange(view, out, auth, this.engine, session.id, this.maxBacklog)
    const untrack = this.engine.track(session.id, request.id, (reason) => exchange.cancel(reason))
    try {
      const peer = this.engine.peer(session.id)
      const reply = await this.engine.request(session, peer, request, exchange, session.id)
      // A request cancelled before anything was streamed still needs its HTTP exchange closed.
      if ((reply === null || exchange.aborted) && !exchange.streaming) out.send(202, {})
      else writeReply(exchange, reply, out)
    } finally {
      untrack()
    }
  }

  /** GET: the session's stream of list changes and subscribed resource updates. */
  async stream(view: HttpRequestView, out: HttpResponseSink, auth: AuthInfo | undefined): Promise<void> {
    if (!/text\/event-stream|\*\/\*/i.test(view.header('accept') ?? '*/*')) {
      sendError(out, 406, invalidRequest('Accept must allow text/event-stream'))
      return
    }
    const session = await this.#session(view, out, auth)
    if (!session) return
    const slot = this.listens.take(view.remoteAddress, auth)
    if (typeof slot !== 'string') return sendError(out, 429, slot)
    if (view.aborted ?? view.signal.aborted) return this.listens.give(slot)
    out.startStream(SSE_HEADERS)
    out.write(':\n\n')
    let open = true
    const keepAlive =
      this.keepAliveMs > 0 ? setInterval(() => open && out.write(':\n\n'), this.keepAliveMs) : undefined
    keepAlive?.unref?.()
    const finish = (): void => {
      if (!open) return
      open = false
      if (keepAlive) clearInterval(keepAlive)
      this.listens.give(slot)
      detach()
      out.end()
    }
    const detach = this.engine.attach(
      this.engine.peer(session.id),
      (message) => {
        if (!open) return
        // A client that stops reading its stream must not grow the server without bound: cut the stream.
        if ((out.pending?.() ?? 0) > this.maxBacklog) {
          finish()
          out.abort?.()
          return
        }
        out.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`)
      },
      finish,
    )
    if (view.aborted ?? view.signal.aborted) finish()
    else view.signal.addEventListener('abort', finish, { once: true })
  }

  /** DELETE: ends the session (2025-11-25 §Session Management). */
  async end(view: HttpRequestView, out: HttpResponseSink, auth: AuthInfo | undefined): Promise<void> {
    const session = await this.#session(view, out, auth)
    if (!session) return
    await this.engine.end(session)
    out.send(200, {})
  }

  async #initialize(
    view: HttpRequestView,
    request: JsonRpcRequest,
    out: HttpResponseSink,
    auth: AuthInfo | undefined,
  ): Promise<void> {
    let token: string | undefined
    const exchange = new HttpExchange(view, out, auth, false, this.maxBacklog)
    const reply = await this.engine.initialize(request, exchange, async (negotiated) => {
      token = await this.sessions.mint(
        negotiated.version,
        negotiated.capabilities,
        negotiated.clientInfo,
        ownerKey(principalOf(auth, view.remoteAddress, 'http')),
      )
    })
    if (reply === null) return out.send(202, {})
    if (token === undefined) {
      // A refused handshake is 400, unless the refusal brought its own status (429 with Retry-After).
      const status = reply.headers ? reply.status : 400
      return out.send(
        status,
        reply.headers ? { ...JSON_HEADERS, ...reply.headers } : JSON_HEADERS,
        reply.body,
      )
    }
    out.send(200, { ...JSON_HEADERS, [HEADER_SESSION_ID]: token }, reply.body)
  }

  /** The request's open session, or undefined after answering 400 (no id) or 404 (unknown, ended, expired). */
  async #session(
    view: HttpRequestView,
    out: HttpResponseSink,
    auth: AuthInfo | undefined,
  ): Promise<LegacySession | undefined> {
    const token = view.header(HEADER_SESSION_ID)
    if (token === undefined) {
      sendError(out, 400, invalidRequest('Mcp-Session-Id header is required; send initialize first'))
      return undefined
    }
    // A session this instance knows and holds costs no turn of the microtask queue.
    const trimmed = token.trim()
    const session = this.sessions.cached(trimmed) ?? (await this.sessions.open(trimmed))
    // Another caller's session id is treated like an unknown one. The binding uses the same owner key as
    // rate limits, handles and tasks (`user:`, `client:` or `anon:` plus the id or address bucket), so a
    // client-credentials token whose subject equals a user's id cannot take over that user's session.
    const principal = ownerKey(principalOf(auth, view.remoteAddress, 'http'))
    // `open` also learns, from the state store when one is configured, whether another instance ended it.
    if (
      !session ||
      session.principal !== principal ||
      !(this.engine.held(session) ?? (await this.engine.open(session)))
    ) {
      sendError(
        out,
        404,
        new McpError(ErrorCode.SessionNotFound, 'Session not found: initialize a new session'),
      )
      return undefined
    }
    const version = view.header(HEADER_PROTOCOL_VERSION)?.trim()
    if (version !== undefined && version !== session.version) {
      sendError(
        out,
        400,
        invalidRequest(`MCP-Protocol-Version '${version}' does not match the session's ${session.version}`),
      )
      return undefined
    }
    return session
  }
}
