/**
 * The inspector's "network tab": every JSON-RPC message between the client and the server, with the HTTP
 * request and response headers it travelled with. HTTP is recorded at the fetch level (the transport stays
 * the client's own `HttpTransport`, whose era handling depends on its class); stdio by wrapping the
 * transport. The log is bounded: a chatty server cannot grow the CLI's memory without end.
 */
import { createParser } from 'eventsource-parser'
import type { ClientTransport } from '../../client/transport.js'

/** Messages the log keeps; older ones are dropped first (docs/security.md, Guard table). */
export const DEFAULT_MAX_LOGGED_MESSAGES = 2_000
/** Characters of one message body kept in the log; a longer one is cut and marked. */
export const MAX_LOGGED_BODY_CHARS = 200_000

export interface HttpMeta {
  readonly method: string
  readonly url: string
  readonly status?: number
  readonly requestHeaders: Record<string, string>
  readonly responseHeaders?: Record<string, string>
}

export interface LoggedMessage {
  readonly seq: number
  readonly at: string
  /** `out`: client to server; `in`: server to client. */
  readonly direction: 'out' | 'in'
  readonly message: unknown
  readonly http?: HttpMeta
}

/** Credentials are shown by name only: the page may be screenshotted or shared. */
const SECRET_HEADERS = new Set(['authorization', 'cookie', 'set-cookie', 'proxy-authorization'])

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {}
  headers.forEach((value, name) => {
    record[name] = SECRET_HEADERS.has(name.toLowerCase()) ? '(hidden)' : value
  })
  return record
}

function parseBody(text: string): unknown {
  if (text.length > MAX_LOGGED_BODY_CHARS) return `${text.slice(0, MAX_LOGGED_BODY_CHARS)}… (cut)`
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

export class MessageLog {
  readonly #entries: LoggedMessage[] = []
  readonly #listeners = new Set<(entry: LoggedMessage) => void>()
  readonly #max: number
  #seq = 0

  constructor(max = DEFAULT_MAX_LOGGED_MESSAGES) {
    this.#max = max
  }

  add(direction: 'out' | 'in', message: unknown, http?: HttpMeta): void {
    const entry: LoggedMessage = {
      seq: ++this.#seq,
      at: new Date().toISOString(),
      direction,
      message,
      ...(http && { http }),
    }
    this.#entries.push(entry)
    if (this.#entries.length > this.#max) this.#entries.splice(0, this.#entries.length - this.#max)
    for (const listener of this.#listeners) listener(entry)
  }

  entries(): readonly LoggedMessage[] {
    return this.#entries
  }

  onEntry(listener: (entry: LoggedMessage) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  /**
   * A fetch for `HttpTransport` that logs each request body and each response message (a JSON body, or
   * every event of an SSE stream, read from a tee of the stream the transport consumes).
   */
  recordingFetch(inner: (request: Request) => Promise<Response> = (request) => fetch(request)) {
    return async (request: Request): Promise<Response> => {
      const meta = { method: request.method, url: request.url, requestHeaders: headerRecord(request.headers) }
      if (request.method === 'POST') {
        const body = await request.clone().text()
        this.add('out', parseBody(body), meta)
      } else {
        this.add('out', `${request.method} ${request.url}`, meta)
      }
      const response = await inner(request)
      const answered: HttpMeta = {
        ...meta,
        status: response.status,
        responseHeaders: headerRecord(response.headers),
      }
      const type = response.headers.get('content-type') ?? ''
      if (!response.body) {
        this.add('in', `HTTP ${response.status} (no body)`, answered)
        return response
      }
      if (type.includes('text/event-stream')) {
        const [forClient, forLog] = response.body.tee()
        void this.#readEvents(forLog, answered)
        return new Response(forClient, response)
      }
      const text = await response.text()
      this.add('in', text === '' ? `HTTP ${response.status} (empty body)` : parseBody(text), answered)
      // A 202 or 204 may carry no body at all, not even an empty one.
      return new Response(text === '' ? null : text, response)
    }
  }

  async #readEvents(stream: ReadableStream<Uint8Array>, http: HttpMeta): Promise<void> {
    const parser = createParser({
      onEvent: (event) => {
        if (event.data !== '') this.add('in', parseBody(event.data), http)
      },
    })
    const decoder = new TextDecoder()
    const reader = stream.getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return
        parser.feed(decoder.decode(value, { stream: true }))
      }
    } catch {
      // The stream was closed or aborted by the client: nothing more to log.
    }
  }

  /** Wraps a transport (stdio) so that every message either way is logged. */
  recordingTransport(inner: ClientTransport): ClientTransport {
    const log = (direction: 'out' | 'in', message: unknown): void => this.add(direction, message)
    let onNotification: ClientTransport['onNotification']
    let onRequest: ClientTransport['onRequest']
    inner.onNotification = (notification) => {
      log('in', notification)
      onNotification?.(notification)
    }
    inner.onRequest = (request, origin) => {
      log('in', request)
      onRequest?.(request, origin)
    }
    return {
      kind: inner.kind,
      async request(message, options = {}) {
        log('out', message)
        const response = await inner.request(message, {
          ...options,
          onNotification: (notification) => {
            log('in', notification)
            options.onNotification?.(notification)
          },
        })
        log('in', response)
        return response
      },
      send(message) {
        log('out', message)
        return inner.send(message)
      },
      get onNotification() {
        return onNotification
      },
      set onNotification(handler) {
        onNotification = handler
      },
      get onRequest() {
        return onRequest
      },
      set onRequest(handler) {
        onRequest = handler
      },
      credentialKey: () => inner.credentialKey(),
      close: () => inner.close(),
    }
  }
}
