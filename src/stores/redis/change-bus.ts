/**
 * A change bus on Redis pub/sub: a tool, prompt or resource change published on any instance reaches the
 * `subscriptions/listen` streams held by every instance. One publishing connection and one subscribing
 * connection per bus, whatever the number of listeners.
 */
import { Redis } from 'ioredis'
import type { ChangeBus, ChangeEvent } from '../../features/subscriptions/bus.js'
import { consoleLogger } from '../../protocol/dispatcher.js'
import type { TelemetryOption } from '../../wire/telemetry.js'
import { BusTelemetry } from './bus-telemetry.js'

export interface RedisChangeBusOptions {
  /** `redis://host:port/db`; ignored when `client` is given. */
  readonly url?: string
  /** An existing connection to publish on (any options, TLS, sentinel …); the bus duplicates it to subscribe. */
  readonly client?: Redis
  /** Channel shared by the instances of one deployment (default `toolwire:changes`). */
  readonly channel?: string
  /** Reports messages on the channel that are not change events. */
  readonly onError?: (error: unknown) => void
  /**
   * Told once when the connection to Redis is lost and once when it is back, with how long it was down and
   * how many connection errors it saw (default: the console, like the server's default logger).
   */
  readonly onOutage?: (message: string) => void
  /**
   * OpenTelemetry (docs/observability.md): each message carries the trace context of the request that
   * published it (in `_meta`), and each instance delivers it in a span continuing that trace. Needs the
   * optional peer dependency `@opentelemetry/api`, imported only when this is set.
   */
  readonly telemetry?: TelemetryOption
}

/** Every list a listener may follow: after an outage each of them may have changed unseen. */
const CATCH_UP: readonly ChangeEvent[] = [
  { type: 'tools/list_changed' },
  { type: 'prompts/list_changed' },
  { type: 'resources/list_changed' },
]

const TYPES = new Set([
  'tools/list_changed',
  'prompts/list_changed',
  'resources/list_changed',
  'resources/updated',
  'legacy/session',
])
const SESSION_CHANGES = new Set(['response', 'cancelled', 'level', 'subscribe', 'unsubscribe', 'ended'])

/**
 * Parses a message from the channel; anything that is not a well-formed change event is refused.
 *
 * @example
 * ```ts
 * subscriber.on('message', (_channel, message) => {
 *   const event = parseChangeEvent(message) // undefined for anything that is not a change event
 *   if (event) console.log(event)
 * })
 * ```
 */
export function parseChangeEvent(message: string): ChangeEvent | undefined {
  return changeEventOf(parsed(message))
}

function parsed(message: string): unknown {
  try {
    return JSON.parse(message) as unknown
  } catch {
    return undefined
  }
}

/** The change event a parsed message holds (its `_meta`, the trace context, is read apart). */
function changeEventOf(value: unknown): ChangeEvent | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { type, uri, session, change } = value as {
    type?: unknown
    uri?: unknown
    session?: unknown
    change?: unknown
  }
  if (typeof type !== 'string' || !TYPES.has(type)) return undefined
  if (type === 'resources/updated') return typeof uri === 'string' ? { type, uri } : undefined
  if (type === 'legacy/session') {
    // The engine checks each field again before it uses one; here only the envelope is checked.
    const kind = (change as { kind?: unknown } | null)?.kind
    if (typeof session !== 'string' || typeof kind !== 'string' || !SESSION_CHANGES.has(kind))
      return undefined
    return { type, session, change } as ChangeEvent
  }
  return { type } as ChangeEvent
}

/**
 * Carries change events (list_changed, resource updates) between server instances over Redis pub/sub.
 *
 * @example
 * ```ts
 * import { RedisChangeBus } from 'toolwire/redis'
 *
 * const server = defineServer({ name: 'notes', version: '1.0.0', changes: await RedisChangeBus.connect({ url }) })
 * ```
 */
export class RedisChangeBus implements ChangeBus {
  readonly channel: string
  readonly #publisher: Redis
  readonly #subscriber: Redis
  readonly #ownsPublisher: boolean
  readonly #handlers = new Set<(event: ChangeEvent) => void>()
  readonly #onError: (error: unknown) => void
  readonly #onOutage: (message: string) => void
  /** When the current outage began (0: connected), and the connection errors seen since. */
  #downSince = 0
  #outageErrors = 0
  #closing = false
  #telemetry: BusTelemetry | undefined

  private constructor(publisher: Redis, ownsPublisher: boolean, options: RedisChangeBusOptions) {
    this.channel = options.channel ?? 'toolwire:changes'
    this.#publisher = publisher
    this.#ownsPublisher = ownsPublisher
    this.#subscriber = publisher.duplicate()
    this.#onError = options.onError ?? (() => {})
    this.#onOutage = options.onOutage ?? ((message) => consoleLogger.warn(message))
    this.#subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return
      const value = parsed(message)
      const event = changeEventOf(value)
      if (!event) return this.#onError(new Error(`ignored a malformed message on ${channel}`))
      const telemetry = this.#telemetry
      if (telemetry) telemetry.process((value as { _meta?: unknown })._meta, () => this.#deliver(event))
      else this.#deliver(event)
    })
    // ioredis reconnects by itself; an outage is reported once when it starts and once when it ends.
    this.#subscriber.on('error', (error: unknown) => this.#lost(error))
    this.#subscriber.on('close', () => this.#lost('connection closed'))
    this.#subscriber.on('ready', () => void this.#back())
    if (ownsPublisher) this.#publisher.on('error', (error: unknown) => this.#lost(error))
  }

  #deliver(event: ChangeEvent): void {
    for (const handler of this.#handlers) {
      try {
        handler(event)
      } catch (error) {
        this.#onError(error)
      }
    }
  }

  #lost(reason: unknown): void {
    if (this.#closing) return
    if (this.#downSince !== 0) {
      this.#outageErrors++
      return
    }
    this.#downSince = Date.now()
    this.#outageErrors = 1
    this.#onOutage(
      `Redis change bus lost its connection (${String(reason)}); listeners catch up when it returns`,
    )
  }

  /**
   * Back after an outage: pub/sub keeps nothing for a disconnected subscriber, so changes published
   * meanwhile (here or on any instance) are lost. Once subscribed again, every local listener is told that
   * every list changed, and clients refetch (basic/patterns/subscriptions §Receiving Notifications).
   */
  async #back(): Promise<void> {
    if (this.#downSince === 0 || this.#closing) return
    try {
      await this.#subscriber.subscribe(this.channel)
    } catch {
      return // lost again before subscribing; the next `ready` retries
    }
    const ms = Date.now() - this.#downSince
    this.#onOutage(
      `Redis change bus reconnected after ${ms} ms (${this.#outageErrors} connection errors meanwhile); ` +
        'listeners were told to refetch every list',
    )
    this.#downSince = 0
    this.#outageErrors = 0
    for (const event of CATCH_UP) this.#deliver(event)
  }

  /** Connects and subscribes; resolves once events published from now on will be received. */
  static async connect(options: RedisChangeBusOptions = {}): Promise<RedisChangeBus> {
    const owns = options.client === undefined
    const publisher = options.client ?? new Redis(options.url ?? 'redis://127.0.0.1:6379')
    const bus = new RedisChangeBus(publisher, owns, options)
    if (options.telemetry) {
      // Like a server's: without @opentelemetry/api the bus works untraced and says why once.
      bus.#telemetry = await BusTelemetry.load(options.telemetry, bus.channel).catch((error: unknown) => {
        bus.#onError(error)
        return undefined
      })
    }
    await bus.#subscriber.subscribe(bus.channel)
    return bus
  }

  async publish(event: ChangeEvent): Promise<void> {
    const telemetry = this.#telemetry
    if (!telemetry) {
      await this.#publisher.publish(this.channel, JSON.stringify(event))
      return
    }
    await telemetry.send((meta) =>
      this.#publisher.publish(this.channel, JSON.stringify({ ...event, _meta: meta })),
    )
  }

  subscribe(handler: (event: ChangeEvent) => void): () => void {
    const entry = (event: ChangeEvent): void => handler(event)
    this.#handlers.add(entry)
    return () => void this.#handlers.delete(entry)
  }

  /** Closes the subscribing connection (and the publishing one when the bus opened it). */
  async close(): Promise<void> {
    this.#closing = true
    this.#handlers.clear()
    await this.#subscriber.quit().catch(() => this.#subscriber.disconnect())
    if (this.#ownsPublisher) await this.#publisher.quit().catch(() => this.#publisher.disconnect())
  }
}
