/**
 * Tool calls in flight per principal, for the concurrency cap. Each principal has a slot, an object holding
 * its count, which every call of it keeps until it ends: starting a call is one lookup and ending it none
 * (counting in the map itself cost two lookups and two stores a call). A slot stays in the map at zero when
 * its principal's last call ends, rather than being deleted: a caller that makes one call at a time would
 * otherwise add and delete its entry on every call, and the map grows, shrinks and rehashes with it (about
 * 400 instructions a call, counted with callgrind). Slots at zero are swept once the map holds more than
 * `sweepAt`, and the next sweep waits until it has grown to twice what was left: the map holds at most
 * `sweepAt` slots, or twice the principals that had calls in flight at the last sweep, and sweeping costs
 * a constant per call over time. A swept slot was at zero, so no call holds it.
 */
import type { OwnerKey } from '../protocol/principal.js'

/** One principal's count of calls in flight. */
export interface InFlightSlot {
  count: number
}

export class InFlightCounts {
  readonly #slots = new Map<OwnerKey, InFlightSlot>()
  readonly #floor: number
  #sweepAt: number

  constructor(sweepAt = 1024) {
    this.#floor = sweepAt
    this.#sweepAt = sweepAt
  }

  /** Calls in flight for `principal`. */
  get(principal: OwnerKey): number {
    return this.#slots.get(principal)?.count ?? 0
  }

  /** Slots held now (principals with calls in flight, and some at zero). */
  get size(): number {
    return this.#slots.size
  }

  /**
   * The principal's slot, made at zero when it has none. A call adds one to its count when it starts and
   * takes it off when it ends, on the slot it was given: that slot stays in the map while its count is above
   * zero.
   */
  slot(principal: OwnerKey): InFlightSlot {
    let slot = this.#slots.get(principal)
    if (slot === undefined) {
      if (this.#slots.size >= this.#sweepAt) this.#sweep()
      slot = { count: 0 }
      this.#slots.set(principal, slot)
    }
    return slot
  }

  #sweep(): void {
    const slots = this.#slots
    for (const [principal, slot] of slots) if (slot.count === 0) slots.delete(principal)
    this.#sweepAt = Math.max(this.#floor, 2 * slots.size)
  }
}
