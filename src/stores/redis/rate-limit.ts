/**
 * Rate-limit counts in Redis (rate-limiter-flexible's RateLimiterRedis), so every instance behind a load
 * balancer counts against the same budgets. Windows are whole seconds, as Redis expiry is.
 * rate-limiter-flexible is an optional peer dependency, like ioredis: only this store needs it, so it is
 * imported when a store connects, and the other Redis stores work without it.
 */
import { Redis } from 'ioredis'
import type * as Flexible from 'rate-limiter-flexible'
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

type RateLimiterFlexible = typeof Flexible

let loading: Promise<RateLimiterFlexible> | undefined

/** Imports rate-limiter-flexible once; a clear error when the optional peer dependency is missing. */
function loadRateLimiterFlexible(): Promise<RateLimiterFlexible> {
  loading ??= import('rate-limiter-flexible').catch((error: unknown) => {
    loading = undefined
    throw new Error(
      'RedisRateLimitStore needs the optional peer dependency rate-limiter-flexible: npm install rate-limiter-flexible',
      { cause: error },
    )
  })
  return loading
}

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
  readonly #flexible: RateLimiterFlexible
  readonly #client: Redis
  readonly #owns: boolean
  readonly #prefix: string
  readonly #limiters = new Map<string, Flexible.RateLimiterRedis>()

  private constructor(flexible: RateLimiterFlexible, client: Redis, owns: boolean, prefix: string) {
    this.#flexible = flexible
    this.#client = client
    this.#owns = owns
    this.#prefix = prefix
  }

  /** Connects (or adopts `client`) and resolves once Redis answers. */
  static async connect(options: RedisRateLimitOptions = {}): Promise<RedisRateLimitStore> {
    const flexible = await loadRateLimiterFlexible()
    const owns = options.client === undefined
    const client = options.client ?? new Redis(options.url ?? 'redis://127.0.0.1:6379')
    // ioredis reconnects by itself; meanwhile each consume fails and the pipeline logs that.
    if (owns) client.on('error', () => {})
    await client.ping()
    return new RedisRateLimitStore(flexible, client, owns, options.prefix ?? 'toolwire:rl')
  }

  consume(bucket: Bucket, key: OwnerKey, points = 1): Promise<Consumed> {
    return this.#limiter(bucket)
      .consume(key, points)
      .then(
        () => ALLOWED,
        (outcome: unknown) => {
          if (outcome instanceof this.#flexible.RateLimiterRes)
            return { allowed: false, retryAfterMs: outcome.msBeforeNext }
          throw outcome // Redis unreachable: the pipeline logs it and lets the request through
        },
      )
  }

  /** Closes the connection when the store opened it. */
  async close(): Promise<void> {
    if (this.#owns) await this.#client.quit().catch(() => this.#client.disconnect())
  }

  #limiter(bucket: Bucket): Flexible.RateLimiterRedis {
    const id = `${bucket.name}/${bucket.points}/${bucket.durationMs}`
    let limiter = this.#limiters.get(id)
    if (!limiter) {
      if (bucket.durationMs < 1000)
        throw new TypeError(`bucket ${bucket.name}: Redis windows are at least 1 s`)
      limiter = new this.#flexible.RateLimiterRedis({
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
