/** Web-standard adapter: `(Request) => Promise<Response>`, for Workers, Deno, Bun, Hono, Next … and tests. */
import { readStreamCapped } from '../../wire/read-capped.js'
import type { RequestHandler } from '../../protocol/handler.js'
import { answerConsumedBody } from './consumed-body.js'
import { HttpCore, type HttpOptions, type HttpRequestView, type HttpResponseSink } from './core.js'

/** Bytes a response stream buffers before its reader is considered behind. */
const STREAM_HIGH_WATER = 64 * 1024

/** `context` is whatever the runtime passes next to the request (Deno's `info`, Bun's `server` …). */
export type FetchHandler = (request: Request, context?: unknown) => Promise<Response>

export interface FetchHandlerOptions extends HttpOptions {
  /**
   * The caller's network address. Fetch runtimes do not put it on the `Request`, and without it every
   * anonymous caller shares one rate-limit budget, one concurrency cap, one handle quota and one allowance of
   * listen streams (`maxListenStreamsPerAddress`). Return
   * undefined when unknown. Only trust a forwarding header your own proxy sets.
   */
  readonly clientAddress?: (request: Request, context: unknown) => string | undefined
}

/**
 * A web-standard handler for the server's Streamable HTTP endpoint: `(Request) => Promise<Response>`.
 *
 * @example
 * ```ts
 * const handle = createFetchHandler(defineServer({ name: 'calc', version: '1.0.0', tools: [add] }))
 * export default { fetch: handle } // Workers, Bun, Deno …
 * ```
 */
export function createFetchHandler(server: RequestHandler, options: FetchHandlerOptions = {}): FetchHandler {
  const core = new HttpCore(server, options)
  const encoder = new TextEncoder()
  const clientAddress = options.clientAddress
  if (!clientAddress && !server.authenticator) {
    server.logger.warn(
      'createFetchHandler has no clientAddress: anonymous callers share one rate-limit budget, one ' +
        'concurrency cap, one handle quota and one listen-stream allowance; pass clientAddress(request) to ' +
        'count them by address',
    )
  }
  return async (request, context) => {
    if (server.authenticator && request.url.includes('/.well-known/')) {
      const document = core.wellKnown(request.method, new URL(request.url).pathname)
      if (document) return new Response(request.method === 'HEAD' ? null : document.body, document)
    }
    let settle!: (response: Response) => void
    const answered = new Promise<Response>((resolve) => (settle = resolve))
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined
    // Cancelled when the client aborts the request or stops reading the stream (streamable-http
    // §Cancellation).
    const cancel = new AbortController()
    if (request.signal.aborted) cancel.abort()
    else request.signal.addEventListener('abort', () => cancel.abort(), { once: true })
    const sink: HttpResponseSink = {
      send: (status, headers, body) => settle(new Response(body ?? null, { status, headers })),
      startStream: (headers) => {
        const stream = new ReadableStream<Uint8Array>(
          { start: (c) => void (controller = c), cancel: () => cancel.abort() },
          new ByteLengthQueuingStrategy({ highWaterMark: STREAM_HIGH_WATER }),
        )
        settle(new Response(stream, { status: 200, headers }))
      },
      write: (chunk) => {
        try {
          controller?.enqueue(encoder.encode(chunk))
        } catch {
          // the reader went away; the request signal reports the cancellation
        }
      },
      end: () => {
        try {
          controller?.close()
        } catch {
          // already closed
        }
      },
      pending: () => STREAM_HIGH_WATER - (controller?.desiredSize ?? STREAM_HIGH_WATER),
      abort: () => {
        cancel.abort()
        try {
          controller?.error(new Error('the client fell too far behind'))
        } catch {
          // already closed
        }
      },
    }
    const view: HttpRequestView = {
      method: request.method,
      header: (name) => request.headers.get(name) ?? undefined,
      signal: cancel.signal,
      remoteAddress: clientAddress?.(request, context),
    }
    const declared = request.headers.get('content-length')
    if (!core.precheck(view, sink, declared === null ? undefined : Number(declared))) return answered
    // A framework that read the body first (Hono's `c.req.json()` …) leaves nothing to read: say so at once.
    if (request.bodyUsed) {
      answerConsumedBody(server, sink)
      return answered
    }
    const body = await readStreamCapped(request.body, core.maxBodyBytes)
    if (!body) {
      core.refuseTooLarge(sink)
      return answered
    }
    core.handle(view, body, sink)
    return answered
  }
}
