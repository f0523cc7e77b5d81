/**
 * One signal that aborts when any of `sources` does, for signals that live as long as one request.
 *
 * `AbortSignal.any` would do, but Node keeps its sources through weak references and a finalization
 * registry so that a long-lived source does not hold every derived signal; for a request's own signals that
 * bookkeeping cost more than the rest of a proxied call's cancellation plumbing (CPU profile of
 * `toolwire bridge`). Here the sources hold the derived signal through plain listeners, which is right only
 * when the sources die with the request: never pass a signal that outlives it (a client's long-lived signal).
 */
export function followSignals(sources: readonly AbortSignal[]): AbortSignal {
  const controller = new AbortController()
  for (const source of sources) {
    if (source.aborted) {
      controller.abort(source.reason)
      return controller.signal
    }
  }
  const onAbort = function (this: AbortSignal): void {
    controller.abort(this.reason)
  }
  for (const source of sources) source.addEventListener('abort', onAbort, { once: true })
  return controller.signal
}
