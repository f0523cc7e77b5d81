/**
 * The HTTP+SSE transport of 2024-11-05, which many deployed servers still serve: a GET opens one event stream
 * whose first event, `endpoint`, names the URL to POST every message to; every answer, notification and
 * server request then arrives on that stream (2024-11-05 basic/transports §HTTP with SSE). The client turns
 * to it as the Streamable HTTP transport's backwards-compatibility rules say: POST failed with 4xx, so GET,
 * expecting an `endpoint` event first (2025-03-26 basic/transports §Backwards Compatibility).
 * The same rules as on Streamable HTTP hold: each event is capped, the endpoint must be on the stream's origin
 * (else the client would POST to whatever host a server names), and opening the stream has a deadline.
 */
import {
  classify,
  isRecord,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type RequestId,
} from '../wire/jsonrpc.js'
import { META_SUBSCRIPTION_ID } from '../wire/meta.js'
import { nestedDeeperThan } from '../wire/json-depth.js'
import type { EventSourceMessage } from 'eventsource-parser'
import { type Cancellation, cancellationOf } from './cancellation.js'
import { TransportError } from './errors.js'
import type { Incoming } from './exchange.js'
import { OversizedError, readSseEvents } from './sse.js'
import { MAX_RESPONSE_DEPTH, type SendOptions, type ServerRequestHandler } from './transport.js'

/** One HTTP exchange with the transport's headers and credentials (see HttpTransport). */
export type Exchange = (
  method: 'GET' | 'POST',
  url: URL,
  headers: Record<string, string>,
  body: string | undefined,
  cancel: Cancellation | undefined,
) => Promise<Incoming>

/** Where the stream's notifications and requests go when no pending request claims them. */
export interface OldSseSink {
  onNotification(notification: JsonRpcNotification): void
  onRequest: ServerRequestHandler
}

interface Pending {
  readonly resolve: (response: JsonRpcResponse) => void
  readonly reject: (error: unknown) => void
  readonly onNotification: ((notification: JsonRpcNotification) => void) | undefined
  readonly progressToken: string | number | undefined
}

/**
 * Opens the event stream at `url` and waits, at most `timeoutMs`, for its `endpoint` event. Throws a
 * TransportError whose message says in one line why the URL serves neither transport.
 */
export async function openOldSse(
  url: URL,
  exchange: Exchange,
  maxBytes: number,
  timeoutMs: number,
  sink: OldSseSink,
): Promise<OldSseChannel> {
  const controller = new AbortController()
  const deadline = setTimeout(
    () =>
      controller.abort(new TransportError(`GET ${url.href} sent no endpoint event within ${timeoutMs} ms`)),
    timeoutMs,
  )
  const aborted = new Promise<never>((_, reject) =>
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error), {
      once: true,
    }),
  )
  aborted.catch(() => undefined)
  try {
    const response = await Promise.race([
      exchange('GET', url, { accept: 'text/event-stream' }, undefined, cancellationOf(controller.signal)),
      aborted,
    ])
    const type = response.header('content-type') ?? ''
    if (response.status < 200 || response.status >= 300 || !/^text\/event-stream/i.test(type)) {
      await response.discard()
      const media = type.split(';')[0]?.trim().slice(0, 60)
      throw new TransportError(`GET answered HTTP ${response.status}${media ? ` (${media})` : ''}`, {
        status: response.status,
      })
    }
    const events = readSseEvents(response.chunks(), maxBytes)
    const first = await Promise.race([events.next(), aborted])
    if (first.done || first.value.event !== 'endpoint') {
      throw new TransportError('GET opened an event stream whose first event is not `endpoint`')
    }
    let endpoint: URL
    try {
      endpoint = new URL(first.value.data.trim(), url)
    } catch {
      throw new TransportError('the `endpoint` event names no URL')
    }
    // A server may name only its own origin: the client must not be steered to POST (with its credentials)
    // anywhere else.
    if (endpoint.origin !== url.origin) {
      throw new TransportError(`the endpoint ${endpoint.origin} is not on the stream's origin ${url.origin}`)
    }
    clearTimeout(deadline)
    return new OldSseChannel(endpoint, events, controller, exchange, sink)
  } catch (error) {
    clearTimeout(deadline)
    controller.abort()
    if (error instanceof TransportError) throw error
    if (error instanceof OversizedError)
      throw new TransportError(`the event stream was refused: ${error.message}`)
    throw new TransportError(
      `the event stream broke: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
}

export class OldSseChannel {
  readonly endpoint: URL
  readonly #controller: AbortController
  readonly #exchange: Exchange
  readonly #sink: OldSseSink
  readonly #pending = new Map<RequestId, Pending>()
  readonly #byToken = new Map<string | number, Pending>()
  #failure: TransportError | undefined

  constructor(
    endpoint: URL,
    events: AsyncGenerator<EventSourceMessage>,
    controller: AbortController,
    exchange: Exchange,
    sink: OldSseSink,
  ) {
    this.endpoint = endpoint
    this.#controller = controller
    this.#exchange = exchange
    this.#sink = sink
    void this.#read(events)
  }

  async #read(events: AsyncGenerator<EventSourceMessage>): Promise<void> {
    try {
      for await (const event of events) {
        // Messages come as `message` events (or unnamed ones, which are `message` too); others are ignored.
        if (event.event === undefined || event.event === 'message') this.#dispatch(event.data)
      }
      this.#fail(new TransportError('The server closed the HTTP+SSE event stream'))
    } catch (error) {
      const reason =
        error instanceof OversizedError
          ? `an event was refused: ${error.message}`
          : `the stream broke: ${error instanceof Error ? error.message : String(error)}`
      this.#fail(new TransportError(`The HTTP+SSE event stream ended: ${reason}`))
    }
  }

  #dispatch(data: string): void {
    if (nestedDeeperThan(data, MAX_RESPONSE_DEPTH)) return
    let parsed: unknown
    try {
      parsed = JSON.parse(data)
    } catch {
      return
    }
    const inbound = classify(parsed)
    if (inbound.kind === 'response') {
      const id = inbound.message.id
      const pending = id === undefined ? undefined : this.#pending.get(id)
      if (pending && id !== undefined) {
        this.#forget(id, pending)
        pending.resolve(inbound.message)
      }
    } else if (inbound.kind === 'request') {
      this.#sink.onRequest(inbound.message, undefined)
    } else if (inbound.kind === 'notification') {
      // One stream for everything: a notification belongs to the request whose progress token or
      // subscription it names (as on stdio).
      const notification = inbound.message
      const meta = notification.params?._meta
      const subscription = isRecord(meta) ? meta[META_SUBSCRIPTION_ID] : undefined
      const token = notification.params?.progressToken
      const owner =
        typeof subscription === 'string' || typeof subscription === 'number'
          ? this.#pending.get(subscription)
          : notification.method === 'notifications/progress' &&
              (typeof token === 'string' || typeof token === 'number')
            ? this.#byToken.get(token)
            : undefined
      if (owner?.onNotification) owner.onNotification(notification)
      else this.#sink.onNotification(notification)
    }
  }

  /** Whether the stream has ended (the server closed it, or the client did): its session is over. */
  get ended(): boolean {
    return this.#failure !== undefined
  }

  #fail(error: TransportError): void {
    this.#failure ??= error
    for (const pending of this.#pending.values()) pending.reject(this.#failure)
    this.#pending.clear()
    this.#byToken.clear()
  }

  #forget(id: RequestId, pending: Pending): void {
    this.#pending.delete(id)
    if (pending.progressToken !== undefined) this.#byToken.delete(pending.progressToken)
  }

  /** POSTs one message to the endpoint; the server accepts it (202) and answers on the stream. */
  async #post(
    message: JsonRpcRequest | JsonRpcNotification | JsonRpcResponse,
    cancel?: Cancellation,
  ): Promise<void> {
    if (this.#failure) throw this.#failure
    const headers = { 'content-type': 'application/json' }
    const response = await this.#exchange('POST', this.endpoint, headers, JSON.stringify(message), cancel)
    await response.discard()
    if (response.status < 200 || response.status >= 300) {
      throw new TransportError(`${this.endpoint.href} refused a message with HTTP ${response.status}`, {
        status: response.status,
      })
    }
  }

  request(message: JsonRpcRequest, options: SendOptions = {}): Promise<JsonRpcResponse> {
    if (this.#failure) return Promise.reject(this.#failure)
    const cancel = options.cancellation ?? (options.signal && cancellationOf(options.signal))
    if (cancel?.aborted) return Promise.reject(cancel.reason)
    if (this.#pending.has(message.id))
      return Promise.reject(new TypeError(`request id ${String(message.id)} is already in flight`))
    const meta = message.params?._meta
    const token = isRecord(meta) ? meta.progressToken : undefined
    return new Promise<JsonRpcResponse>((resolve, reject) => {
      let removeAbort = (): void => undefined
      const pending: Pending = {
        resolve: (response) => {
          removeAbort()
          resolve(response)
        },
        reject: (error) => {
          removeAbort()
          reject(error)
        },
        onNotification: options.onNotification,
        progressToken: typeof token === 'string' || typeof token === 'number' ? token : undefined,
      }
      this.#pending.set(message.id, pending)
      if (pending.progressToken !== undefined) this.#byToken.set(pending.progressToken, pending)
      // Cancelled: stop waiting; the session tells the server with notifications/cancelled.
      if (cancel) {
        removeAbort = cancel.onAbort(() => {
          if (!this.#pending.has(message.id)) return
          this.#forget(message.id, pending)
          reject(cancel.reason)
        })
      }
      this.#post(message, cancel).catch((error: unknown) => {
        if (!this.#pending.has(message.id)) return
        this.#forget(message.id, pending)
        pending.reject(error)
      })
    })
  }

  send(message: JsonRpcNotification | JsonRpcResponse): Promise<void> {
    return this.#post(message)
  }

  close(): void {
    this.#fail(new TransportError('The client closed the connection'))
    this.#controller.abort()
  }
}
