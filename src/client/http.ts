/**
 * Streamable HTTP, client side: one POST per message (streamable-http §Sending Messages), the standard
 * headers on every request (streamable-http §Standard Request Headers), a JSON or SSE answer, and an abort
 * closes the stream (streamable-http §Cancellation).
 */
import {
  isRecord,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../wire/jsonrpc.js'
import { META_PROTOCOL_VERSION } from '../wire/meta.js'
import { encodeHeaderValue } from '../schema/x-mcp-header.js'
import { AuthorizationError } from './auth/errors.js'
import { TransportError } from './errors.js'
import { OversizedError, readSse } from './sse.js'
import type { ClientTransport, SendOptions } from './transport.js'

export type HeadersInput =
  | Readonly<Record<string, string>>
  | (() => Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>)

export interface HttpTransportOptions {
  readonly url: string | URL
  /** Sent on every request (e.g. `Authorization`); a function is called per request, for refreshed tokens. */
  readonly headers?: HeadersInput
  /** A custom fetch, e.g. `createFetchHandler(server)` to talk to a server in-process. */
  readonly fetch?: (request: Request) => Promise<Response>
  /** Largest response body, or SSE event, accepted (default 16 MiB); larger is a TransportError. */
  readonly maxResponseBytes?: number
  /** Authorization for every request, e.g. an `OAuthProvider` (basic/authorization). */
  readonly auth?: HttpAuth
}

/** Wraps each request: adds credentials, answers 401/403 challenges, and keys per-credential caches. */
export interface HttpAuth {
  fetch(request: Request, next: (request: Request) => Promise<Response>): Promise<Response>
  credentialKey(): Promise<string>
}

export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024

/**
 * Methods whose `Mcp-Name` header mirrors `params.name` or `params.uri` (streamable-http §Standard Request
 * Headers), and the tasks methods, which mirror `params.taskId` (extensions/tasks §Streamable HTTP: Routing
 * Headers).
 */
const NAME_PARAM: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
}

export class HttpTransport implements ClientTransport {
  readonly kind = 'http'
  readonly url: URL
  onNotification: ((notification: JsonRpcNotification) => void) | undefined
  readonly #headers: HeadersInput | undefined
  readonly #fetch: (request: Request) => Promise<Response>
  readonly #maxBytes: number
  readonly #auth: HttpAuth | undefined

  constructor(options: HttpTransportOptions) {
    this.#maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
    this.url = new URL(options.url)
    if (this.url.protocol !== 'http:' && this.url.protocol !== 'https:') {
      throw new TypeError(`Expected an http(s) URL, got ${this.url.href}`)
    }
    this.#headers = options.headers
    const plain = options.fetch ?? ((request: Request) => fetch(request))
    const auth = (this.#auth = options.auth)
    this.#fetch = auth ? (request) => auth.fetch(request, plain) : plain
  }

  async #userHeaders(): Promise<Readonly<Record<string, string>>> {
    const headers = this.#headers
    return typeof headers === 'function' ? await headers() : (headers ?? {})
  }

  async credentialKey(): Promise<string> {
    // Every credential the request carries counts: the OAuth token, and every configured header
    // (Authorization, X-Api-Key, Cookie …).
    const oauth = this.#auth ? await this.#auth.credentialKey() : 'anonymous'
    const headers = Object.entries(await this.#userHeaders())
      .map(([name, value]) => [name.toLowerCase(), value])
      .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0))
    return headers.length > 0 || oauth !== 'anonymous' ? JSON.stringify([oauth, headers]) : 'anonymous'
  }

  /** The headers a request must carry, derived from its body (the body stays the source of truth). */
  static standardHeaders(message: JsonRpcRequest | JsonRpcNotification): Record<string, string> {
    const headers: Record<string, string> = { 'mcp-method': message.method }
    const meta = message.params?._meta
    const version = isRecord(meta) ? meta[META_PROTOCOL_VERSION] : undefined
    if (typeof version === 'string') headers['mcp-protocol-version'] = version
    const param = NAME_PARAM[message.method]
    const name = param === undefined ? undefined : message.params?.[param]
    if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name)
    return headers
  }

  async #post(message: JsonRpcRequest | JsonRpcNotification, options: SendOptions): Promise<Response> {
    const headers = new Headers(await this.#userHeaders())
    for (const [name, value] of Object.entries(HttpTransport.standardHeaders(message)))
      headers.set(name, value)
    for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value)
    headers.set('content-type', 'application/json')
    headers.set('accept', 'application/json, text/event-stream')
    const init: RequestInit = { method: 'POST', headers, body: JSON.stringify(message) }
    if (options.signal) init.signal = options.signal
    try {
      return await untilAborted(this.#fetch(new Request(this.url, init)), options.signal)
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason
      if (error instanceof AuthorizationError) throw error
      throw new TransportError(`Cannot reach ${this.url.href}: ${describe(error)}`, { cause: error })
    }
  }

  async request(message: JsonRpcRequest, options: SendOptions = {}): Promise<JsonRpcResponse> {
    const response = await this.#post(message, options)
    const type = response.headers.get('content-type') ?? ''
    if (/^text\/event-stream/i.test(type) && response.body) {
      return this.#readStream(message, response, options)
    }
    const text = await this.#text(response, options)
    const parsed = parseJson(text)
    if (isResponseTo(parsed, message.id) || isIdlessError(parsed)) return parsed as JsonRpcResponse
    const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`
    const snippet = text.trim().slice(0, 200)
    throw new TransportError(
      `${this.url.href} answered ${message.method} with ${status}${snippet ? `: ${snippet}` : ''}` +
        (response.ok ? ' (not a JSON-RPC response)' : ''),
      { status: response.status },
    )
  }

  async #text(response: Response, options: SendOptions): Promise<string> {
    try {
      return await readCapped(response, this.#maxBytes)
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason
      if (error instanceof TransportError) throw error
      throw new TransportError(`Reading the response failed: ${describe(error)}`, { cause: error })
    }
  }

  async #readStream(
    message: JsonRpcRequest,
    response: Response,
    options: SendOptions,
  ): Promise<JsonRpcResponse> {
    const body = response.body as ReadableStream<Uint8Array>
    try {
      for await (const data of readSse(body, this.#maxBytes)) {
        const parsed = parseJson(data)
        if (isRecord(parsed) && typeof parsed.method === 'string' && !('id' in parsed)) {
          const notification = parsed as unknown as JsonRpcNotification
          if (options.onNotification) options.onNotification(notification)
          else this.onNotification?.(notification)
        } else if (isResponseTo(parsed, message.id) || isIdlessError(parsed)) {
          return parsed as JsonRpcResponse
        }
        // Anything else (a server-to-client request, garbage) is ignored: 2026-07-28 servers send none.
      }
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason
      if (error instanceof TransportError) throw error
      if (error instanceof OversizedError)
        throw new TransportError(`The response stream was refused: ${error.message}`)
      throw new TransportError(`The response stream broke: ${describe(error)}`, { cause: error })
    }
    if (options.signal?.aborted) throw options.signal.reason
    throw new TransportError(`The response stream for ${message.method} ended without a response`)
  }

  /** Sends a notification (202 expected). */
  async notify(message: JsonRpcNotification): Promise<void> {
    const response = await this.#post(message, {})
    await response.body?.cancel()
  }

  async close(): Promise<void> {}
}

/** Reads a body up to `max` bytes; a larger one is cancelled and refused. */
async function readCapped(response: Response, max: number): Promise<string> {
  if (!response.body) return ''
  const declared = Number(response.headers.get('content-length') ?? NaN)
  if (declared > max) {
    await response.body.cancel()
    throw new TransportError(`The response is larger than ${max} bytes`, { status: response.status })
  }
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return text + decoder.decode()
    size += value.byteLength
    if (size > max) {
      await reader.cancel()
      throw new TransportError(`The response is larger than ${max} bytes`, { status: response.status })
    }
    text += decoder.decode(value, { stream: true })
  }
}

/** Rejects as soon as the signal aborts, even if a custom fetch never settles a cancelled request. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason)
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function isResponseTo(value: unknown, id: string | number): boolean {
  return (
    isRecord(value) && value.jsonrpc === '2.0' && value.id === id && ('result' in value || 'error' in value)
  )
}

function isIdlessError(value: unknown): boolean {
  return isRecord(value) && value.jsonrpc === '2.0' && isRecord(value.error) && (value.id ?? null) === null
}

export function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : ''
    return `${error.message}${cause}`
  }
  return String(error)
}
