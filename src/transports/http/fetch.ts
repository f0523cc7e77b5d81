/** Web-standard adapter: `(Request) => Promise<Response>`, for Workers, Deno, Bun, Hono, Next … and tests. */
import { readStreamCapped } from '../../wire/read-capped.js'
import { SERVER_CARD_SUFFIX } from '../../wire/server-card.js'
import type { RequestHandler } from '../../protocol/handler.js'
import { answerConsumedBody } from './consumed-body.js'
import { HttpCore, type HttpOptions, type HttpRequestView, type HttpResponseSink } from './core.js'
import { isLoopbackAddress } from './guard.js'
import { warnOncePerProcess } from '../../protocol/warn-once.js'

/** Bytes a response stream buffers before its reader is considered behind. */
const STREAM_HIGH_WATER = 64 * 1024

const NO_CLIENT_ADDRESS =
  'createFetchHandler has no clientAddress: anonymous callers share one rate-limit budget, one ' +
  'concurrency cap, one handle quota and one listen-stream allowance; pass clientAddress(request) to ' +
  'count them by address'

/** `context` is whatever the runtime passes next to the request (Deno's `info`, Bun's `server` …). */
export type FetchHandler = (request: Request, context?: unknown) => Promise<Response>

export interface FetchHandlerOptions extends HttpOptions {
  /**
   * The caller's network address. Fetch runtimes do not put it on the `Request`, and without it every
   * anonymous caller shares one rate-limit budget, one concurrency cap, one handle quota and one allowance of
   * listen streams (`maxListenStreamsPerAddress`). Return
   * undefined when unknown. Only trust a forwarding header your own proxy sets. Without it (and without an
   * authenticator) the first request a runtime serves logs a warning, once per process; in-process calls
   * (`handler(request)`, with no runtime context) never do.
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
  // Said only when a runtime serves the handler: runtimes pass a second argument (Workers' env, Deno's info,
  // Bun's server, Next's route context, Hono's env). In-process use (a client's `fetch`, a test) calls it with
  // the request alone; there every caller is the same process, and one shared budget is right.
  let checkAddress = !clientAddress && !server.authenticator
  return async (request, context) => {
    if (checkAddress && context !== undefined) {
      checkAddress = false
      warnOncePerProcess(server.logger, 'fetch-client-address', NO_CLIENT_ADDRESS)
    }
    if (server.serverCard && request.url.includes(SERVER_CARD_SUFFIX)) {
      const url = new URL(request.url)
      if (url.pathname.endsWith(SERVER_CARD_SUFFIX)) {
        const endpoint = `${url.origin}${url.pathname.slice(0, -SERVER_CARD_SUFFIX.length)}`
        const view = {
          method: request.method,
          header: (name: string) => request.headers.get(name) ?? undefined,
        }
        const document = core.serverCard(view, endpoint)
        if (document)
          return new Response(
            request.method === 'HEAD' || document.body === '' ? null : document.body,
            document,
          )
      }
    }
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
      localAddress: runtimeLocalAddress(request, context),
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

/** Addresses a listener binds to that say nothing about the connection's own interface. */
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]', ''])

/**
 * The address the connection arrived on, as far as the runtime tells it through the handler's second
 * argument, so that a loopback listener answers only loopback Hosts and Origins however it was mounted (DNS
 * rebinding: basic/transports/streamable-http §Security Warning). Bun passes its server (`address`, the bound
 * address, and `requestIP(request)`); Deno passes the handler info (`remoteAddr`); Hono hands either on as
 * `c.env`, and on Node (@hono/node-server) `c.env.incoming` is the `IncomingMessage`. A peer with a loopback
 * address reached this listener over the loopback interface, so its address stands for the local one.
 */
function runtimeLocalAddress(request: Request, context: unknown): string | undefined {
  if (typeof context !== 'object' || context === null) return undefined
  const runtime = context as {
    address?: { address?: unknown }
    requestIP?: (request: Request) => { address?: unknown } | null
    remoteAddr?: { hostname?: unknown }
    incoming?: { socket?: { localAddress?: unknown } }
  }
  const local = runtime.incoming?.socket?.localAddress
  if (typeof local === 'string') return local
  let remote: unknown
  if (typeof runtime.requestIP === 'function') {
    const bound = runtime.address?.address
    if (typeof bound === 'string' && !WILDCARDS.has(bound)) return bound
    try {
      remote = runtime.requestIP(request)?.address
    } catch {
      return undefined // not Bun's server after all
    }
  } else {
    remote = runtime.remoteAddr?.hostname
  }
  return typeof remote === 'string' && isLoopbackAddress(remote) ? remote : undefined
}
