/** What an operator may bound about 2025-era sessions (`defineServer({ legacy })`), and the defaults. */
import type { SessionStateStore } from '../features/subscriptions/session-store.js'

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
  /**
   * Where several instances keep each session's log level, subscriptions and end (`RedisSessionStore` from
   * `toolwire/redis`), so an instance that starts later, or forgot a session, serves it the same way. Without
   * one, only instances running when a fact changes learn it (over the change bus).
   */
  readonly stateStore?: SessionStateStore
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

export function positive(value: number | undefined, fallback: number, what: string): number {
  const chosen = value ?? fallback
  if (!(Number.isInteger(chosen) && chosen > 0))
    throw new TypeError(`legacy.${what} must be a positive integer`)
  return chosen
}
