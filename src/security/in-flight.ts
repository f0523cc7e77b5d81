/**
 * Tool calls in flight per principal, for the concurrency cap. A principal's entry stays at zero when its
 * last call ends, rather than being deleted: a caller that makes one call at a time would otherwise add
 * and delete its entry on every call, and the map grows, shrinks and rehashes with it (about 400
 * instructions a call, counted with callgrind). Entries at zero are swept once the map holds more than
 * `sweepAt`, and the next sweep waits until it has grown to twice what was left: the map holds at most
 * `sweepAt` entries, or twice the principals that had calls in flight at the last sweep, and sweeping costs
 * a constant per call over time.
 */
import type { OwnerKey } from '../protocol/principal.js'

export class InFlightCounts {
  readonly #counts = new Map<OwnerKey, number>()
  readonly #floor: number
  #sweepAt: number

  constructor(sweepAt = 1024) {
    this.#floor = sweepAt
    this.#sweepAt = sweepAt
  }

  /** Calls in flight for `principal`. */
  get(principal: OwnerKey): number {
    return this.#counts.get(principal) ?? 0
  }

  /** Entries held now (principals with calls in flight, and some at zero). */
  get size(): number {
    return this.#counts.size
  }

  /** One more call in flight; `running` is what `get` just answered. */
  start(principal: OwnerKey, running: number): void {
    const counts = this.#counts
    if (running === 0 && counts.size >= this.#sweepAt && !counts.has(principal)) this.#sweep()
    counts.set(principal, running + 1)
  }

  /** One call fewer in flight. */
  end(principal: OwnerKey): void {
    const count = this.#counts.get(principal)
    if (count !== undefined && count > 0) this.#counts.set(principal, count - 1)
  }

  #sweep(): void {
    const counts = this.#counts
    for (const [principal, count] of counts) if (count === 0) counts.delete(principal)
    this.#sweepAt = Math.max(this.#floor, 2 * counts.size)
  }
}
