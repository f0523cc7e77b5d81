/**
 * Serving 2025-era clients (2025-03-26, 2025-06-18, 2025-11-25) from the same server definition: the
 * `initialize` handshake, the methods only those revisions have (`ping`, `logging/setLevel`,
 * `resources/subscribe`/`unsubscribe`), list-change and resource-update notifications, and
 * server-to-client requests (elicitation, sampling, roots) whose answers resume the waiting handler.
 * Transports own the framing; everything else about the legacy era lives here, off the current path.
 */
import type { Reply } from '../protocol/dispatcher.js'
import type { Exchange } from '../protocol/exchange.js'
import type { ChangeBus, ChangeEvent, SessionEvent } from '../features/subscriptions/bus.js'
import { invalidParams, invalidRequest, methodNotFound } from '../wire/errors.js'
import {
  isRecord,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../wire/jsonrpc.js'
import { LOG_LEVELS, type LogLevel } from '../wire/meta.js'
import type { ClientCapabilities, Implementation, RequestMeta, ServerCapabilities } from '../wire/types.js'
import type { LegacySession } from './session.js'
import { legacyCapabilities, negotiateVersion } from './versions.js'
import { ClientRequests } from './client-requests.js'
import type { MethodHandler } from '../protocol/middleware.js'
import { resourceNotFound } from '../features/resources/define.js'

export interface LegacyOptions {
  /** How long a session id opens (default 24 h); afterwards the client gets 404 and initializes again. */
  readonly sessionTtlMs?: number
  /** Sessions whose log level and subscriptions one instance remembers (default 10 000; oldest go first). */
  readonly maxSessions?: number
  /** Longest URI `resources/subscribe` accepts, in characters (default 2048); longer is -32602. */
  readonly maxUriLength?: number
  /** Resources one session may be subscribed to at once (default 64); more is -32602. */
  readonly maxSubscriptionsPerSession?: number
  /**
   * Bytes of subscribed URIs one instance remembers over all sessions (default 16 MiB); past it the oldest
   * sessions without an open stream are forgotten, as past `maxSessions`.
   */
  readonly maxStateBytes?: number
  /**
   * Bytes of decrypted session ids one instance remembers, so a busy session is decrypted once (default
   * 16 MiB; at most 10 000 ids); the oldest go first.
   */
  readonly maxSessionCacheBytes?: number
  /**
   * Largest `capabilities` plus `clientInfo` an `initialize` may bring, in bytes of JSON (default 4096); more
   * is -32602. Both travel inside the session id, which must stay small enough for every proxy's headers.
   */
  readonly maxHandshakeBytes?: number
  /** Messages one JSON-RPC batch may hold (2025-03-26 sessions only; default 64); more is -32600. */
  readonly maxBatchLength?: number
}

export const LEGACY_DEFAULTS = {
  sessionTtlMs: 86_400_000,
  maxSessions: 10_000,
  maxUriLength: 2048,
  maxSubscriptionsPerSession: 64,
  maxStateBytes: 16 * 1024 * 1024,
  maxSessionCacheBytes: 16 * 1024 * 1024,
  maxHandshakeBytes: 4096,
  maxBatchLength: 64,
} as const

/** What a remembered subscription costs besides its URI's characters (set entry, string header). */
const SUBSCRIPTION_OVERHEAD = 64

/** What the engine needs of the server it serves. */
export interface LegacyHost {
  readonly info: Implementation
  /** Reports a failed publish on the change bus. */
  readonly onError: (what: string, error: unknown) => void
  readonly capabilities: ServerCapabilities
  readonly instructions: string | undefined
  readonly changes: ChangeBus
  /** Whether `resources/read` would find `uri` (an exact resource or a template's). */
  serves(uri: string): boolean
  /** Answers a request of a session; `own` answers the methods only the 2025 revisions have. */
  handleLegacy(
    request: JsonRpcRequest,
    exchange: Exchange,
    meta: RequestMeta,
    own?: MethodHandler,
  ): Promise<Reply | null>
}

/** What the 2025 protocol makes stateful about one client: kept per instance, never in the session id. */
export class PeerState {
  logLevel: LogLevel | undefined
  readonly subscriptions = new Set<string>()
  /** What the subscriptions hold, counted against the instance's `maxStateBytes`. */
  bytes = 0
  /** Whether the engine remembers this state for an HTTP session (and counts its bytes). */
  remembered = false
  /** Open notification channels (GET streams of an HTTP session, a stdio connection) and how to end each. */
  readonly streams = new Map<(message: JsonRpcNotification) => void, () => void>()
}

/** The outcome of a valid `initialize`. */
export interface Negotiated {
  readonly version: string
  readonly capabilities: ClientCapabilities
  readonly clientInfo: Implementation | undefined
  readonly result: Record<string, unknown>
}

const LEVELS = new Set<string>(LOG_LEVELS)

export class LegacyEngine {
  readonly #host: LegacyHost
  readonly #maxSessions: number
  readonly #maxUriLength: number
  readonly #maxSubscriptions: number
  readonly #maxStateBytes: number
  readonly #maxHandshakeBytes: number
  /** Messages one JSON-RPC batch of a 2025-03-26 session may hold. */
  readonly maxBatchLength: number
  /** Bytes the remembered sessions' subscriptions hold (see `PeerState.bytes`). */
  #stateBytes = 0
  /** Per-session state of HTTP sessions seen by this instance, oldest first. */
  readonly #states = new Map<string, PeerState>()
  /** Peers with an open notification channel. */
  readonly #listening = new Set<PeerState>()
  /** Sessions ended with DELETE, until their token would have expired anyway. */
  readonly #ended = new Map<string, number>()
  readonly #requests = new ClientRequests()
  /** Requests in flight on this instance, by peer and request id, for `notifications/cancelled`. */
  readonly #cancellers = new Map<string, (reason: unknown) => void>()

  constructor(host: LegacyHost, options: LegacyOptions = {}) {
    this.#host = host
    this.#maxSessions = positive(options.maxSessions, LEGACY_DEFAULTS.maxSessions, 'maxSessions')
    this.#maxUriLength = positive(options.maxUriLength, LEGACY_DEFAULTS.maxUriLength, 'maxUriLength')
    this.#maxSubscriptions = positive(
      options.maxSubscriptionsPerSession,
      LEGACY_DEFAULTS.maxSubscriptionsPerSession,
      'maxSubscriptionsPerSession',
    )
    this.#maxStateBytes = positive(options.maxStateBytes, LEGACY_DEFAULTS.maxStateBytes, 'maxStateBytes')
    this.maxBatchLength = positive(options.maxBatchLength, LEGACY_DEFAULTS.maxBatchLength, 'maxBatchLength')
    this.#maxHandshakeBytes = positive(
      options.maxHandshakeBytes,
      LEGACY_DEFAULTS.maxHandshakeBytes,
      'maxHandshakeBytes',
    )
    host.changes.subscribe((event) => this.#onEvent(event))
  }

  /**
   * Applies a change to an HTTP session here and tells the other instances over the change bus, since the
   * session's next request may reach any of them.
   */
  share(sessionId: string, change: SessionEvent['change']): void {
    this.#apply(sessionId, change)
    void this.#publish(sessionId, change)
  }

  /** Settles once the bus took the change (a failure is reported, never thrown). */
  #publish(sessionId: string, change: SessionEvent['change']): Promise<void> {
    const event: SessionEvent = { type: 'legacy/session', session: sessionId, change }
    return Promise.resolve()
      .then(() => this.#host.changes.publish(event))
      .catch((error: unknown) => this.#host.onError('publishing a legacy session change', error))
  }

  /** Registers how to cancel a request in flight; returns the unregister function. */
  track(peerKey: string, requestId: string | number, cancel: (reason: unknown) => void): () => void {
    const key = `${peerKey}\u0000${String(requestId)}`
    this.#cancellers.set(key, cancel)
    return () => void this.#cancellers.delete(key)
  }

  /** Applies a change, whether it was made here or came from another instance; repeats are harmless. */
  #apply(sessionId: string, change: SessionEvent['change']): boolean {
    switch (change.kind) {
      case 'response':
        return this.#requests.settle(sessionId, change.response)
      case 'cancelled': {
        const cancel = this.#cancellers.get(`${sessionId}\u0000${String(change.requestId)}`)
        cancel?.(change.reason)
        return cancel !== undefined
      }
      case 'level':
        if (LEVELS.has(change.level)) this.peer(sessionId).logLevel = change.level as LogLevel
        return true
      case 'subscribe':
      case 'unsubscribe': {
        if (typeof change.uri !== 'string') return false
        const peer = this.peer(sessionId)
        if (change.kind === 'unsubscribe') this.#unsubscribe(peer, change.uri)
        // Another instance checked the request; the bounds still hold here, whatever the bus carried.
        else if (change.uri.length <= this.#maxUriLength && peer.subscriptions.size < this.#maxSubscriptions)
          this.#subscribe(peer, change.uri)
        return true
      }
      case 'ended':
        this.#end(sessionId, change.expiresAt)
        return true
    }
  }

  /** Checks an `initialize` request and builds its result (2025-11-25 basic/lifecycle §Initialization). */
  negotiate(params: Record<string, unknown>): Negotiated {
    if (typeof params.protocolVersion !== 'string')
      throw invalidParams('Invalid params: initialize needs a protocolVersion string')
    const capabilities = params.capabilities ?? {}
    if (!isRecord(capabilities)) throw invalidParams('Invalid params: capabilities must be an object')
    const info = params.clientInfo
    if (info !== undefined && !(isRecord(info) && typeof info.name === 'string'))
      throw invalidParams('Invalid params: clientInfo needs a name')
    // What the client declares is carried in its session id on every request: it may not be unbounded.
    const declared = utf8Length(JSON.stringify({ capabilities, clientInfo: info }))
    if (declared > this.#maxHandshakeBytes)
      throw invalidParams(
        `Invalid params: capabilities and clientInfo take ${declared} bytes; at most ${this.#maxHandshakeBytes}`,
      )
    const version = negotiateVersion(params.protocolVersion)
    const result: Record<string, unknown> = {
      protocolVersion: version,
      capabilities: legacyCapabilities(this.#host.capabilities),
      serverInfo: this.#host.info,
    }
    if (this.#host.instructions !== undefined) result.instructions = this.#host.instructions
    return {
      version,
      capabilities: capabilities as ClientCapabilities,
      clientInfo: info as Implementation | undefined,
      result,
    }
  }

  /** The state this instance keeps for an HTTP session (made on first use, bounded). */
  peer(sessionId: string): PeerState {
    let state = this.#states.get(sessionId)
    if (state) return state
    state = new PeerState()
    state.remembered = true
    this.#states.set(sessionId, state)
    this.#trim(state)
    return state
  }

  /** Forgets the oldest sessions without an open stream while too many, or too many bytes, are kept. */
  #trim(keep: PeerState): void {
    const over = (): boolean =>
      this.#states.size > this.#maxSessions || this.#stateBytes > this.#maxStateBytes
    if (!over()) return
    for (const [id, old] of this.#states) {
      if (old === keep || old.streams.size > 0) continue
      this.#forget(id, old)
      if (!over()) return
    }
  }

  #forget(sessionId: string, state: PeerState): void {
    this.#states.delete(sessionId)
    state.remembered = false
    this.#stateBytes -= state.bytes
  }

  #subscribe(peer: PeerState, uri: string): void {
    if (peer.subscriptions.has(uri)) return
    peer.subscriptions.add(uri)
    const cost = uri.length + SUBSCRIPTION_OVERHEAD
    peer.bytes += cost
    if (!peer.remembered) return
    this.#stateBytes += cost
    this.#trim(peer)
  }

  #unsubscribe(peer: PeerState, uri: string): void {
    if (!peer.subscriptions.delete(uri)) return
    const cost = uri.length + SUBSCRIPTION_OVERHEAD
    peer.bytes -= cost
    if (peer.remembered) this.#stateBytes -= cost
  }

  /** Whether a session was ended with DELETE (its token still verifies until it expires). */
  isEnded(sessionId: string): boolean {
    return this.#ended.has(sessionId)
  }

  /**
   * Ends a session (HTTP DELETE): later requests with its id get 404 on every instance the change bus
   * reaches, until the id would have expired anyway.
   */
  end(session: LegacySession): void {
    this.share(session.id, { kind: 'ended', expiresAt: session.expiresAt })
  }

  #end(sessionId: string, expiresAt: number): void {
    const now = Date.now()
    for (const [id, until] of this.#ended) if (until <= now) this.#ended.delete(id)
    if (this.#ended.size < 100_000 && typeof expiresAt === 'number') this.#ended.set(sessionId, expiresAt)
    const state = this.#states.get(sessionId)
    if (state) {
      this.#forget(sessionId, state)
      this.#closeStreams(state)
    }
  }

  /**
   * Answers one request of a legacy peer. The methods only the 2025 revisions have run inside the server's
   * middleware like every other method, so they count against the caller's request limit: unmetered, a
   * handshake method is a free way to make the server work and remember.
   */
  request(
    session: Pick<LegacySession, 'version' | 'capabilities' | 'clientInfo'>,
    peer: PeerState,
    request: JsonRpcRequest,
    exchange: Exchange,
    sessionId?: string,
  ): Promise<Reply | null> {
    const params = request.params ?? {}
    const meta = sessionMeta(session, peer, params)
    const own = this.#handshakeMethod(request.method, peer, sessionId)
    return this.#host.handleLegacy(request, exchange, meta, own)
  }

  /**
   * Answers `initialize` (2025-11-25 basic/lifecycle §Initialization), counted like any request; `opened`
   * receives the negotiated session before the reply is returned, and only when it succeeded.
   */
  initialize(
    request: JsonRpcRequest,
    exchange: Exchange,
    opened: (negotiated: Negotiated) => void | Promise<void>,
  ): Promise<Reply | null> {
    const params = request.params ?? {}
    const meta: RequestMeta = {
      protocolVersion: negotiateVersion(params.protocolVersion),
      clientCapabilities: {},
      raw: {},
    }
    return this.#host.handleLegacy(request, exchange, meta, async () => {
      const negotiated = this.negotiate(params)
      await opened(negotiated)
      return negotiated.result
    })
  }

  /**
   * Refuses a subscription the session may not hold: what a session remembers must not grow with what a
   * client sends, and a URI the server does not serve gets the error `resources/read` gives for it
   * (2025-11-25 server/resources §Error Handling).
   */
  #checkSubscription(peer: PeerState, uri: string): void {
    if (uri.length > this.#maxUriLength)
      throw invalidParams(`Invalid params: uri is longer than ${this.#maxUriLength} characters`)
    if (!peer.subscriptions.has(uri) && peer.subscriptions.size >= this.#maxSubscriptions)
      throw invalidParams(
        `Invalid params: a session may hold at most ${this.#maxSubscriptions} subscriptions; unsubscribe first`,
      )
    if (!this.#host.serves(uri)) throw resourceNotFound(uri)
  }

  /** The handler of a method only the 2025 revisions have, or undefined for the server's own methods. */
  #handshakeMethod(
    method: string,
    peer: PeerState,
    sessionId: string | undefined,
  ): MethodHandler | undefined {
    switch (method) {
      case 'ping':
        return () => ({})
      case 'initialize':
        return () => {
          throw invalidRequest('this session is already initialized')
        }
      case 'logging/setLevel':
        return async (ctx) => {
          const { level } = ctx.params
          if (typeof level !== 'string' || !LEVELS.has(level))
            throw invalidParams(`Invalid params: unknown log level ${JSON.stringify(level)}`)
          peer.logLevel = level as LogLevel
          // Answered once the other instances have been told: the session's next request may reach any of
          // them, and it must find the level already set.
          if (sessionId !== undefined) await this.#publish(sessionId, { kind: 'level', level })
          return {}
        }
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        return async (ctx) => {
          if (!this.#host.capabilities.resources?.subscribe) throw methodNotFound(method)
          const { uri } = ctx.params
          if (typeof uri !== 'string') throw invalidParams('Invalid params: uri must be a string')
          if (method === 'resources/subscribe') this.#checkSubscription(peer, uri)
          if (method === 'resources/subscribe') this.#subscribe(peer, uri)
          else this.#unsubscribe(peer, uri)
          if (sessionId !== undefined) {
            const kind = method === 'resources/subscribe' ? 'subscribe' : 'unsubscribe'
            await this.#publish(sessionId, { kind, uri })
          }
          return {}
        }
      default:
        return undefined
    }
  }

  /** Sends a server-to-client request and waits for its answer (see ClientRequests.ask). */
  ask(
    peerKey: string,
    send: (message: JsonRpcRequest) => void,
    method: string,
    params: unknown,
    signal: AbortSignal,
  ): Promise<unknown> {
    return this.#requests.ask(peerKey, send, method, params, signal)
  }

  /**
   * Delivers a client's response to the handler waiting for it. With `share`, a response nothing waits for
   * here travels over the change bus to the instance that asked (an HTTP session's POST may land anywhere).
   */
  answer(peerKey: string, response: JsonRpcResponse, share = false): void {
    const raw = response as unknown as Record<string, unknown>
    if (!this.#requests.settle(peerKey, raw) && share)
      void this.#publish(peerKey, { kind: 'response', response: raw })
  }

  /** Ends every notification channel (server shutdown); calling it again does nothing. */
  close(): void {
    for (const peer of [...this.#listening]) this.#closeStreams(peer)
  }

  #closeStreams(peer: PeerState): void {
    const closers = [...peer.streams.values()]
    peer.streams.clear()
    this.#listening.delete(peer)
    for (const close of closers) close()
  }

  /**
   * Opens a notification channel for a peer; list changes and subscribed updates go to `send`, and `close`
   * runs when the session ends or the server shuts down. Returns the detach function.
   */
  attach(peer: PeerState, send: (message: JsonRpcNotification) => void, close: () => void): () => void {
    peer.streams.set(send, close)
    this.#listening.add(peer)
    return () => {
      peer.streams.delete(send)
      if (peer.streams.size === 0) this.#listening.delete(peer)
    }
  }

  #onEvent(event: ChangeEvent): void {
    if (event.type === 'legacy/session') {
      if (typeof event.session === 'string' && isRecord(event.change))
        this.#apply(event.session, event.change)
      return
    }
    if (this.#listening.size === 0) return
    const message: JsonRpcNotification =
      event.type === 'resources/updated'
        ? { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: event.uri } }
        : { jsonrpc: '2.0', method: `notifications/${event.type}` }
    for (const peer of this.#listening) {
      if (event.type === 'resources/updated' && !peer.subscriptions.has(event.uri)) continue
      for (const send of peer.streams.keys()) send(message)
    }
  }
}

const utf8Length = (text: string): number => new TextEncoder().encode(text).byteLength

function positive(value: number | undefined, fallback: number, what: string): number {
  const chosen = value ?? fallback
  if (!(Number.isInteger(chosen) && chosen > 0))
    throw new TypeError(`legacy.${what} must be a positive integer`)
  return chosen
}

/** What a session's request carries in place of the current revision's `_meta` envelope. */
function sessionMeta(
  session: Pick<LegacySession, 'version' | 'capabilities' | 'clientInfo'>,
  peer: PeerState,
  params: Record<string, unknown>,
): RequestMeta {
  const raw = isRecord(params._meta) ? params._meta : {}
  const meta: RequestMeta = {
    protocolVersion: session.version,
    clientCapabilities: session.capabilities,
    raw,
  }
  if (session.clientInfo) meta.clientInfo = session.clientInfo
  if (peer.logLevel) meta.logLevel = peer.logLevel
  const token = raw.progressToken
  if (typeof token === 'string' || (typeof token === 'number' && Number.isInteger(token)))
    meta.progressToken = token
  return meta
}
