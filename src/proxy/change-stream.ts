/**
 * The proxy's one change stream to an upstream (a `subscriptions/listen` stream on 2026-07-28, the session's
 * notifications and `resources/subscribe` on 2025-era servers). It is opened on every new connection,
 * reopened when what it follows changes, and reopened after the upstream drops it: an HTTP server restarts
 * or a proxy between closes idle streams, and a stream that is never reopened would leave the downstream
 * lists stale for good. Reopening waits (250 ms doubling up to 10 s, as restarts do) and gives up after
 * `maxListenRetries` failed attempts in a row, with a warning; the next connection starts it again.
 */
import type { Client } from '../client/client.js'
import { pause } from '../client/pause.js'
import type { JsonRpcNotification } from '../wire/jsonrpc.js'
import type { SubscriptionFilter } from '../wire/types.js'
import { RESTART_DEFAULTS, type RestartOptions, type Upstream } from './upstream.js'

/** Failed reopening attempts in a row after which a dropped change stream is given up, by default. */
export const DEFAULT_MAX_LISTEN_RETRIES = 10

export interface ChangeStreamHost {
  /** What to follow now; undefined when there is nothing to follow. */
  filter(): SubscriptionFilter | undefined
  onNotification(notification: JsonRpcNotification): void
  /** After a reopen: changes may have been missed while the stream was down. */
  relist(): void
  report(what: string, error: unknown): void
}

export class ChangeStream {
  readonly #upstream: Upstream
  readonly #host: ChangeStreamHost
  readonly #delays: Required<RestartOptions>
  readonly #maxRetries: number
  readonly #stopping = new AbortController()
  #client: Client | undefined
  #subscription: { close(): Promise<void> } | undefined
  /** The filter of the current stream, as JSON, and which stream is current. */
  #following = ''
  #generation = 0
  #failures = 0

  constructor(upstream: Upstream, host: ChangeStreamHost, delays: RestartOptions, maxRetries: number) {
    this.#upstream = upstream
    this.#host = host
    this.#delays = { ...RESTART_DEFAULTS, ...delays }
    this.#maxRetries = maxRetries
  }

  /** Failed reopening attempts since the stream was last open. */
  get failures(): number {
    return this.#failures
  }

  /** Opens the stream on a new connection (the first, or a restarted upstream's). */
  connected(client: Client): void {
    this.#client = client
    this.#failures = 0
    this.#replace(client)
  }

  /** Reopens the stream when what it should follow changed. */
  refollow(): void {
    const client = this.#client
    if (!client || this.#stopping.signal.aborted) return
    if (JSON.stringify(this.#host.filter() ?? null) === this.#following) return
    this.#replace(client)
  }

  #replace(client: Client): void {
    const previous = this.#subscription
    this.#subscription = undefined
    void previous?.close().catch(() => undefined)
    const generation = ++this.#generation
    this.#open(client, generation).catch((error: unknown) => {
      this.#host.report('listening for changes', error)
      void this.#reopen(generation)
    })
  }

  /** Opens a stream for `generation`; rejects when the upstream refuses or cannot be reached. */
  async #open(client: Client, generation: number): Promise<void> {
    const filter = this.#host.filter()
    this.#following = JSON.stringify(filter ?? null)
    if (!filter || this.#stopping.signal.aborted) return
    const opened = await client.subscribe(filter, {
      onNotification: (notification) => this.#host.onNotification(notification),
    })
    // A stream opened for an older filter or connection, or after the stop, is closed at once.
    if (this.#stopping.signal.aborted || generation !== this.#generation) {
      void opened.close()
      return
    }
    this.#subscription = opened
    this.#failures = 0
    void opened.ended.then((end) => {
      if (end.reason === 'closed' || generation !== this.#generation) return
      void this.#reopen(generation)
    })
  }

  /**
   * Reopens after a drop or a failed open, on the same connection; a connection that turns out dead (a
   * stdio upstream that exited) is dropped by `use`, and its successor's `connected` takes over.
   */
  async #reopen(generation: number): Promise<void> {
    while (generation === this.#generation && !this.#stopping.signal.aborted) {
      if (this.#failures >= this.#maxRetries) {
        this.#host.report(
          'reopening the change stream',
          new Error(
            `gave up after ${this.#failures} attempts in a row (maxListenRetries); the lists may be stale until the upstream reconnects`,
          ),
        )
        return
      }
      const { initialDelayMs, maxDelayMs } = this.#delays
      const delay = Math.min(maxDelayMs, initialDelayMs * 2 ** this.#failures)
      this.#failures += 1
      try {
        await pause(delay, this.#stopping.signal)
      } catch {
        return
      }
      if (generation !== this.#generation) return
      try {
        const next = ++this.#generation
        generation = next
        const opened = await this.#upstream.use(async (client) => {
          if (client !== this.#client) return false
          await this.#open(client, next)
          return true
        })
        if (opened) this.#host.relist()
        return
      } catch {
        // The next attempt, after a longer wait.
      }
    }
  }

  async stop(): Promise<void> {
    this.#stopping.abort(new Error('the proxy is closed'))
    await this.#subscription?.close().catch(() => undefined)
  }
}
