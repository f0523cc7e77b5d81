/**
 * Rate limits behind a deliberately small store interface: a store only has to take points from a key's
 * budget in a fixed window. The in-process store counts synchronously in an LRU map (a limit that answers
 * at once keeps a synchronous tool's call free of promises); a shared store (Redis …) implements the same
 * one method, asynchronously, so every replica sees the same counts.
 */
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
   * answer may be immediate (the in-process store) or a promise (a shared store). `now` is the request's
   * time as the caller read it (`RequestContext.timestamp()`), so the limits one request passes agree on
   * it; a store that keeps time elsewhere (a shared store's server) may ignore it.
   */
  consume(bucket: Bucket, owner: OwnerKey, points?: number, now?: number): Consumed | Promise<Consumed>
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
  /** Each bucket's name with its budget, made once per bucket object (buckets are defined once, used per call). */
  readonly #names = new WeakMap<Bucket, string>()
  /**
   * Windows by bucket name, then by owner: a call's window is one lookup once its bucket's map is known, and
   * the owner key of a request's principal is the same string every request (protocol/principal.ts), so it
   * hashes nothing new. A bucket's map goes when its last window is dropped (see `#drop`).
   */
  readonly #buckets = new Map<string, Map<OwnerKey, Window>>()
  readonly #recent: [Bucket | undefined, Bucket | undefined] = [undefined, undefined]
  readonly #recentWindows: [Map<OwnerKey, Window>, Map<OwnerKey, Window>] = [new Map(), new Map()]
  /** Every window, most recently used first; the last is dropped when there are more than `maxKeys`. */
  #newest: Window | undefined
  #oldest: Window | undefined
  #size = 0
  readonly #maxKeys: number

  constructor(options: MemoryRateLimitOptions = {}) {
    const maxKeys = options.maxKeys ?? 10_000
    if (!(maxKeys >= 1)) throw new TypeError('maxKeys must be at least 1')
    this.#maxKeys = maxKeys
  }

  /** How many keys (one per owner and bucket) are remembered now (for tests and metrics). */
  get size(): number {
    return this.#size
  }

  /** A fixed window per key: it starts with the key's first count and ends `durationMs` later. */
  consume(bucket: Bucket, key: OwnerKey, points = 1, now = Date.now()): Consumed {
    const windows = this.#windowsOf(bucket)
    let window = windows.get(key)
    if (window === undefined) {
      window = new Window(key, this.#names.get(bucket) as string, windows)
      windows.set(key, window)
      this.#size++
      this.#link(window)
      if (this.#size > this.#maxKeys) this.#drop(this.#oldest as Window)
    } else if (window !== this.#newest) {
      this.#unlink(window)
      this.#link(window)
    }
    if (window.endsAt <= now) {
      window.used = 0
      window.endsAt = now + bucket.durationMs
    }
    if (window.used + points > bucket.points) return { allowed: false, retryAfterMs: window.endsAt - now }
    window.used += points
    return ALLOWED
  }

  /**
   * A bucket's windows, filed under its name with its budget. A tool call consumes from two buckets (the
   * request limit, then the tool's), so the last two are kept beside the WeakMap: it costs more to ask than
   * the two comparisons.
   */
  #windowsOf(bucket: Bucket): Map<OwnerKey, Window> {
    if (bucket === this.#recent[0]) return this.#recentWindows[0]
    if (bucket === this.#recent[1]) return this.#recentWindows[1]
    let name = this.#names.get(bucket)
    if (name === undefined) {
      name = `${bucket.name}/${bucket.points}/${bucket.durationMs}`
      this.#names.set(bucket, name)
    }
    let windows = this.#buckets.get(name)
    if (windows === undefined) this.#buckets.set(name, (windows = new Map()))
    this.#recent[1] = this.#recent[0]
    this.#recentWindows[1] = this.#recentWindows[0]
    this.#recent[0] = bucket
    this.#recentWindows[0] = windows
    return windows
  }

  /** Makes `window` the most recently used. */
  #link(window: Window): void {
    window.older = this.#newest
    window.newer = undefined
    if (this.#newest) this.#newest.newer = window
    else this.#oldest = window
    this.#newest = window
  }

  #unlink(window: Window): void {
    if (window.newer) window.newer.older = window.older
    else this.#newest = window.older
    if (window.older) window.older.newer = window.newer
    else this.#oldest = window.newer
    window.newer = window.older = undefined
  }

  /**
   * Forgets the least recently used window (its count goes with it), and its bucket's map once empty, so the
   * maps kept are never more than the windows, whatever bucket names a caller of `consume` passes.
   */
  #drop(window: Window): void {
    this.#unlink(window)
    this.#size--
    const windows = window.windows
    windows.delete(window.owner)
    if (windows.size > 0) return
    this.#buckets.delete(window.bucket)
    if (this.#recentWindows[0] === windows) this.#recent[0] = undefined
    if (this.#recentWindows[1] === windows) this.#recent[1] = undefined
  }
}

/** One owner's count in one bucket, linked into the store's recency list. */
class Window {
  used = 0
  endsAt = 0
  newer: Window | undefined
  older: Window | undefined
  constructor(
    readonly owner: OwnerKey,
    /** Its bucket's name with the budget, and the map of that bucket's windows that holds it. */
    readonly bucket: string,
    readonly windows: Map<OwnerKey, Window>,
  ) {}
}

const ALLOWED: Consumed = Object.freeze({ allowed: true })

export function checkLimit(limit: Limit, what: string): void {
  if (!Number.isInteger(limit.points) || limit.points < 1)
    throw new TypeError(`${what}.points must be a positive integer`)
  if (!(limit.durationMs >= 1)) throw new TypeError(`${what}.durationMs must be at least 1`)
}
