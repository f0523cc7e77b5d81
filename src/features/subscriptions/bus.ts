/**
 * The change bus: how list changes and resource updates reach every open `subscriptions/listen` stream.
 * Deliberately tiny (publish / subscribe), so a multi-instance implementation (e.g. Redis pub/sub) can
 * replace the in-process one without touching the listen streams.
 */

export type ChangeEvent =
  | { readonly type: 'tools/list_changed' }
  | { readonly type: 'prompts/list_changed' }
  | { readonly type: 'resources/list_changed' }
  | { readonly type: 'resources/updated'; readonly uri: string }

export interface ChangeBus {
  /** Announces a change to every subscriber (on every instance, for a distributed bus). */
  publish(event: ChangeEvent): void | Promise<void>
  /** Calls `handler` for each published event until the returned function is called. */
  subscribe(handler: (event: ChangeEvent) => void): () => void
}

/** A bus for one process: publish calls each subscriber synchronously; a throwing subscriber is skipped. */
export class InProcessChangeBus implements ChangeBus {
  readonly #handlers = new Set<(event: ChangeEvent) => void>()
  readonly #onError: (error: unknown) => void

  constructor(onError: (error: unknown) => void = () => {}) {
    this.#onError = onError
  }

  publish(event: ChangeEvent): void {
    for (const handler of this.#handlers) {
      try {
        handler(event)
      } catch (error) {
        this.#onError(error)
      }
    }
  }

  subscribe(handler: (event: ChangeEvent) => void): () => void {
    // A wrapper, so the same function subscribed twice gets two independent subscriptions.
    const entry = (event: ChangeEvent): void => handler(event)
    this.#handlers.add(entry)
    return () => void this.#handlers.delete(entry)
  }
}
