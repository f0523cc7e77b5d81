/** What a transport hands the protocol layer for one request: its channel back and its surroundings. */
import type { JsonRpcNotification } from '../wire/jsonrpc.js'

/** The identity an authenticated request carries (filled in by an auth middleware or transport). */
export interface AuthInfo {
  /** Stable principal id (e.g. the token's `sub`). */
  readonly subject: string
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
  /** Sends a notification scoped to this request, before its response (progress, log messages). */
  notify(message: JsonRpcNotification): void
  /** An HTTP request header by lower-case name; absent on other transports. */
  header?(name: string): string | undefined
  /** Set by the transport when the request was authenticated. */
  readonly auth?: AuthInfo | undefined
  /** The peer's address, for per-client limits when anonymous. */
  readonly remoteAddress?: string | undefined
}

/** True once the request was cancelled, without creating a lazily made signal. */
export const isAborted = (exchange: Exchange): boolean => exchange.aborted ?? exchange.signal.aborted
