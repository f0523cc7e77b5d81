/**
 * One timer for the keep-alive comments of every open stream of a transport, instead of one per stream: a server
 * holding ten thousand listen streams holds one interval, not ten thousand (each timer with its closure costs
 * about 300 bytes). Every stream still gets a comment at most `intervalMs` after it opened and then every
 * `intervalMs` (streamable-http §Receiving Messages: proxies close idle streams).
 */
/** A stream that takes keep-alive comments: registered as itself, so a stream costs no closure here. */
export interface KeepAliveStream {
  keepAlive(): void
}

export class KeepAlives {
  readonly #intervalMs: number
  readonly #streams = new Set<KeepAliveStream>()
  #timer: ReturnType<typeof setInterval> | undefined

  /** `intervalMs` 0 turns keep-alive comments off. */
  constructor(intervalMs: number) {
    this.#intervalMs = intervalMs
  }

  /** Calls `stream.keepAlive()` on every tick until `remove(stream)`. */
  add(stream: KeepAliveStream): void {
    if (this.#intervalMs <= 0) return
    this.#streams.add(stream)
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => {
        for (const each of this.#streams) each.keepAlive()
      }, this.#intervalMs)
      this.#timer.unref?.()
    }
  }

  remove(stream: KeepAliveStream): void {
    if (!this.#streams.delete(stream) || this.#streams.size > 0 || this.#timer === undefined) return
    clearInterval(this.#timer)
    this.#timer = undefined
  }
}
