/**
 * Rate limits behind a deliberately small store interface: a store only has to take points from a key's
 * budget in a fixed window. The in-process store counts synchronously in an LRU map (a limit that answers
 * at once keeps a synchronous tool's call free of promises); a shared store (Redis …) implements the same
 * one method, asynchronously, so every replica sees the same counts.
 */
import type { LRUCache } from 'lru-cache'
import { lazyLru, type LRUCacheClass } from './lru.js'
import type { OwnerKey } from '../protocol/principal.js'

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
  /**
   * Takes `points` (default 1) from `owner`'s budget in `bucket`; refused when the budget is spent. The
   * answer may be immediate (the in-process store) or a promise (a shared store).
   */
  consume(bucket: Bucket, owner: OwnerKey, points?: number): Consumed | Promise<Consumed>
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
  /** Each bucket's key prefix, built once per bucket object (buckets are defined once, used per call). */
  readonly #prefixes = new WeakMap<Bucket, string>()
  /** Windows by bucket and key, least recently used dropped first (its count goes with it). */
  #windows: LRUCache<string, Window> | undefined
  readonly #maxKeys: number

  constructor(options: MemoryRateLimitOptions = {}) {
    const maxKeys = options.maxKeys ?? 10_000
    if (!(maxKeys >= 1)) throw new TypeError('maxKeys must be at least 1')
    this.#maxKeys = maxKeys
  }

  /** How many keys are remembered now (for tests and metrics). */
  get size(): number {
    return this.#windows?.size ?? 0
  }

  consume(bucket: Bucket, key: OwnerKey, points = 1): Consumed | Promise<Consumed> {
    if (!this.#windows) {
      // lru-cache loads with the first count: synchronously where `require` reaches it (Node), else once.
      const LRU = lazyLru.now()
      if (!LRU) return lazyLru.load().then((loaded) => this.#take(this.#open(loaded), bucket, key, points))
      this.#open(LRU)
    }
    return this.#take(this.#windows as LRUCache<string, Window>, bucket, key, points)
  }

  #open(LRU: LRUCacheClass): LRUCache<string, Window> {
    return (this.#windows ??= new LRU<string, Window>({ max: this.#maxKeys }))
  }

  /** A fixed window per key: it starts with the key's first count and ends `durationMs` later. */
  #take(windows: LRUCache<string, Window>, bucket: Bucket, key: OwnerKey, points: number): Consumed {
    let prefix = this.#prefixes.get(bucket)
    if (prefix === undefined) {
      prefix = `${bucket.name}/${bucket.points}/${bucket.durationMs}\u0000`
      this.#prefixes.set(bucket, prefix)
    }
    const slot = prefix + key
    const now = Date.now()
    // get() marks the key as recently used; a new key may evict the least recently used one.
    let window = windows.get(slot)
    if (window === undefined || window.endsAt <= now) {
      window = { used: 0, endsAt: now + bucket.durationMs }
      windows.set(slot, window)
    }
    if (window.used + points > bucket.points) return { allowed: false, retryAfterMs: window.endsAt - now }
    window.used += points
    return ALLOWED
  }
}

interface Window {
  used: number
  readonly endsAt: number
}

const ALLOWED: Consumed = Object.freeze({ allowed: true })

export function checkLimit(limit: Limit, what: string): void {
  if (!Number.isInteger(limit.points) || limit.points < 1)
    throw new TypeError(`${what}.points must be a positive integer`)
  if (!(limit.durationMs >= 1)) throw new TypeError(`${what}.durationMs must be at least 1`)
}
