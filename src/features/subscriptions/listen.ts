/**
 * `subscriptions/listen`: one long-lived request per subscription. The acknowledgment comes first, then only
 * the notification types asked for and honoured, each tagged with the subscription id (the request's own id).
 * The request ends when the client goes away (its signal aborts), when the server closes (a graceful result,
 * patterns/subscriptions §Graceful Closure), or when the listener cannot keep up (its transport backlog
 * passes a bound, so memory stays bounded).
 */
import type { RequestContext } from '../../protocol/context.js'
import type { MethodSpec } from '../../protocol/dispatcher.js'
import { LaterResult } from '../../protocol/later-result.js'
import { invalidParams } from '../../wire/errors.js'
import { isRecord, type JsonRpcNotification, type RequestId } from '../../wire/jsonrpc.js'
import { META_SUBSCRIPTION_ID } from '../../wire/meta.js'
import type { ServerCapabilities, SubscriptionFilter } from '../../wire/types.js'
import type { ChangeBus, ChangeEvent } from './bus.js'

export interface ListenOptions {
  /** A listener whose transport holds more than this many unsent bytes is closed (default 256 KiB). */
  readonly maxBacklogBytes?: number
}

interface Listener {
  /** `_meta` of every notification on this stream: the subscription id, made once per stream. */
  readonly tag: Readonly<Record<string, RequestId>>
  readonly filter: SubscriptionFilter
  readonly uris: ReadonlySet<string>
  readonly ctx: RequestContext
  /**
   * The subscription id as JSON, when the stream's exchange writes serialised text and its output guard
   * leaves the tag alone: list changes then go out as text made once per change around it.
   */
  readonly idJson: string | undefined
  end(): void
}

/** What a stream that follows no resource holds: one empty set for all of them. */
const NO_URIS: ReadonlySet<string> = new Set()

/** The graceful result a stream ends with (patterns/subscriptions §Graceful Closure). */
const closingResult = (tag: Readonly<Record<string, RequestId>>): Record<string, unknown> => ({
  resultType: 'complete',
  _meta: { ...tag },
})

/**
 * One open stream, registered with the hub as itself rather than as a closure over the request's scope (a
 * server may hold thousands for hours), and its graceful result made only when it ends.
 */
class OpenStream implements Listener {
  readonly uris: ReadonlySet<string>
  readonly idJson: string | undefined
  #ended = false
  #tag: Readonly<Record<string, RequestId>> | undefined

  constructor(
    tag: Readonly<Record<string, RequestId>>,
    readonly filter: SubscriptionFilter,
    readonly ctx: RequestContext,
    private readonly registered: Set<Listener>,
    /** What the request answers when the stream ends. */
    readonly result: LaterResult,
  ) {
    this.uris = filter.resourceSubscriptions ? new Set(filter.resourceSubscriptions) : NO_URIS
    this.idJson = encodedTag(ctx, tag)
    // A stream whose list changes go out as encoded text needs its tag only for a resource update or its
    // closing result: it is made again then, and most streams never hold one.
    if (this.idJson === undefined) this.#tag = tag
  }

  /** The stream's `_meta`, kept where every notification carries it, made on demand where few do. */
  get tag(): Readonly<Record<string, RequestId>> {
    return (this.#tag ??= tagOf(this.ctx.id))
  }

  /**
   * Ends the stream when the client goes away: through onAbort, so it holds no AbortController of its own.
   * The listener is not taken off when the stream ends otherwise: it lives on the request's own exchange,
   * which goes with the stream, and `end` is then a no-op (keeping what unregisters it would cost every open
   * stream a closure).
   */
  watch(): void {
    this.ctx.onAbort(() => this.end())
  }

  end(): void {
    if (this.#ended) return
    this.#ended = true
    this.registered.delete(this)
    this.result.settle(closingResult(this.tag))
  }
}

/** A stream's `_meta`: its subscription id. Frozen, so every notification that carries it carries it as made. */
const tagOf = (id: RequestId): Readonly<Record<string, RequestId>> =>
  Object.freeze({ [META_SUBSCRIPTION_ID]: id })

/**
 * A list change's `params` hold only the tag, so whether the exchange's guard (output sanitising, secret
 * redaction) changes them is known when the stream opens: it sees the same params on every change.
 */
function encodedTag(ctx: RequestContext, tag: Readonly<Record<string, RequestId>>): string | undefined {
  const exchange = ctx.exchange
  if (!exchange.notifyEncoded) return undefined
  const probe: JsonRpcNotification = {
    jsonrpc: '2.0',
    method: 'notifications/tools/list_changed',
    params: { _meta: tag },
  }
  if (exchange.screen && exchange.screen(probe) !== probe) return undefined
  return JSON.stringify(ctx.id)
}

/** `{"jsonrpc":"2.0","method":…,"params":{"_meta":{"…subscriptionId":` — then the id and `}}}`. */
const encodedHead = (method: string): string =>
  `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":{"_meta":{${JSON.stringify(META_SUBSCRIPTION_ID)}:`

const BOOLEAN_FIELDS = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const

/**
 * The part of a requested filter this server honours (patterns/subscriptions §Acknowledgment); malformed
 * filters are -32602.
 */
export function honouredFilter(requested: unknown, capabilities: ServerCapabilities): SubscriptionFilter {
  if (!isRecord(requested))
    throw invalidParams('Invalid params: subscriptions/listen needs a notifications object')
  const offered = {
    toolsListChanged: capabilities.tools?.listChanged === true,
    promptsListChanged: capabilities.prompts?.listChanged === true,
    resourcesListChanged: capabilities.resources?.listChanged === true,
  }
  const filter: SubscriptionFilter = {}
  for (const field of BOOLEAN_FIELDS) {
    const value = requested[field]
    if (value !== undefined && typeof value !== 'boolean')
      throw invalidParams(`Invalid params: notifications.${field} must be a boolean`)
    if (value === true && offered[field]) filter[field] = true
  }
  const uris = requested.resourceSubscriptions
  if (uris !== undefined) {
    if (!Array.isArray(uris) || !uris.every((uri) => typeof uri === 'string'))
      throw invalidParams('Invalid params: notifications.resourceSubscriptions must be an array of URIs')
    if (capabilities.resources?.subscribe === true) filter.resourceSubscriptions = [...new Set(uris)]
  }
  return filter
}

function wants(listener: Listener, event: ChangeEvent): boolean {
  switch (event.type) {
    case 'tools/list_changed':
      return listener.filter.toolsListChanged === true
    case 'prompts/list_changed':
      return listener.filter.promptsListChanged === true
    case 'resources/list_changed':
      return listener.filter.resourcesListChanged === true
    case 'resources/updated':
      return listener.uris.has(event.uri)
    default:
      return false
  }
}

export class ListenHub {
  readonly #listeners = new Set<Listener>()
  readonly #capabilities: ServerCapabilities
  readonly #maxBacklog: number
  readonly #unsubscribe: () => void
  #closed = false

  constructor(bus: ChangeBus, capabilities: ServerCapabilities, options: ListenOptions = {}) {
    this.#capabilities = capabilities
    this.#maxBacklog = options.maxBacklogBytes ?? 256 * 1024
    this.#unsubscribe = bus.subscribe((event) => this.#deliver(event))
  }

  /** Open listen streams right now. */
  get size(): number {
    return this.#listeners.size
  }

  get closed(): boolean {
    return this.#closed
  }

  method(): MethodSpec {
    return { handler: (ctx) => this.#listen(ctx) }
  }

  /** Ends every stream with its graceful result and refuses new ones (they are closed at once). */
  close(): void {
    if (this.#closed) return
    this.#closed = true
    this.#unsubscribe()
    for (const listener of [...this.#listeners]) listener.end()
  }

  #listen(ctx: RequestContext): LaterResult | Record<string, unknown> {
    const filter = honouredFilter(ctx.params.notifications, this.#capabilities)
    const tag = tagOf(ctx.id)
    ctx.exchange.notify({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: tag, notifications: filter },
    })
    if (this.#closed) return closingResult(tag)
    // A result given later, not a promise: an open stream holds no promise chain (see LaterResult).
    const stream = new OpenStream(tag, filter, ctx, this.#listeners, new LaterResult())
    this.#listeners.add(stream)
    stream.watch()
    return stream.result
  }

  #deliver(event: ChangeEvent): void {
    // Once per change, not once per stream: with thousands of streams the loop is the fan-out's cost.
    const method = `notifications/${event.type}`
    const uri = event.type === 'resources/updated' ? event.uri : undefined
    // A list change is serialised once: each stream's text differs only in its id (JSON.stringify of the
    // whole notification per stream was about an eighth of the fan-out's instructions).
    const head = uri === undefined ? encodedHead(method) : undefined
    for (const listener of this.#listeners) {
      if (!wants(listener, event)) continue
      const exchange = listener.ctx.exchange
      // A listener that cannot keep up is closed rather than buffered without bound.
      if ((exchange.backlog?.() ?? 0) > this.#maxBacklog) {
        listener.end()
        continue
      }
      if (head !== undefined && listener.idJson !== undefined && exchange.notifyEncoded) {
        exchange.notifyEncoded(`${head}${listener.idJson}}}}`)
        continue
      }
      const params = uri === undefined ? { _meta: listener.tag } : { _meta: listener.tag, uri }
      const message: JsonRpcNotification = { jsonrpc: '2.0', method, params }
      exchange.notify(message)
    }
  }
}
