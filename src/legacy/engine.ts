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
import { invalidParams, invalidRequest, McpError, methodNotFound } from '../wire/errors.js'
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
import { encodeResult } from '../protocol/encode.js'

export interface LegacyOptions {
  /** How long a session id opens (default 24 h); afterwards the client gets 404 and initializes again. */
  readonly sessionTtlMs?: number
  /** Sessions whose log level and subscriptions one instance remembers (default 10 000; oldest go first). */
  readonly maxSessions?: number
}

/** What the engine needs of the server it serves. */
export interface LegacyHost {
  readonly info: Implementation
  /** Reports a failed publish on the change bus. */
  readonly onError: (what: string, error: unknown) => void
  readonly capabilities: ServerCapabilities
  readonly instructions: string | undefined
  readonly changes: ChangeBus
  handleLegacy(request: JsonRpcRequest, exchange: Exchange, meta: RequestMeta): Promise<Reply | null>
}

/** What the 2025 protocol makes stateful about one client: kept per instance, never in the session id. */
export class PeerState {
  logLevel: LogLevel | undefined
  readonly subscriptions = new Set<string>()
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
    this.#maxSessions = options.maxSessions ?? 10_000
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
        const { subscriptions } = this.peer(sessionId)
        if (change.kind === 'subscribe') subscriptions.add(change.uri)
        else subscriptions.delete(change.uri)
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
    this.#states.set(sessionId, state)
    if (this.#states.size > this.#maxSessions) {
      for (const [id, old] of this.#states) {
        if (old.streams.size > 0) continue
        this.#states.delete(id)
        break
      }
    }
    return state
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
    this.#states.delete(sessionId)
    if (state) this.#closeStreams(state)
  }

  /** Answers one request of a legacy peer. */
  async request(
    session: Pick<LegacySession, 'version' | 'capabilities' | 'clientInfo'>,
    peer: PeerState,
    request: JsonRpcRequest,
    exchange: Exchange,
    sessionId?: string,
  ): Promise<Reply | null> {
    const params = request.params ?? {}
    try {
      switch (request.method) {
        case 'ping':
          return ok(request, {})
        case 'initialize':
          throw invalidRequest('this session is already initialized')
        case 'logging/setLevel':
          if (typeof params.level !== 'string' || !LEVELS.has(params.level))
            throw invalidParams(`Invalid params: unknown log level ${JSON.stringify(params.level)}`)
          peer.logLevel = params.level as LogLevel
          // Answered once the other instances have been told: the session's next request may reach any of
          // them, and it must find the level already set.
          if (sessionId !== undefined) await this.#publish(sessionId, { kind: 'level', level: params.level })
          return ok(request, {})
        case 'resources/subscribe':
        case 'resources/unsubscribe':
          if (!this.#host.capabilities.resources?.subscribe) throw methodNotFound(request.method)
          if (typeof params.uri !== 'string') throw invalidParams('Invalid params: uri must be a string')
          if (request.method === 'resources/subscribe') peer.subscriptions.add(params.uri)
          else peer.subscriptions.delete(params.uri)
          if (sessionId !== undefined) {
            const kind = request.method === 'resources/subscribe' ? 'subscribe' : 'unsubscribe'
            await this.#publish(sessionId, { kind, uri: params.uri })
          }
          return ok(request, {})
      }
    } catch (error) {
      if (!(error instanceof McpError)) throw error
      return { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: request.id, error: error.toJSON() }) }
    }
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
    return this.#host.handleLegacy(request, exchange, meta)
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

const ok = (request: JsonRpcRequest, result: Record<string, unknown>): Reply => ({
  status: 200,
  body: encodeResult(request.id, result),
})
