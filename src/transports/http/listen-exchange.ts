/**
 * A `subscriptions/listen` request's exchange, which is also where its reply goes when the stream ends. A
 * server may hold thousands of these for hours: the stream's end is this one object, not a promise, its
 * reaction and the closures the core would otherwise keep waiting on it.
 */
import type { Reply, ReplyTarget } from '../../protocol/dispatcher.js'
import type { AuthInfo } from '../../protocol/exchange.js'
import type { OwnerKey } from '../../protocol/principal.js'
import type { HttpRequestView, HttpResponseSink } from './core.js'
import { HttpExchange, writeReply } from './exchange.js'
import type { KeepAlives } from './keep-alive.js'
import type { ListenSlots } from './listen-slots.js'

/** What a core shares with every listen stream it holds: made once per core. */
export interface ListenStreams {
  readonly keepAlives: KeepAlives
  readonly slots: ListenSlots
  /** Answers the core's own failure (500, or the stream ended). */
  fail(out: HttpResponseSink, error: unknown): void
}

export class ListenExchange extends HttpExchange implements ReplyTarget {
  #streams: ListenStreams | undefined

  constructor(
    view: HttpRequestView,
    out: HttpResponseSink,
    auth: AuthInfo | undefined,
    maxBacklog: number,
    streams: ListenStreams,
    /** The per-principal slot this stream holds (given back once, when it ends). */
    private readonly slot: OwnerKey,
  ) {
    super(view, out, auth, true, maxBacklog)
    this.#streams = streams
    // Long-lived listen streams get periodic SSE comments so proxies keep them open (streamable-http
    // §Receiving Messages).
    streams.keepAlives.add(this)
  }

  reply(reply: Reply | null): void {
    const streams = this.#streams
    try {
      writeReply(this, reply, this.out)
    } catch (error) {
      streams?.fail(this.out, error)
    } finally {
      this.#release()
    }
  }

  fail(error: unknown): void {
    const streams = this.#streams
    try {
      streams?.fail(this.out, error)
    } finally {
      this.#release()
    }
  }

  /** Stops the keep-alive comments and gives the slot back, once whatever ended the stream. */
  #release(): void {
    const streams = this.#streams
    if (streams === undefined) return
    this.#streams = undefined
    streams.keepAlives.remove(this)
    streams.slots.give(this.slot)
  }
}
