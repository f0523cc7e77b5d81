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
  | SessionEvent

/**
 * What one instance tells the others about a 2025-era HTTP session (sessions are not pinned to an
 * instance): the client's answer to a server request, a cancellation, a log level, a subscription, or
 * the session's end. Listen streams ignore these.
 */
export interface SessionEvent {
  readonly type: 'legacy/session'
  readonly session: string
  readonly change:
    | { readonly kind: 'response'; readonly response: Readonly<Record<string, unknown>> }
    | { readonly kind: 'cancelled'; readonly requestId: string | number; readonly reason?: string }
    | { readonly kind: 'level'; readonly level: string }
    | { readonly kind: 'subscribe' | 'unsubscribe'; readonly uri: string }
    | { readonly kind: 'ended'; readonly expiresAt: number }
}

/**
 * Carries change events to every listen stream: in process by default, between instances with `RedisChangeBus`.
 *
 * @example
 * ```ts
 * const unsubscribe = server.changes.subscribe((event) => console.log(event.type))
 * await server.changes.publish({ type: 'resources/updated', uri: 'docs://readme' })
 * unsubscribe()
 * ```
 */
export interface ChangeBus {
  /** Announces a change to every subscriber (on every instance, for a distributed bus). */
  publish(event: ChangeEvent): void | Promise<void>
  /** Calls `handler` for each published event until the returned function is called. */
  subscribe(handler: (event: ChangeEvent) => void): () => void
}

/**
 * A bus for one process: publish calls each subscriber synchronously; a throwing subscriber is skipped.
 *
 * @example
 * ```ts
 * const changes = new InProcessChangeBus((error) => console.error(error))
 * const server = defineServer({ name: 'notes', version: '1.0.0', changes })
 * ```
 */
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
