/**
 * 2025-era session state in Redis: each session's log level, subscriptions and end, so an instance that starts
 * after a client's `logging/setLevel`, `resources/subscribe` or DELETE (or forgot the session to stay within its
 * bounds) serves that session as the instance that handled them did.
 *
 * Key layout (one hash tag per session, so a session's keys share a Redis Cluster slot):
 *   {prefix:<id>}:s   hash   level, ended ("1")
 *   {prefix:<id>}:u   set    the subscribed URIs
 * Both expire when the session id does (plus `clockSkewMs`), so Redis holds nothing past a token's life. A set
 * holds at most what `legacy.maxSubscriptionsPerSession` lets a session subscribe to: the engine checks before
 * it writes, and only the first that many are read back.
 */
import { Redis } from 'ioredis'
import type { SessionRecord, SessionStateStore } from '../../features/subscriptions/session-store.js'

export interface RedisSessionStoreOptions {
  /** `redis://host:port/db`; ignored when `client` is given. */
  readonly url?: string
  /** An existing connection (any options, TLS, sentinel …); it stays open on `close()`. */
  readonly client?: Redis
  /** Key prefix shared by the instances of one deployment (default `toolwire:session`). */
  readonly prefix?: string
  /** Slack added to each key's expiry for clocks of instances that disagree (default 5 000 ms). */
  readonly clockSkewMs?: number
  /** Subscriptions read back per session at most (default 64, as `legacy.maxSubscriptionsPerSession`). */
  readonly maxSubscriptions?: number
}

/**
 * Keeps each 2025-era session's log level, subscriptions and end in Redis, with the session's lifetime.
 *
 * @example
 * ```ts
 * import { RedisChangeBus, RedisSessionStore } from 'toolwire/redis'
 *
 * const url = process.env.REDIS_URL
 * const server = defineServer({
 *   name: 'notes',
 *   version: '1.0.0',
 *   changes: await RedisChangeBus.connect({ url }),
 *   requestState: { secret: process.env.STATE_SECRET },
 *   legacy: { stateStore: await RedisSessionStore.connect({ url }) },
 * })
 * ```
 */
export class RedisSessionStore implements SessionStateStore {
  readonly #client: Redis
  readonly #owns: boolean
  readonly #prefix: string
  readonly #skewMs: number
  readonly #maxSubscriptions: number

  private constructor(client: Redis, owns: boolean, options: RedisSessionStoreOptions) {
    this.#client = client
    this.#owns = owns
    this.#prefix = encodeURIComponent(options.prefix ?? 'toolwire:session')
    this.#skewMs = options.clockSkewMs ?? 5_000
    this.#maxSubscriptions = options.maxSubscriptions ?? 64
  }

  /** Connects (or adopts `client`) and resolves once Redis answers. */
  static async connect(options: RedisSessionStoreOptions = {}): Promise<RedisSessionStore> {
    const owns = options.client === undefined
    const client = options.client ?? new Redis(options.url ?? 'redis://127.0.0.1:6379')
    // ioredis reconnects by itself; meanwhile each operation fails and the engine reports it.
    if (owns) client.on('error', () => {})
    await client.ping()
    return new RedisSessionStore(client, owns, options)
  }

  async load(sessionId: string): Promise<SessionRecord | undefined> {
    const [state, uris] = this.#keys(sessionId)
    const results = await this.#client
      .multi()
      .hmget(state, 'level', 'ended')
      .sscan(uris, 0, 'COUNT', this.#maxSubscriptions)
      .exec()
    const [level, ended] = (results?.[0]?.[1] ?? []) as (string | null)[]
    const scanned = (results?.[1]?.[1] ?? ['0', []]) as [string, string[]]
    const subscriptions = scanned[1].slice(0, this.#maxSubscriptions)
    if (level == null && ended == null && subscriptions.length === 0) return undefined
    return { level: level ?? undefined, subscriptions, ended: ended === '1' }
  }

  async setLevel(sessionId: string, level: string, expiresAt: number): Promise<void> {
    const [state] = this.#keys(sessionId)
    await this.#client
      .multi()
      .hset(state, 'level', level)
      .pexpireat(state, expiresAt + this.#skewMs)
      .exec()
  }

  async subscribe(sessionId: string, uri: string, expiresAt: number): Promise<void> {
    const [, uris] = this.#keys(sessionId)
    await this.#client
      .multi()
      .sadd(uris, uri)
      .pexpireat(uris, expiresAt + this.#skewMs)
      .exec()
  }

  async unsubscribe(sessionId: string, uri: string): Promise<void> {
    const [, uris] = this.#keys(sessionId)
    await this.#client.srem(uris, uri)
  }

  async end(sessionId: string, expiresAt: number): Promise<void> {
    const [state, uris] = this.#keys(sessionId)
    await this.#client
      .multi()
      .del(uris)
      .hdel(state, 'level')
      .hset(state, 'ended', '1')
      .pexpireat(state, expiresAt + this.#skewMs)
      .exec()
  }

  /** Closes the connection when the store opened it. */
  async close(): Promise<void> {
    if (this.#owns) await this.#client.quit().catch(() => this.#client.disconnect())
  }

  #keys(sessionId: string): [state: string, uris: string] {
    const tag = `{${this.#prefix}:${encodeURIComponent(sessionId)}}`
    return [`${tag}:s`, `${tag}:u`]
  }
}
