/**
 * Where state handles live. One small interface, so every store (memory, SQLite, Redis) passes the
 * same contract tests. Records are owned by a principal: a lookup by anyone else finds nothing, exactly
 * like an unknown or expired handle, so a handle's existence is never revealed to another caller.
 */
import type { OwnerKey } from '../protocol/principal.js'
import { ToolwireError, type ToolwireErrorCode } from '../wire/toolwire-error.js'

/**
 * Where handles live. `MemoryHandleStore` (default), `SqliteHandleStore` and `RedisHandleStore` implement it.
 *
 * @example
 * ```ts
 * const baskets = defineHandles({ kind: 'basket', createTool: 'basket_create', store: new SqliteHandleStore('state.db') })
 * ```
 */
export interface HandleStore {
  /** Stores a new record; throws `HandleLimitError` when the owner or the store is full. */
  create(kind: string, id: string, owner: OwnerKey, data: unknown, ttlMs: number): Promise<void>
  /** The live record's data, with its expiry pushed to now + ttl; undefined when unknown, expired or foreign. */
  touch(kind: string, id: string, owner: OwnerKey): Promise<unknown>
  /** Replaces a live record's data (and refreshes it); false when unknown, expired or foreign. */
  update(kind: string, id: string, owner: OwnerKey, data: unknown): Promise<boolean>
  /**
   * Compare-and-swap: replaces the data only while it still equals `expected` (as JSON), so two instances
   * changing one handle at once never lose an update: the loser gets `conflict`, reads again and retries.
   */
  swap(kind: string, id: string, owner: OwnerKey, expected: unknown, next: unknown): Promise<SwapOutcome>
  /** Deletes a live record; false when unknown, expired or foreign. */
  delete(kind: string, id: string, owner: OwnerKey): Promise<boolean>
  /** Drops expired records; returns how many. Stores also do this on their own. */
  sweep(): Promise<number>
  /** Releases timers, files and connections. */
  close(): Promise<void>
}

/** What a compare-and-swap did: `gone` when unknown, expired or foreign, exactly like `update`'s false. */
export type SwapOutcome = 'swapped' | 'conflict' | 'gone'

/**
 * A handle store holds as many live records for the owner as it allows (`maxPerOwner`).
 *
 * @example
 * ```ts
 * try {
 *   await carts.create(ctx, { items: [] })
 * } catch (error) {
 *   if (error instanceof HandleLimitError) throw new ToolError('Too many open carts; close one first')
 *   throw error
 * }
 * ```
 */
export class HandleLimitError extends ToolwireError {
  override readonly name = 'HandleLimitError'
  override get errorCode(): ToolwireErrorCode {
    return 'ERR_HANDLE_LIMIT'
  }
}

export interface StoreLimits {
  /** Most live records per owner and kind (default 1000). */
  readonly maxPerOwner?: number
  /** How often expired records are swept, in ms (default 60 000). */
  readonly sweepIntervalMs?: number
}

/** Data goes in and out as JSON, so no store hands out a reference a caller could mutate in place. */
export const encode = (data: unknown): string => {
  const json = JSON.stringify(data)
  if (json === undefined) throw new TypeError('handle data must be JSON-serializable')
  return json
}
