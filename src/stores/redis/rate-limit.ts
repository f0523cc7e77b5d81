/**
 * Rate-limit counts in Redis (rate-limiter-flexible's RateLimiterRedis), so every instance behind a load
 * balancer counts against the same budgets. Windows are whole seconds, as Redis expiry is.
 */
import { Redis } from 'ioredis'
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible'
import type { Bucket, Consumed, RateLimitStore } from '../../security/rate-limit.js'
import type { OwnerKey } from '../../protocol/principal.js'

export interface RedisRateLimitOptions {
  /** `redis://host:port/db`; ignored when `client` is given. */
  readonly url?: string
  /** An existing connection (any options, TLS, sentinel …); it stays open on `close()`. */
  readonly client?: Redis
  /** Key prefix shared by the instances of one deployment (default `toolwire:rl`). */
  readonly prefix?: string
}

const ALLOWED: Consumed = Object.freeze({ allowed: true })

/**
 * Keeps rate-limit windows in Redis, so every server instance draws from one budget per caller.
 *
 * @example
 * ```ts
 * import { RedisRateLimitStore } from 'toolwire/redis'
 *
 * const server = defineServer({
 *   name: 'notes',
 *   version: '1.0.0',
 *   security: { rateLimit: { store: await RedisRateLimitStore.connect({ url: process.env.REDIS_URL }) } },
 * })
 * ```
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #client: Redis
  readonly #owns: boolean
  readonly #prefix: string
  readonly #limiters = new Map<string, RateLimiterRedis>()

  private constructor(client: Redis, owns: boolean, prefix: string) {
    this.#client = client
    this.#owns = owns
    this.#prefix = prefix
  }

  /** Connects (or adopts `client`) and resolves once Redis answers. */
  static async connect(options: RedisRateLimitOptions = {}): Promise<RedisRateLimitStore> {
    const owns = options.client === undefined
    const client = options.client ?? new Redis(options.url ?? 'redis://127.0.0.1:6379')
    // ioredis reconnects by itself; meanwhile each consume fails and the pipeline logs that.
    if (owns) client.on('error', () => {})
    await client.ping()
    return new RedisRateLimitStore(client, owns, options.prefix ?? 'toolwire:rl')
  }

  consume(bucket: Bucket, key: OwnerKey, points = 1): Promise<Consumed> {
    return this.#limiter(bucket)
      .consume(key, points)
      .then(
        () => ALLOWED,
        (outcome: unknown) => {
          if (outcome instanceof RateLimiterRes) return { allowed: false, retryAfterMs: outcome.msBeforeNext }
          throw outcome // Redis unreachable: the pipeline logs it and lets the request through
        },
      )
  }

  /** Closes the connection when the store opened it. */
  async close(): Promise<void> {
    if (this.#owns) await this.#client.quit().catch(() => this.#client.disconnect())
  }

  #limiter(bucket: Bucket): RateLimiterRedis {
    const id = `${bucket.name}/${bucket.points}/${bucket.durationMs}`
    let limiter = this.#limiters.get(id)
    if (!limiter) {
      if (bucket.durationMs < 1000)
        throw new TypeError(`bucket ${bucket.name}: Redis windows are at least 1 s`)
      limiter = new RateLimiterRedis({
        storeClient: this.#client,
        keyPrefix: `${this.#prefix}:${bucket.name}`,
        points: bucket.points,
        duration: Math.ceil(bucket.durationMs / 1000),
        rejectIfRedisNotReady: true,
      })
      this.#limiters.set(id, limiter)
    }
    return limiter
  }
}
