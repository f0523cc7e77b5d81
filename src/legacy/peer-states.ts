/**
 * What the 2025 protocol makes stateful about one client (its log level, its subscriptions, its open streams),
 * kept per instance and never in the session id, and bounded: a URI's length, subscriptions per session, and
 * the sessions and subscription bytes one instance remembers (the oldest sessions without an open stream are
 * forgotten first; a client that comes back repeats `logging/setLevel` and `resources/subscribe`).
 */
import type { JsonRpcNotification } from '../wire/jsonrpc.js'
import type { LogLevel } from '../wire/meta.js'
import { LEGACY_DEFAULTS, type LegacyOptions, positive } from './options.js'

/** What a remembered subscription costs besides its URI's characters (set entry, string header). */
const SUBSCRIPTION_OVERHEAD = 64

/** What the 2025 protocol makes stateful about one client: kept per instance, never in the session id. */
export class PeerState {
  logLevel: LogLevel | undefined
  readonly subscriptions = new Set<string>()
  /** What the subscriptions hold, counted against the instance's `maxStateBytes`. */
  bytes = 0
  /** When the HTTP session's id expires (epoch ms), which is when its stored facts expire; 0 when unknown. */
  expiresAt = 0
  /** Whether the engine remembers this state for an HTTP session (and counts its bytes). */
  remembered = false
  /** Open notification channels (GET streams of an HTTP session, a stdio connection) and how to end each. */
  readonly streams = new Map<(message: JsonRpcNotification) => void, () => void>()
}

export class PeerStates {
  /** Oldest first. */
  readonly #states = new Map<string, PeerState>()
  /** Bytes the remembered sessions' subscriptions hold (see `PeerState.bytes`). */
  #bytes = 0
  readonly #maxSessions: number
  readonly #maxUriLength: number
  readonly #maxSubscriptions: number
  readonly #maxBytes: number

  constructor(options: LegacyOptions) {
    this.#maxSessions = positive(options.maxSessions, LEGACY_DEFAULTS.maxSessions, 'maxSessions')
    this.#maxUriLength = positive(options.maxUriLength, LEGACY_DEFAULTS.maxUriLength, 'maxUriLength')
    this.#maxSubscriptions = positive(
      options.maxSubscriptionsPerSession,
      LEGACY_DEFAULTS.maxSubscriptionsPerSession,
      'maxSubscriptionsPerSession',
    )
    this.#maxBytes = positive(options.maxStateBytes, LEGACY_DEFAULTS.maxStateBytes, 'maxStateBytes')
  }

  /** A session's state, made on first use. */
  get(sessionId: string): PeerState {
    let state = this.#states.get(sessionId)
    if (state) return state
    state = new PeerState()
    state.remembered = true
    this.#states.set(sessionId, state)
    this.#trim(state)
    return state
  }

  /** A session's state if this instance holds it, without making one. */
  held(sessionId: string): PeerState | undefined {
    return this.#states.get(sessionId)
  }

  /** Forgets a session's state (it ended); returns it, so its streams can be closed. */
  remove(sessionId: string): PeerState | undefined {
    const state = this.#states.get(sessionId)
    if (state) this.#forget(sessionId, state)
    return state
  }

  /** Why `peer` may not subscribe to `uri` (too long, too many), or undefined when it may. */
  refusal(peer: PeerState, uri: string): string | undefined {
    if (uri.length > this.#maxUriLength) return `uri is longer than ${this.#maxUriLength} characters`
    if (!peer.subscriptions.has(uri) && peer.subscriptions.size >= this.#maxSubscriptions)
      return `a session may hold at most ${this.#maxSubscriptions} subscriptions; unsubscribe first`
    return undefined
  }

  subscribe(peer: PeerState, uri: string): void {
    if (peer.subscriptions.has(uri)) return
    peer.subscriptions.add(uri)
    const cost = uri.length + SUBSCRIPTION_OVERHEAD
    peer.bytes += cost
    if (!peer.remembered) return
    this.#bytes += cost
    this.#trim(peer)
  }

  unsubscribe(peer: PeerState, uri: string): void {
    if (!peer.subscriptions.delete(uri)) return
    const cost = uri.length + SUBSCRIPTION_OVERHEAD
    peer.bytes -= cost
    if (peer.remembered) this.#bytes -= cost
  }

  /** Forgets the oldest sessions without an open stream while too many, or too many bytes, are kept. */
  #trim(keep: PeerState): void {
    const over = (): boolean => this.#states.size > this.#maxSessions || this.#bytes > this.#maxBytes
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
    this.#bytes -= state.bytes
  }
}
