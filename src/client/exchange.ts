/**
 * What the HTTP transport needs of an HTTP stack: send one request, get its status, headers and body. Two
 * stacks provide it: any fetch-shaped function (browsers, edge runtimes, an injected `fetch`, the auth
 * middleware) and, on Node, `node:http` directly (node-http.ts), which skips building `Request` and
 * `Response` objects on the hot path.
 */
import { readStreamCapped } from '../wire/read-capped.js'
import type { Cancellation } from './cancellation.js'
import { TransportError } from './errors.js'

export interface Outgoing {
  readonly method: 'GET' | 'POST' | 'DELETE'
  readonly url: URL
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string
  /** Aborting it abandons the request or, once answered, its body. */
  readonly cancel?: Cancellation
}

export interface Incoming {
  readonly status: number
  readonly statusText: string
  /** A header's value (lower-case name), or null. */
  header(name: string): string | null
  /** Every header, for rebuilding a `Response`. */
  headerList(): [string, string][]
  /** The whole body as text; more than `maxBytes` is refused with a TransportError. */
  text(maxBytes: number): Promise<string>
  /** The body as it arrives (an SSE stream). */
  chunks(): AsyncIterable<Uint8Array>
  /** Drops the rest of the body. */
  discard(): Promise<void>
}

export interface HttpStack {
  send(request: Outgoing): Promise<Incoming>
  /** Releases pooled connections (the stack still works afterwards). */
  close(): void
}

export type FetchLike = (request: Request) => Promise<Response>

/** An HttpStack over a fetch-shaped function. */
export function fetchStack(fetch: FetchLike): HttpStack {
  return {
    send: async (outgoing) => {
      const init: RequestInit = { method: outgoing.method, headers: outgoing.headers }
      if (outgoing.body !== undefined) init.body = outgoing.body
      if (outgoing.cancel) init.signal = outgoing.cancel.signal
      return fromResponse(await untilAborted(fetch(new Request(outgoing.url, init)), outgoing.cancel))
    },
    close: () => undefined,
  }
}

function fromResponse(response: Response): Incoming {
  return {
    status: response.status,
    statusText: response.statusText,
    header: (name) => response.headers.get(name),
    headerList: () => {
      const list: [string, string][] = []
      response.headers.forEach((value, name) => list.push([name, value]))
      return list
    },
    text: (maxBytes) => readCapped(response, maxBytes),
    chunks: () => readerChunks(response.body),
    discard: async () => {
      await response.body?.cancel().catch(() => undefined)
    },
  }
}

/** The chunks of a web stream, read through a reader (not every browser iterates ReadableStream). */
export async function* readerChunks(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (!body) return
  const reader = body.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      yield value
    }
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}

export const tooLarge = (max: number, status: number): TransportError =>
  new TransportError(`The response is larger than ${max} bytes`, { status })

/** Reads a body up to `max` bytes; a larger one is cancelled and refused. */
async function readCapped(response: Response, max: number): Promise<string> {
  if (!response.body) return ''
  const declared = Number(response.headers.get('content-length') ?? NaN)
  if (declared > max) {
    await response.body.cancel()
    throw tooLarge(max, response.status)
  }
  const bytes = await readStreamCapped(response.body, max)
  if (!bytes) throw tooLarge(max, response.status)
  return new TextDecoder().decode(bytes)
}

/** Rejects as soon as the signal aborts, even if a custom fetch never settles a cancelled request. */
function untilAborted<T>(promise: Promise<T>, cancel: Cancellation | undefined): Promise<T> {
  if (!cancel) return promise
  return new Promise<T>((resolve, reject) => {
    const remove = cancel.onAbort(() => reject(cancel.reason))
    promise.then(resolve, reject).finally(remove)
  })
}
