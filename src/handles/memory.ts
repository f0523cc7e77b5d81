/** The default handle store: in process, bounded (per owner and in total), swept on a timer. */
import type { OwnerKey } from '../protocol/principal.js'
import { encode, type HandleStore, HandleLimitError, type StoreLimits, type SwapOutcome } from './store.js'

interface Entry {
  owner: OwnerKey
  json: string
  ttlMs: number
  expiresAt: number
}

export interface MemoryHandleStoreOptions extends StoreLimits {
  /** Most live records in the store (default 100 000). */
  readonly maxRecords?: number
  /** Clock, for tests (default Date.now). */
  readonly now?: () => number
}

/**
 * Keeps handles in memory, in this process (the default store; use `toolwire/sqlite` or `toolwire/redis` to share or keep them).
 *
 * @example
 * ```ts
 * const baskets = defineHandles({ kind: 'basket', createTool: 'basket_create', store: new MemoryHandleStore() })
 * ```
 */
export class MemoryHandleStore implements HandleStore {
  readonly #entries = new Map<string, Entry>()
  /** Live records per kind and owner. */
  readonly #owned = new Map<string, number>()
  readonly #maxPerOwner: number
  readonly #maxRecords: number
  readonly #now: () => number
  readonly #sweepIntervalMs: number
  #timer: ReturnType<typeof setInterval> | undefined

  constructor(options: MemoryHandleStoreOptions = {}) {
    this.#maxPerOwner = options.maxPerOwner ?? 1000
    this.#maxRecords = options.maxRecords ?? 100_000
    this.#now = options.now ?? Date.now
    this.#sweepIntervalMs = options.sweepIntervalMs ?? 60_000
  }

  async create(kind: string, id: string, owner: OwnerKey, data: unknown, ttlMs: number): Promise<void> {
    // The sweep starts with the first handle, never at construction: a store defined at module scope
    // (a Cloudflare Worker's top level) must not start a timer there.
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => void this.sweep(), this.#sweepIntervalMs)
      ;(this.#timer as { unref?: () => void }).unref?.()
    }
    const json = encode(data)
    const slot = `${kind}\u0000${owner}`
    if ((this.#owned.get(slot) ?? 0) >= this.#maxPerOwner || this.#entries.size >= this.#maxRecords) {
      await this.sweep()
      if ((this.#owned.get(slot) ?? 0) >= this.#maxPerOwner)
        throw new HandleLimitError(`at most ${this.#maxPerOwner} live ${kind} handles per caller`)
      if (this.#entries.size >= this.#maxRecords) throw new HandleLimitError('the handle store is full')
    }
    const key = `${kind}\u0000${id}`
    if (this.#entries.has(key)) throw new Error('handle id collision')
    this.#entries.set(key, { owner, json, ttlMs, expiresAt: this.#now() + ttlMs })
    this.#owned.set(slot, (this.#owned.get(slot) ?? 0) + 1)
  }

  async touch(kind: string, id: string, owner: OwnerKey): Promise<unknown> {
    const entry = this.#live(kind, id, owner)
    if (!entry) return undefined
    entry.expiresAt = this.#now() + entry.ttlMs
    return JSON.parse(entry.json)
  }

  async update(kind: string, id: string, owner: OwnerKey, data: unknown): Promise<boolean> {
    const entry = this.#live(kind, id, owner)
    if (!entry) return false
    entry.json = encode(data)
    entry.expiresAt = this.#now() + entry.ttlMs
    return true
  }

  async swap(
    kind: string,
    id: string,
    owner: OwnerKey,
    expected: unknown,
    next: unknown,
  ): Promise<SwapOutcome> {
    const entry = this.#live(kind, id, owner)
    if (!entry) return 'gone'
    if (entry.json !== encode(expected)) return 'conflict'
    entry.json = encode(next)
    entry.expiresAt = this.#now() + entry.ttlMs
    return 'swapped'
  }

  async delete(kind: string, id: string, owner: OwnerKey): Promise<boolean> {
    if (!this.#live(kind, id, owner)) return false
    this.#remove(`${kind}\u0000${id}`)
    return true
  }

  async sweep(): Promise<number> {
    const now = this.#now()
    let dropped = 0
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt <= now) {
        this.#remove(key)
        dropped++
      }
    }
    return dropped
  }

  async close(): Promise<void> {
    clearInterval(this.#timer)
  }

  #live(kind: string, id: string, owner: OwnerKey): Entry | undefined {
    const key = `${kind}\u0000${id}`
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    if (entry.expiresAt <= this.#now()) {
      this.#remove(key)
      return undefined
    }
    return entry.owner === owner ? entry : undefined
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key)
    if (!entry) return
    this.#entries.delete(key)
    const slot = `${key.slice(0, key.indexOf('\u0000'))}\u0000${entry.owner}`
    const count = (this.#owned.get(slot) ?? 1) - 1
    if (count <= 0) this.#owned.delete(slot)
    else this.#owned.set(slot, count)
  }
}
