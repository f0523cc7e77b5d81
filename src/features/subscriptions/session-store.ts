/**
 * Where the per-session facts of 2025-era HTTP sessions live when several instances serve one deployment: the
 * log level (`logging/setLevel`), the resource subscriptions (`resources/subscribe`) and whether the session was
 * ended (HTTP DELETE). The change bus tells the instances that are running when a fact changes; a store also
 * serves instances that start later, and sessions an instance forgot to stay within its bounds
 * (2025-11-25 basic/transports §Session Management: any instance may receive the session's next request).
 *
 * Every fact expires with the session id that made it (`expiresAt`), so a store holds nothing past a token's life.
 */

/** What a store remembers of one session. */
export interface SessionRecord {
  readonly level?: string | undefined
  readonly subscriptions: readonly string[]
  readonly ended: boolean
}

/** A shared home for 2025-era session state (`defineServer({ legacy: { stateStore } })`); see `RedisSessionStore`. */
export interface SessionStateStore {
  /** The session's facts, or undefined when nothing was stored for it. */
  load(sessionId: string): Promise<SessionRecord | undefined>
  setLevel(sessionId: string, level: string, expiresAt: number): Promise<void>
  subscribe(sessionId: string, uri: string, expiresAt: number): Promise<void>
  unsubscribe(sessionId: string, uri: string, expiresAt: number): Promise<void>
  /** Marks the session ended until `expiresAt`, and drops its other facts. */
  end(sessionId: string, expiresAt: number): Promise<void>
}
