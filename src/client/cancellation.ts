/**
 * Cancellation without an `AbortController` per request. Every client request can be cancelled (a timeout,
 * the caller's signal), but almost none is, and a Node `AbortController` is an EventTarget whose creation
 * costs more than the rest of the client's per-call work together. A `Cancellation` is a plain object; its
 * `signal` is made only when something asks for one (a fetch-based or custom transport, an error path).
 */

/** What can stop a request: `aborted`/`reason` like an AbortSignal, listeners, and a real signal on demand. */
export interface Cancellation {
  readonly aborted: boolean
  readonly reason: unknown
  /** Calls `listener` once on abort; returns the function that removes it. */
  onAbort(listener: () => void): () => void
  /** An AbortSignal that follows this cancellation (made on first use). */
  readonly signal: AbortSignal
}

export class LazyAbort implements Cancellation {
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

  abort(reason: unknown): void {
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
    ;(this.#listeners ??= []).push(listener)
    return () => {
      const index = this.#listeners?.indexOf(listener) ?? -1
      if (index >= 0) this.#listeners?.splice(index, 1)
    }
  }
}

/** A Cancellation over an existing AbortSignal. */
export function cancellationOf(signal: AbortSignal): Cancellation {
  return {
    get aborted() {
      return signal.aborted
    },
    get reason(): unknown {
      return signal.reason
    },
    onAbort: (listener) => {
      if (signal.aborted) {
        listener()
        return () => undefined
      }
      signal.addEventListener('abort', listener, { once: true })
      return () => signal.removeEventListener('abort', listener)
    },
    signal,
  }
}
