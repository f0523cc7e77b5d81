/**
 * Cancellation without an `AbortController` per request. Every client request can be cancelled (a timeout,
 * the caller's signal), but almost none is, and a Node `AbortController` is an EventTarget whose creation
 * costs more than the rest of the client's per-call work together. A `Cancellation` is a plain object; its
 * `signal` is made only when something asks for one (a fetch-based or custom transport, an error path).
 */

export { LazyAbort } from '../wire/lazy-abort.js'

/** What can stop a request: `aborted`/`reason` like an AbortSignal, listeners, and a real signal on demand. */
export interface Cancellation {
  readonly aborted: boolean
  readonly reason: unknown
  /** Calls `listener` once on abort; returns the function that removes it. */
  onAbort(listener: () => void): () => void
  /** An AbortSignal that follows this cancellation (made on first use). */
  readonly signal: AbortSignal
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
