/**
 * A handler's result that comes later, for requests that stay open (a `subscriptions/listen` stream may be
 * held for hours, by thousands of clients). Awaited like a promise by anyone; but the dispatcher, when it
 * gets one straight from the handler, is told the result directly: an open request then holds this one
 * object, not the handler's promise, its resolve function, and the reaction, promise and closures the
 * dispatcher would otherwise keep waiting on it.
 */
import type { ResultPayload } from './encode.js'

/** What the dispatcher hands a `LaterResult`, made once per dispatcher: told the result with its two values. */
export interface LaterReceiver<A, B> {
  settled(first: A, second: B, result: ResultPayload): void
}

export class LaterResult implements PromiseLike<ResultPayload> {
  #result: ResultPayload | undefined
  #promise: Promise<ResultPayload> | undefined
  #resolve: ((result: ResultPayload) => void) | undefined
  #receiver: LaterReceiver<unknown, unknown> | undefined
  #first: unknown
  #second: unknown

  /** Gives the result (the first call counts; later ones are ignored). */
  settle(result: ResultPayload): void {
    if (this.#result !== undefined) return
    this.#result = result
    this.#resolve?.(result)
    this.#resolve = undefined
    const receiver = this.#receiver
    if (receiver === undefined) return
    this.#receiver = undefined
    const first = this.#first
    const second = this.#second
    this.#first = this.#second = undefined
    receiver.settled(first, second, result)
  }

  /**
   * Tells `receiver` the result once it is given (at once if it has been), with `first` and `second`.
   * One receiver only: the dispatcher that got this result from the handler.
   */
  deliverTo<A, B>(receiver: LaterReceiver<A, B>, first: A, second: B): void {
    if (this.#result !== undefined) return receiver.settled(first, second, this.#result)
    this.#receiver = receiver as LaterReceiver<unknown, unknown>
    this.#first = first
    this.#second = second
  }

  // A promise is made only for a caller that awaits the result (a middleware's `await next()`).
  then<R1 = ResultPayload, R2 = never>(
    onFulfilled?: ((result: ResultPayload) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    if (this.#promise === undefined) {
      const result = this.#result
      this.#promise =
        result !== undefined
          ? Promise.resolve(result)
          : new Promise<ResultPayload>((resolve) => {
              this.#resolve = resolve
            })
    }
    return this.#promise.then(onFulfilled, onRejected)
  }
}
