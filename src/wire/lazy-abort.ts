/**
 * An abort controller whose AbortSignal is made only when something reads it. Creating a Node
 * AbortController (an EventTarget) costs more than the rest of a small tools/call or of a client's per-call
 * work, and almost no request is ever cancelled: `aborted`, `reason` and plain listeners answer without one.
 * Used by the server's transports for each request and by the client for each call.
 */
export class LazyAbort {
  #aborted = false
  #reason: unknown
  #listeners: (() => void)[] | undefined
  #controller: AbortController | undefined

  get aborted(): boolean {
    return this.#aborted
  }

  get reason(): unknown {
    return this.#reason
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
    const listeners = this.#listeners ?? []
    this.#listeners = undefined
    for (const listener of listeners) listener()
    this.#controller?.abort(reason)
  }

  onAbort(listener: () => void): () => void {
    if (this.#aborted) {
      listener()
      return () => undefined
    }
    // A literal of one: an array that starts empty and is pushed to reserves room for 17, and a listen
    // stream keeps its one listener for as long as it is open.
    if (this.#listeners) this.#listeners.push(listener)
    else this.#listeners = [listener]
    return () => {
      const index = this.#listeners?.indexOf(listener) ?? -1
      if (index >= 0) this.#listeners?.splice(index, 1)
    }
  }
}
