/** What a transport hands the protocol layer for one request: its channel back and its surroundings. */
import type { JsonRpcNotification } from '../wire/jsonrpc.js'
import type { Principal } from './principal.js'

/** The identity an authenticated request carries (filled in by an auth middleware or transport). */
export interface AuthInfo {
  /** Stable id of the caller as the token names it (e.g. its `sub`). */
  readonly subject: string
  /**
   * Which claim `subject` came from: a user (`sub`, the default) or a client acting for itself (`client_id` /
   * `azp` with no `sub`). Ids from different claims live in different namespaces and never collide.
   */
  readonly subjectKind?: 'user' | 'client'
  readonly scopes: readonly string[]
  readonly clientId?: string
  readonly expiresAt?: number
  readonly token?: string
  readonly claims?: Readonly<Record<string, unknown>>
}

export interface Exchange {
  readonly transport: 'http' | 'stdio' | 'memory'
  /** Fires when the peer cancels: HTTP disconnect, stdio `notifications/cancelled`. */
  readonly signal: AbortSignal
  /** Whether `signal` has fired, for transports that make the signal lazily (reading it would create it). */
  readonly aborted?: boolean
  /**
   * Calls `listener` once when the request is cancelled (at once if it already was) and returns what
   * unregisters it: a long-lived request (a listen stream) waits for its end without making `signal`, which
   * a transport creates lazily. Optional: `onAbortOf` falls back to `signal`.
   */
  onAbort?(listener: () => void): () => void
  /** Sends a notification scoped to this request, before its response (progress, log messages). */
  notify(message: JsonRpcNotification): void
  /**
   * What `notify` would send for `message` after this exchange's own filters (the output guard): `message`
   * itself when they would change nothing. A sender that writes one message to many streams asks once per
   * stream and then writes text it serialised once (`notifyEncoded`). Absent: nothing filters.
   */
  screen?(message: JsonRpcNotification): JsonRpcNotification
  /**
   * Sends a notification already serialised, which `screen` passed unchanged: the listen hub serialises a
   * change once for all its streams instead of once per stream. Absent: the sender uses `notify`.
   */
  notifyEncoded?(json: string): void
  /** Bytes written for this request but not yet taken by the peer (bounds slow listen streams). */
  backlog?(): number
  /**
   * Sends a server-to-client request and resolves with the client's result. Only legacy (2025-era)
   * sessions have it: there `ctx.input` asks the client directly instead of answering `input_required`.
   */
  readonly request?: ((method: string, params: unknown, signal: AbortSignal) => Promise<unknown>) | undefined
  /** An HTTP request header by lower-case name; absent on other transports. */
  readonly header?: ((name: string) => string | undefined) | undefined
  /** Set by the transport when the request was authenticated. */
  readonly auth?: AuthInfo | undefined
  /** The peer's address, for per-client limits when anonymous. */
  readonly remoteAddress?: string | undefined
  /** The peer's port, where the transport knows it (telemetry's `client.port`). */
  readonly remotePort?: number | undefined
  /** The HTTP version the request came over (`1.1`, `2`), where known (`network.protocol.version`). */
  readonly httpVersion?: string | undefined
  /**
   * Who the request acts for, when the channel already knows it (a task run restores its creator's);
   * otherwise it is worked out from `auth` and `remoteAddress`.
   */
  readonly principal?: Principal | undefined
  /** A 2025-era HTTP session's own random id (never the `Mcp-Session-Id` token that opens it). */
  readonly sessionId?: string | undefined
  /**
   * The `params` nesting depth the transport already refused anything deeper than, on the message's raw
   * text (wire/json-depth.ts), so the input guard need not walk `params` for it again; undefined: unchecked.
   */
  readonly checkedDepth?: number | undefined
}

/** True once the request was cancelled, without creating a lazily made signal. */
export const isAborted = (exchange: Exchange): boolean => exchange.aborted ?? exchange.signal.aborted

/** `listener` once when `signal` fires (at once if it has); returns what unregisters it. */
export function onSignalAbort(signal: AbortSignal, listener: () => void): () => void {
  if (signal.aborted) {
    listener()
    return () => undefined
  }
  signal.addEventListener('abort', listener, { once: true })
  return () => signal.removeEventListener('abort', listener)
}

/** `exchange.onAbort`, or the same through its signal for exchanges without it. */
export const onAbortOf = (exchange: Exchange, listener: () => void): (() => void) =>
  exchange.onAbort ? exchange.onAbort(listener) : onSignalAbort(exchange.signal, listener)

/**
 * An exchange whose notifications pass through `filter` first (e.g. output sanitising). It delegates
 * everything else: transports expose `signal`, `notify` and `header` as prototype getters, so spreading an
 * exchange would silently lose them.
 */
class FilteredExchange implements Exchange {
  constructor(
    private readonly inner: Exchange,
    private readonly filter: (message: JsonRpcNotification) => JsonRpcNotification,
  ) {}
  get transport(): Exchange['transport'] {
    return this.inner.transport
  }
  get signal(): AbortSignal {
    return this.inner.signal
  }
  get aborted(): boolean {
    return isAborted(this.inner)
  }
  onAbort(listener: () => void): () => void {
    return onAbortOf(this.inner, listener)
  }
  get auth(): AuthInfo | undefined {
    return this.inner.auth
  }
  get remoteAddress(): string | undefined {
    return this.inner.remoteAddress
  }
  get remotePort(): number | undefined {
    return this.inner.remotePort
  }
  get httpVersion(): string | undefined {
    return this.inner.httpVersion
  }
  get principal(): Principal | undefined {
    return this.inner.principal
  }
  get header(): ((name: string) => string | undefined) | undefined {
    return this.inner.header
  }
  get sessionId(): string | undefined {
    return this.inner.sessionId
  }
  get checkedDepth(): number | undefined {
    return this.inner.checkedDepth
  }
  /** A getter handing out a bound function, so `const { notify } = ctx.exchange` works as on transports. */
  get notify(): (message: JsonRpcNotification) => void {
    return (message) => this.inner.notify(this.filter(message))
  }
  screen(message: JsonRpcNotification): JsonRpcNotification {
    const filtered = this.filter(message)
    return this.inner.screen ? this.inner.screen(filtered) : filtered
  }
  /** Only for text `screen` passed (see Exchange.notifyEncoded), so it goes through unfiltered. */
  notifyEncoded(json: string): void {
    if (this.inner.notifyEncoded) this.inner.notifyEncoded(json)
    else this.inner.notify(JSON.parse(json) as JsonRpcNotification)
  }
  backlog(): number {
    return this.inner.backlog?.() ?? 0
  }
  get request(): Exchange['request'] {
    return this.inner.request
  }
}

export function filterNotifications(
  exchange: Exchange,
  filter: (message: JsonRpcNotification) => JsonRpcNotification,
): Exchange {
  return new FilteredExchange(exchange, filter)
}
