/**
 * A change bus on Redis pub/sub: a tool, prompt or resource change published on any instance reaches the
 * `subscriptions/listen` streams held by every instance. One publishing connection and one subscribing
 * connection per bus, whatever the number of listeners.
 */
import { Redis } from 'ioredis'
import type { ChangeBus, ChangeEvent } from '../../features/subscriptions/bus.js'

export interface RedisChangeBusOptions {
  /** `redis://host:port/db`; ignored when `client` is given. */
  readonly url?: string
  /** An existing connection to publish on (any options, TLS, sentinel …); the bus duplicates it to subscribe. */
  readonly client?: Redis
  /** Channel shared by the instances of one deployment (default `toolwire:changes`). */
  readonly channel?: string
  /** Reports messages on the channel that are not change events, and subscriber failures. */
  readonly onError?: (error: unknown) => void
}

const TYPES = new Set([
  'tools/list_changed',
  'prompts/list_changed',
  'resources/list_changed',
  'resources/updated',
  'legacy/session',
])
const SESSION_CHANGES = new Set(['response', 'cancelled', 'level', 'subscribe', 'unsubscribe', 'ended'])

/** Parses a message from the channel; anything that is not a well-formed change event is refused. */
export function parseChangeEvent(message: string): ChangeEvent | undefined {
  let value: unknown
  try {
    value = JSON.parse(message)
  } catch {
    return undefined
  }
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

export class RedisChangeBus implements ChangeBus {
  readonly channel: string
  readonly #publisher: Redis
  readonly #subscriber: Redis
  readonly #ownsPublisher: boolean
  readonly #handlers = new Set<(event: ChangeEvent) => void>()
  readonly #onError: (error: unknown) => void

  private constructor(publisher: Redis, ownsPublisher: boolean, options: RedisChangeBusOptions) {
    this.channel = options.channel ?? 'toolwire:changes'
    this.#publisher = publisher
    this.#ownsPublisher = ownsPublisher
    this.#subscriber = publisher.duplicate()
    this.#onError = options.onError ?? (() => {})
    this.#subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return
      const event = parseChangeEvent(message)
      if (!event) return this.#onError(new Error(`ignored a malformed message on ${channel}`))
      for (const handler of this.#handlers) {
        try {
          handler(event)
        } catch (error) {
          this.#onError(error)
        }
      }
    })
    // ioredis reconnects by itself; errors in between are reported, not thrown.
    this.#subscriber.on('error', this.#onError)
    if (ownsPublisher) this.#publisher.on('error', this.#onError)
  }

  /** Connects and subscribes; resolves once events published from now on will be received. */
  static async connect(options: RedisChangeBusOptions = {}): Promise<RedisChangeBus> {
    const owns = options.client === undefined
    const publisher = options.client ?? new Redis(options.url ?? 'redis://127.0.0.1:6379')
    const bus = new RedisChangeBus(publisher, owns, options)
    await bus.#subscriber.subscribe(bus.channel)
    return bus
  }

  async publish(event: ChangeEvent): Promise<void> {
    await this.#publisher.publish(this.channel, JSON.stringify(event))
  }

  subscribe(handler: (event: ChangeEvent) => void): () => void {
    const entry = (event: ChangeEvent): void => handler(event)
    this.#handlers.add(entry)
    return () => void this.#handlers.delete(entry)
  }

  /** Closes the subscribing connection (and the publishing one when the bus opened it). */
  async close(): Promise<void> {
    this.#handlers.clear()
    await this.#subscriber.quit().catch(() => this.#subscriber.disconnect())
    if (this.#ownsPublisher) await this.#publisher.quit().catch(() => this.#publisher.disconnect())
  }
}
