/**
 * The open-ended streams one client may hold: `subscriptions/listen` streams and 2025-era GET streams alike.
 * Each stays open indefinitely and holds a socket, timers and a backlog, so one principal (a user, a client,
 * else one client network) may hold at most `max` of them (streamable-http §Listening for Messages from the
 * Server leaves the number open; this is the choice). Kept in `HttpCore`, which every adapter (`serveNode`, `createNodeHandler`,
 * `createFetchHandler`) passes through, so no adapter can skip it.
 */
import type { AuthInfo } from '../../protocol/exchange.js'
import { type OwnerKey, ownerKey, principalOf } from '../../protocol/principal.js'
import { type McpError, tooManyRequests } from '../../wire/errors.js'

export class ListenSlots {
  /**
   * Streams held per principal: an authenticated user or client, else one address (anonymous callers whose
   * address the adapter cannot see, a fetch runtime without `clientAddress`, share one count).
   */
  readonly #held = new Map<OwnerKey, number>()

  constructor(readonly max: number) {
    if (!(Number.isInteger(max) && max > 0))
      throw new TypeError('maxListenStreamsPerAddress must be a positive integer')
  }

  /**
   * Takes a slot for a stream: the key to give back with `give` (once, when the stream ends), or the refusal
   * (429) when the client already holds `max` streams.
   */
  take(remoteAddress: string | undefined, auth: AuthInfo | undefined): OwnerKey | McpError {
    const key = ownerKey(principalOf(auth, remoteAddress, 'http'))
    const held = this.#held.get(key) ?? 0
    if (held >= this.max)
      return tooManyRequests(
        5_000,
        `more than ${this.max} listen streams from one ${auth ? 'caller' : 'address'}`,
      )
    this.#held.set(key, held + 1)
    return key
  }

  /** Gives back a slot `take` handed out. */
  give(key: OwnerKey): void {
    const left = (this.#held.get(key) ?? 1) - 1
    if (left === 0) this.#held.delete(key)
    else this.#held.set(key, left)
  }
}
