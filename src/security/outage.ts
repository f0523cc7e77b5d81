/**
 * Reporting a shared store's outage once, not once per request: the first failure is logged with its
 * reason, later ones are only counted, and the first success after them logs how long the outage lasted and
 * how many requests went through unchecked (a down store must not take the server down, so they pass).
 */
import type { ServerLogger } from '../protocol/dispatcher.js'
import type { RateLimitStore } from './rate-limit.js'

export class OutageReporter {
  #failures = 0
  #since = 0

  constructor(
    private readonly logger: ServerLogger,
    private readonly what: string,
  ) {}

  get failing(): boolean {
    return this.#failures > 0
  }

  failed(error: unknown): void {
    if (this.#failures++ > 0) return
    this.#since = Date.now()
    this.logger.warn(`${this.what} is unavailable; requests are let through until it recovers`, {
      error: String(error),
    })
  }

  recovered(): void {
    if (this.#failures === 0) return
    this.logger.warn(
      `${this.what} recovered after ${Date.now() - this.#since} ms; ${this.#failures} checks were skipped meanwhile`,
    )
    this.#failures = 0
  }
}

/** `store` with successes reported to `reporter`, which ends an outage the pipeline reported. */
export function reportingStore(store: RateLimitStore, reporter: OutageReporter): RateLimitStore {
  return {
    consume: (bucket, key, points, now) =>
      Promise.resolve(store.consume(bucket, key, points, now)).then((consumed) => {
        if (reporter.failing) reporter.recovered()
        return consumed
      }),
  }
}
