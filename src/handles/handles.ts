/**
 * State handles for stateful tools (a basket, a browser context, a transaction): opaque UUIDv4 strings
 * bound to the principal that created them, kept alive by use, and explained to the model when they are
 * gone. The retention policy is stated once and appended to the creating tool's description.
 */
import type { RequestContext } from '../protocol/context.js'
import { type OwnerKey, ownerKey, type Principal } from '../protocol/principal.js'
import { ToolError } from '../features/tools/errors.js'
import { MemoryHandleStore } from './memory.js'
import { HandleLimitError, type HandleStore } from './store.js'

export interface HandleKindOptions {
  /** What a handle names, singular, e.g. `basket`. */
  readonly kind: string
  /** The tool that creates one, named in errors so the model knows how to recover. */
  readonly createTool: string
  /** Idle time after which a handle expires; each use restarts it (default 30 minutes). */
  readonly ttlMs?: number
  /** Default: a `MemoryHandleStore`. Use `SqliteHandleStore` from `toolwire/sqlite` to survive restarts. */
  readonly store?: HandleStore
  /**
   * Who owns what a request creates, and whose quota it counts against (default: `ctx.principal`, the
   * authenticated user or client; an anonymous caller by its address, IPv6 by /64; else its transport).
   */
  readonly owner?: (ctx: RequestContext) => Principal
}

/** Writers racing on one handle from other instances; past this many lost races the caller is told to retry. */
const MAX_SWAP_ATTEMPTS = 32

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/**
 * Anonymous handles are bearer tokens: their 122 random bits are the protection (tools §Stateful Tools).
 * Their owner is the caller's network, so one address filling its quota cannot lock out every other one.
 */
const defaultOwner = (ctx: RequestContext): Principal => ctx.principal

function duration(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ]
  for (const [size, name] of units) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${name}${ms === size ? '' : 's'}`
  }
  return `${ms} ms`
}

export class HandleKind<T> {
  readonly kind: string
  readonly ttlMs: number
  /** The sentence to put in the creating tool's description. */
  readonly retention: string
  readonly store: HandleStore
  readonly #createTool: string
  readonly #owner: (ctx: RequestContext) => OwnerKey
  /** Serialises read-modify-write per handle within this process; entries live only while in use. */
  readonly #locks = new Map<string, Promise<unknown>>()

  constructor(options: HandleKindOptions) {
    if (!/^[a-z][a-z0-9 _-]{0,63}$/i.test(options.kind))
      throw new TypeError('handle kind must be a short word')
    this.kind = options.kind
    this.ttlMs = options.ttlMs ?? 30 * 60_000
    if (!(this.ttlMs >= 1)) throw new TypeError('handle ttlMs must be positive')
    this.store = options.store ?? new MemoryHandleStore()
    this.#createTool = options.createTool
    const owner = options.owner ?? defaultOwner
    this.#owner = (ctx) => ownerKey(owner(ctx))
    this.retention =
      `Returns a ${this.kind} handle that expires after ${duration(this.ttlMs)} without use; ` +
      `each use keeps it alive. Only the caller that created it can use it.`
  }

  /** `text` followed by the retention policy: use it as the creating tool's description. */
  describe(text: string): string {
    return `${text.trim()} ${this.retention}`
  }

  /** Stores `data` and returns the new handle. */
  async create(ctx: RequestContext, data: T): Promise<string> {
    const id = crypto.randomUUID()
    try {
      await this.store.create(this.kind, id, this.#owner(ctx), data, this.ttlMs)
    } catch (error) {
      if (error instanceof HandleLimitError)
        throw new ToolError(
          `Cannot create another ${this.kind}: ${error.message}. Finish or delete one first.`,
        )
      throw error
    }
    return id
  }

  /** The handle's data (and its lifetime restarted); a tool error saying how to recover when it is gone. */
  async get(ctx: RequestContext, handle: unknown): Promise<T> {
    const id = this.#checked(handle)
    const data = await this.store.touch(this.kind, id, this.#owner(ctx))
    if (data === undefined) throw this.#gone()
    return data as T
  }

  /**
   * Reads, changes and writes back one handle's data. Within this process changes to one handle run one at
   * a time; across instances the store's compare-and-swap refuses a write based on stale data, and the
   * change runs again on what is now stored, so `change` must be free of side effects besides its result.
   */
  async update(ctx: RequestContext, handle: unknown, change: (data: T) => T | Promise<T>): Promise<T> {
    const id = this.#checked(handle)
    return this.#serialised(id, async () => {
      const owner = this.#owner(ctx)
      for (let attempt = 0; attempt < MAX_SWAP_ATTEMPTS; attempt++) {
        const data = await this.store.touch(this.kind, id, owner)
        if (data === undefined) throw this.#gone()
        // `change` may edit its argument in place: it gets a copy, so `data` still says what was read.
        const next = await change(structuredClone(data) as T)
        const outcome = await this.store.swap(this.kind, id, owner, data, next)
        if (outcome === 'swapped') return next
        if (outcome === 'gone') throw this.#gone()
        // Lost a race with another instance. Without a pause the winner, whose next queued change starts at
        // once, keeps winning; a random, growing pause lets the loser through (full-jitter backoff).
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(2 ** attempt, 100)))
      }
      throw new ToolError(`The ${this.kind} is being changed by other requests right now; try again.`)
    })
  }

  /** Ends a handle; a tool error when it is already gone. */
  async delete(ctx: RequestContext, handle: unknown): Promise<void> {
    const id = this.#checked(handle)
    if (!(await this.store.delete(this.kind, id, this.#owner(ctx)))) throw this.#gone()
  }

  #checked(handle: unknown): string {
    if (typeof handle !== 'string' || !UUID_V4.test(handle))
      throw new ToolError(`That is not a ${this.kind} handle. Call ${this.#createTool} to get one.`)
    return handle
  }

  #gone(): ToolError {
    return new ToolError(
      `Unknown or expired ${this.kind} handle: ${this.kind}s expire after ${duration(this.ttlMs)} without use. ` +
        `Call ${this.#createTool} to get a new one.`,
    )
  }

  async #serialised<R>(id: string, work: () => Promise<R>): Promise<R> {
    const before = this.#locks.get(id) ?? Promise.resolve()
    const run = before.then(work, work)
    const settled = run.catch(() => undefined)
    this.#locks.set(id, settled)
    try {
      return await run
    } finally {
      if (this.#locks.get(id) === settled) this.#locks.delete(id)
    }
  }
}

/**
 * Declares a kind of state handle: random ids bound to the principal that created them, with an idle lifetime.
 *
 * @example
 * ```ts
 * const baskets = defineHandles<{ items: string[] }>({ kind: 'basket', createTool: 'basket_create' })
 * const create = defineTool({
 *   name: 'basket_create',
 *   handler: async (_args, ctx) => ({ basket_id: await baskets.create(ctx, { items: [] }) }),
 * })
 * ```
 */
export function defineHandles<T = unknown>(options: HandleKindOptions): HandleKind<T> {
  return new HandleKind<T>(options)
}
