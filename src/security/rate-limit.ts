/**
 * Rate limiting on rate-limiter-flexible behind a deliberately small store interface: a store only has to
 * take points from a key's budget in a fixed window. Memory is the default; a shared store (Redis …)
 * implements the same one method so every replica sees the same counts.
 */
import type RateLimiterMemory from 'rate-limiter-flexible/lib/RateLimiterMemory.js'
import type RateLimiterRes from 'rate-limiter-flexible/lib/RateLimiterRes.js'
import type { LRUCache } from 'lru-cache'
import { lazyLru, type LRUCacheClass } from './lru.js'
import type { OwnerKey } from '../protocol/principal.js'

interface Library {
  readonly Memory: typeof RateLimiterMemory
  readonly Res: typeof RateLimiterRes
  readonly LRU: LRUCacheClass
}
/** Loaded on the first `consume`: a server with rate limits off never imports these packages. */
let library: Library | undefined
let loading: Promise<Library> | undefined
const load = (): Promise<Library> =>
  (loading ??= Promise.all([
    import('rate-limiter-flexible/lib/RateLimiterMemory.js'),
    import('rate-limiter-flexible/lib/RateLimiterRes.js'),
    lazyLru.load(),
  ]).then(([memory, res, LRU]) => (library = { Memory: memory.default, Res: res.default, LRU })))

/** A budget: `points` per `durationMs` window. */
export interface Limit {
  readonly points: number
  readonly durationMs: number
}

/** A named budget (all requests, one tool …); each caller's owner key gets its own copy of it. */
export interface Bucket extends Limit {
  readonly name: string
}

export type Consumed = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterMs: number }

/**
 * Where rate-limit windows live: `MemoryRateLimitStore` (default) or `RedisRateLimitStore`, shared by instances.
 *
 * @example
 * ```ts
 * const server = defineServer({
 *   name: 'x',
 *   version: '1.0.0',
 *   security: { rateLimit: { store: await RedisRateLimitStore.connect({ url: process.env.REDIS_URL }) } },
 * })
 * ```
 */
export interface RateLimitStore {
  /** Takes `points` (default 1) from `owner`'s budget in `bucket`; refused when the budget is spent. */
  consume(bucket: Bucket, owner: OwnerKey, points?: number): Promise<Consumed>
}

export interface MemoryRateLimitOptions {
  /** Most keys remembered at once, across buckets (default 10 000); the least recently used go first. */
  readonly maxKeys?: number
}

/**
 * In-process store: exact for one process, not shared across replicas. Memory is bounded by `maxKeys`.
 *
 * @example
 * ```ts
 * const server = defineServer({
 *   name: 'notes',
 *   version: '1.0.0',
 *   security: { rateLimit: { store: new MemoryRateLimitStore() } },
 * })
 * ```
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly #limiters = new Map<string, RateLimiterMemory>()
  /** Buckets are usually defined once: look their limiter up by identity before building the id. */
  readonly #byBucket = new WeakMap<Bucket, RateLimiterMemory>()
  /** Keys remembered, least recently used dropped first (its count goes with it). */
  #keys: LRUCache<string, { limiter: RateLimiterMemory; key: string }> | undefined
  readonly #maxKeys: number

  constructor(options: MemoryRateLimitOptions = {}) {
    const maxKeys = options.maxKeys ?? 10_000
    if (!(maxKeys >= 1)) throw new TypeError('maxKeys must be at least 1')
    this.#maxKeys = maxKeys
  }

  /** How many keys are remembered now (for tests and metrics). */
  get size(): number {
    return this.#keys?.size ?? 0
  }

  #keysOf(lib: Library): LRUCache<string, { limiter: RateLimiterMemory; key: string }> {
    return (this.#keys ??= new lib.LRU({
      max: this.#maxKeys,
      dispose: (entry, _slot, reason) => {
        if (reason === 'evict') void entry.limiter.delete(entry.key)
      },
    }))
  }

  consume(bucket: Bucket, key: OwnerKey, points = 1): Promise<Consumed> {
    const lib = library
    if (!lib) return load().then(() => this.consume(bucket, key, points))
    const limiter = this.#limiter(lib, bucket)
    const slot = `${bucket.name}\u0000${key}`
    // get() marks the key as recently used; a new key may evict the least recently used one.
    const keys = this.#keysOf(lib)
    if (keys.get(slot) === undefined) keys.set(slot, { limiter, key })
    return limiter.consume(key, points).then(allowed, refused)
  }

  #limiter(lib: Library, bucket: Bucket): RateLimiterMemory {
    let limiter = this.#byBucket.get(bucket)
    if (limiter) return limiter
    const id = `${bucket.name}/${bucket.points}/${bucket.durationMs}`
    limiter = this.#limiters.get(id)
    if (!limiter) {
      limiter = new lib.Memory({
        keyPrefix: bucket.name,
        points: bucket.points,
        duration: bucket.durationMs / 1000,
      })
      this.#limiters.set(id, limiter)
    }
    this.#byBucket.set(bucket, limiter)
    return limiter
  }
}

const ALLOWED: Consumed = Object.freeze({ allowed: true })
const allowed = (): Consumed => ALLOWED
/** Only reached after a limiter answered, so the library is loaded. */
function refused(outcome: unknown): Consumed {
  if (outcome instanceof (library as Library).Res)
    return { allowed: false, retryAfterMs: outcome.msBeforeNext }
  throw outcome
}

export function checkLimit(limit: Limit, what: string): void {
  if (!Number.isInteger(limit.points) || limit.points < 1)
    throw new TypeError(`${what}.points must be a positive integer`)
  if (!(limit.durationMs >= 1)) throw new TypeError(`${what}.durationMs must be at least 1`)
}
