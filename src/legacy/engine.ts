/**
 * Serving 2025-era clients (2025-03-26, 2025-06-18, 2025-11-25) from the same server definition: the
 * `initialize` handshake, the methods only those revisions have (`ping`, `logging/setLevel`,
 * `resources/subscribe`/`unsubscribe`), list-change and resource-update notifications, and
 * server-to-client requests (elicitation, sampling, roots) whose answers resume the waiting handler.
 * Transports own the framing; everything else about the legacy era lives here, off the current path.
 */
import type { SessionObserver } from '../protocol/telemetry.js'
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
import type { Implementation, RequestMeta, ServerCapabilities } from '../wire/types.js'
import type { LegacySession } from './session.js'
import { negotiateVersion } from './versions.js'
import { ClientRequests } from './client-requests.js'
import type { MethodHandler } from '../protocol/middleware.js'
import { resourceNotFound } from '../features/resources/define.js'
import { LEGACY_DEFAULTS, type LegacyOptions, positive } from './options.js'
import { PeerState, PeerStates } from './peer-states.js'
import { negotiate, type Negotiated, sessionMeta } from './handshake.js'
import type { SessionRecord, SessionStateStore } from '../features/subscriptions/session-store.js'

export { LEGACY_DEFAULTS, type LegacyOptions, type Negotiated, PeerState }
export type { SessionRecord, SessionStateStore } from '../features/subscriptions/session-store.js'

/** What the engine needs of the server it serves. */
export interface LegacyHost {
  readonly info: Implementation
  /** Reports a failed publish on the change bus. */
  readonly onError: (what: string, error: unknown) => void
  /** A session ended (telemetry on): DELETE over HTTP, the connection's end on stdio. */
  readonly onSessionEnd?: SessionObserver['sessionEnded']
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

const LEVELS = new Set<string>(LOG_LEVELS)

export class LegacyEngine {
  readonly #host: LegacyHost
  /** Per-session state of HTTP sessions seen by this instance, bounded. */
  readonly #peers: PeerStates
  readonly #maxHandshakeBytes: number
  /** Messages one JSON-RPC batch of a 2025-03-26 session may hold. */
  readonly maxBatchLength: number
  /** Peers with an open notification channel. */
  readonly #listening = new Set<PeerState>()
  /** Sessions ended with DELETE, until their token would have expired anyway. */
  readonly #ended = new Map<string, number>()
  readonly #requests = new ClientRequests()
  /** Requests in flight on this instance, by peer and request id, for `notifications/cancelled`. */
  readonly #cancellers = new Map<string, (reason: unknown) => void>()
  /** Where the session facts live for instances that start later (none: only the change bus carries them). */
  readonly #store: SessionStateStore | undefined

  constructor(host: LegacyHost, options: LegacyOptions = {}) {
    this.#host = host
    this.#store = options.stateStore
    this.#peers = new PeerStates(options)
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
        if (change.kind === 'unsubscribe') this.#peers.unsubscribe(peer, change.uri)
        // Another instance checked the request; the bounds still hold here, whatever the bus carried.
        else if (this.#peers.refusal(peer, change.uri) === undefined) this.#peers.subscribe(peer, change.uri)
        return true
      }
      case 'ended':
        this.#end(sessionId, change.expiresAt)
        return true
    }
  }

  /** Checks an `initialize` request and builds its result (2025-11-25 basic/lifecycle §Initialization). */
  negotiate(params: Record<string, unknown>): Negotiated {
    return negotiate(params, this.#host, this.#maxHandshakeBytes)
  }

  /** The state this instance keeps for an HTTP session (made on first use, bounded). */
  peer(sessionId: string): PeerState {
    return this.#peers.get(sessionId)
  }

  /** The session's state if this instance holds it and it has not ended; else `open` must look further. */
  held(session: Pick<LegacySession, 'id'>): PeerState | undefined {
    return this.#ended.has(session.id) ? undefined : this.#peers.held(session.id)
  }

  /**
   * The state of an HTTP session for one of its requests, or undefined when the session was ended (on any
   * instance). With a state store, a session this instance does not hold (it started after the session did, or
   * forgot the session to stay within its bounds) is read from the store first, so its log level, its
   * subscriptions and its end are the same on every instance. A store that fails is reported and the request
   * goes on with what this instance knows.
   */
  async open(session: Pick<LegacySession, 'id' | 'expiresAt'>): Promise<PeerState | undefined> {
    const held = this.held(session)
    if (held) return held
    if (this.#ended.has(session.id)) return undefined
    const record = await this.#load(session.id)
    if (record?.ended) {
      this.#end(session.id, session.expiresAt)
      return undefined
    }
    const peer = this.#peers.get(session.id)
    peer.expiresAt = session.expiresAt
    if (record) {
      // A change applied here while the store was read is newer than the record: it wins.
      if (peer.logLevel === undefined && record.level !== undefined && LEVELS.has(record.level))
        peer.logLevel = record.level as LogLevel
      for (const uri of record.subscriptions)
        if (this.#peers.refusal(peer, uri) === undefined) this.#peers.subscribe(peer, uri)
    }
    return peer
  }

  async #load(sessionId: string): Promise<SessionRecord | undefined> {
    if (!this.#store) return undefined
    try {
      return await this.#store.load(sessionId)
    } catch (error) {
      this.#host.onError('reading a legacy session from the state store', error)
      return undefined
    }
  }

  /** Writes a session fact to the store (when there is one); a failure is reported, never thrown. */
  async #persist(write: (store: SessionStateStore) => Promise<void>): Promise<void> {
    if (!this.#store) return
    try {
      await write(this.#store)
    } catch (error) {
      this.#host.onError('writing a legacy session to the state store', error)
    }
  }

  /** Whether a session was ended with DELETE (its token still verifies until it expires). */
  isEnded(sessionId: string): boolean {
    return this.#ended.has(sessionId)
  }

  /**
   * Ends a session (HTTP DELETE): later requests with its id get 404 on every instance the change bus
   * reaches, until the id would have expired anyway.
   */
  async end(session: LegacySession): Promise<void> {
    this.share(session.id, { kind: 'ended', expiresAt: session.expiresAt })
    this.#host.onSessionEnd?.(session.startedAt, session.version, 'http')
    await this.#persist((store) => store.end(session.id, session.expiresAt))
  }

  /** A stdio connection's 2025-era session ended with the connection. */
  endConnection(startedAt: number, version: string): void {
    this.#host.onSessionEnd?.(startedAt, version, 'stdio')
  }

  #end(sessionId: string, expiresAt: number): void {
    const now = Date.now()
    for (const [id, until] of this.#ended) if (until <= now) this.#ended.delete(id)
    if (this.#ended.size < 100_000 && typeof expiresAt === 'number') this.#ended.set(sessionId, expiresAt)
    const state = this.#peers.remove(sessionId)
    if (state) this.#closeStreams(state)
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
    const refusal = this.#peers.refusal(peer, uri)
    if (refusal) throw invalidParams(`Invalid params: ${refusal}`)
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
          if (sessionId !== undefined) {
            await this.#publish(sessionId, { kind: 'level', level })
            await this.#persist((store) => store.setLevel(sessionId, level, peer.expiresAt))
          }
          return {}
        }
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        return async (ctx) => {
          if (!this.#host.capabilities.resources?.subscribe) throw methodNotFound(method)
          const { uri } = ctx.params
          if (typeof uri !== 'string') throw invalidParams('Invalid params: uri must be a string')
          if (method === 'resources/subscribe') this.#checkSubscription(peer, uri)
          if (method === 'resources/subscribe') this.#peers.subscribe(peer, uri)
          else this.#peers.unsubscribe(peer, uri)
          if (sessionId !== undefined) {
            const kind = method === 'resources/subscribe' ? 'subscribe' : 'unsubscribe'
            await this.#publish(sessionId, { kind, uri })
            await this.#persist((store) =>
              kind === 'subscribe'
                ? store.subscribe(sessionId, uri, peer.expiresAt)
                : store.unsubscribe(sessionId, uri, peer.expiresAt),
            )
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
