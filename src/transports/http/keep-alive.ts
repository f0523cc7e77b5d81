/**
 * One timer for the keep-alive comments of every open stream of a transport, instead of one per stream: a server
 * holding ten thousand listen streams holds one interval, not ten thousand (each timer with its closure costs
 * about 300 bytes). Every stream still gets a comment at most `intervalMs` after it opened and then every
 * `intervalMs` (streamable-http §Receiving Messages: proxies close idle streams).
 */
export class KeepAlives {
  readonly #intervalMs: number
  readonly #writers = new Set<() => void>()
  #timer: ReturnType<typeof setInterval> | undefined

  /** `intervalMs` 0 turns keep-alive comments off. */
  constructor(intervalMs: number) {
    this.#intervalMs = intervalMs
  }

  /** Calls `write` on every tick until the returned function is called. */
  add(write: () => void): () => void {
    if (this.#intervalMs <= 0) return () => {}
    this.#writers.add(write)
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => {
        for (const each of this.#writers) each()
      }, this.#intervalMs)
      this.#timer.unref?.()
    }
    return () => {
      this.#writers.delete(write)
      if (this.#writers.size === 0 && this.#timer !== undefined) {
        clearInterval(this.#timer)
        this.#timer = undefined
      }
    }
  }
}
