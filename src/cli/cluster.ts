/**
 * What a `toolwire serve` / `toolwire demo` instance shares with the other members of a cluster: list
 * changes, handles, rate-limit counts and 2025-era session state in one Redis, and the `requestState` secret, read from an
 * environment variable so it never shows in the process list.
 */
import type { ChangeBus } from '../features/subscriptions/bus.js'
import type { HandleStore } from '../handles/store.js'
import type { RateLimitStore } from '../security/rate-limit.js'
import type { SessionStateStore } from '../features/subscriptions/session-store.js'
import { processTelemetryDefault } from '../wire/telemetry.js'

export interface ClusterOptions {
  /** `--redis <url>`: share changes, handles and rate limits through this Redis. */
  readonly redis?: string
  /** `--secret-env <NAME>`: the environment variable holding the shared `requestState` secret. */
  readonly secretEnv?: string
}

/** Handed to a module's server factory, so the server it builds joins the cluster. */
export interface ClusterMember {
  readonly changes?: ChangeBus
  readonly handleStore?: HandleStore
  readonly rateLimitStore?: RateLimitStore
  /** 2025-era session state (`defineServer({ legacy: { stateStore } })`). */
  readonly sessionStore?: SessionStateStore
  readonly requestStateSecret?: string
  /** Closes the Redis connections. */
  close(): Promise<void>
}

/** The secret must be long enough that nobody guesses it: every instance signs `requestState` with it. */
const MIN_SECRET_LENGTH = 32

export async function joinCluster(options: ClusterOptions): Promise<ClusterMember> {
  let requestStateSecret: string | undefined
  if (options.secretEnv !== undefined) {
    requestStateSecret = process.env[options.secretEnv]
    if (requestStateSecret === undefined || requestStateSecret.length < MIN_SECRET_LENGTH)
      throw new Error(
        `--secret-env ${options.secretEnv}: set that variable to a secret of at least ${MIN_SECRET_LENGTH} characters, the same on every instance`,
      )
  }
  if (options.redis === undefined)
    return { ...(requestStateSecret !== undefined && { requestStateSecret }), close: async () => {} }
  // Loaded only for a cluster member: ioredis is an optional peer dependency.
  const redis = await import('../stores/redis/index.js').catch((error: unknown) => {
    throw new Error(
      `--redis needs the ioredis and rate-limiter-flexible packages (npm install ioredis rate-limiter-flexible): ${String(error)}`,
    )
  })
  const url = options.redis
  const [changes, handleStore, rateLimitStore, sessionStore] = await Promise.all([
    // With --otel (started before this), changes carry the trace context of the request that made them.
    redis.RedisChangeBus.connect({ url, ...(processTelemetryDefault() && { telemetry: true }) }),
    redis.RedisHandleStore.connect({ url }),
    redis.RedisRateLimitStore.connect({ url }),
    redis.RedisSessionStore.connect({ url }),
  ])
  return {
    changes,
    handleStore,
    rateLimitStore,
    sessionStore,
    ...(requestStateSecret !== undefined && { requestStateSecret }),
    close: async () => {
      await Promise.all([changes.close(), handleStore.close(), rateLimitStore.close(), sessionStore.close()])
    },
  }
}
