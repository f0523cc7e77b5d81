/**
 * An abort controller whose AbortSignal is made only when something reads it. Creating an AbortController
 * costs about 2 µs in Node — more than the rest of a small tools/call — and most requests never look at
 * their signal; `aborted` answers without making one.
 */
export class LazyAbort {
  #controller: AbortController | undefined
  #aborted = false
  #reason: unknown

  get aborted(): boolean {
    return this.#aborted
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController()
      if (this.#aborted) this.#controller.abort(this.#reason)
    }
    return this.#controller.signal
  }

  abort(reason?: unknown): void {
    if (this.#aborted) return
    this.#aborted = true
    this.#reason = reason
    this.#controller?.abort(reason)
  }
}
