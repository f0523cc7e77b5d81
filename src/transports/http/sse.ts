/**
 * The HTTP+SSE transport of protocol revision 2024-11-05 (basic/transports §HTTP with SSE): `GET <path>`
 * opens a stream whose first event, `endpoint`, names the URL to POST messages to; each POST is answered
 * 202 and every reply and server message travels on the stream as a `message` event. Many clients still
 * speak only this (it is what stdio-to-HTTP gateways have long served).
 *
 * An SSE stream is a 2025-era session whose replies travel on the stream: each POST is handed to the same
 * core as a Streamable HTTP POST of that session (origin, size, parsing, authentication, session binding),
 * and the session's notification stream (a 2025-era GET) is attached to the SSE stream once `initialize`
 * minted the session. Streams count against `maxListenStreamsPerAddress` like every open-ended stream.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AuthInfo } from '../../protocol/exchange.js'
import { type OwnerKey, ownerKey, principalOf } from '../../protocol/principal.js'
import { ErrorCode, forbiddenOrigin, invalidRequest, McpError } from '../../wire/errors.js'
import { sendError, type HttpCore, type HttpRequestView, type HttpResponseSink } from './core.js'
import { SSE_HEADERS } from './exchange.js'
import { HEADER_SESSION_ID } from './legacy.js'

/** Where the HTTP+SSE transport listens (`NodeHandlerOptions.sse`). */
export interface SseOptions {
  /** The stream's path (default `/sse`). */
  readonly path?: string
  /** The path clients POST messages to (default `/messages`); the `endpoint` event adds `?sessionId=…`. */
  readonly messagesPath?: string
}

/** A plain response for node requests: what the core writes its refusals to. */
class PlainSink implements HttpResponseSink {
  constructor(private readonly res: ServerResponse) {}
  send(status: number, headers: Record<string, string>, body?: string): void {
    if (this.res.headersSent || this.res.destroyed) return
    this.res.writeHead(status, headers).end(body)
  }
  startStream(): void {}
  write(): void {}
  end(): void {
    if (!this.res.writableEnded) this.res.end()
  }
}

const NOWHERE: HttpResponseSink = { send() {}, startStream() {}, write() {}, end() {} }

/** A request as the core reads it: a node request's headers, with some replaced. */
class View implements HttpRequestView {
  constructor(
    readonly method: string,
    private readonly req: IncomingMessage,
    readonly signal: AbortSignal,
    private readonly replaced: Readonly<Record<string, string | undefined>> = {},
  ) {}
  header(name: string): string | undefined {
    if (name in this.replaced) return this.replaced[name]
    const value = this.req.headers[name]
    return Array.isArray(value) ? value.join(', ') : value
  }
  get remoteAddress(): string | undefined {
    return this.req.socket.remoteAddress
  }
  get localAddress(): string | undefined {
    return this.req.socket.localAddress
  }
}

/** One open SSE stream and the 2025-era session behind it. */
class SseStream {
  /** The sealed session token, once `initialize` minted it. */
  token: string | undefined
  /** The listen slot the stream holds until the session's notification stream takes its own. */
  slot: OwnerKey | undefined
  readonly closed = new AbortController()

  constructor(
    readonly id: string,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly principal: OwnerKey,
    private readonly give: (slot: OwnerKey) => void,
  ) {}

  /** Gives back the stream's listen slot, once. */
  release(): void {
    if (this.slot !== undefined) this.give(this.slot)
    this.slot = undefined
  }

  write(chunk: string): void {
    if (!this.res.destroyed && !this.res.writableEnded) this.res.write(chunk)
  }
}

/** What the core writes for one message of an SSE session: bodies become `message` events on the stream. */
class StreamSink implements HttpResponseSink {
  constructor(
    private readonly stream: SseStream,
    /** The session's notification stream (a 2025-era GET) rather than one POST's answer. */
    private readonly listen: boolean,
    private readonly onSession: (token: string) => void,
  ) {}
  send(status: number, headers: Record<string, string>, body?: string): void {
    const token = headers[HEADER_SESSION_ID]
    if (token !== undefined && this.stream.token === undefined) this.onSession(token)
    // The notification stream refused (the session is gone): nothing more can reach the client.
    if (this.listen && status >= 400) {
      this.stream.res.end()
      return
    }
    if (body !== undefined && body !== '') this.stream.write(`event: message\ndata: ${body}\n\n`)
  }
  startStream(): void {
    // The notification stream took a listen slot of its own: the SSE stream gives back the one it held.
    if (this.listen) this.stream.release()
  }
  write(chunk: string): void {
    // Keep-alive comments: the SSE stream sends its own.
    if (chunk !== ':\n\n') this.stream.write(chunk)
  }
  end(): void {
    // The server closes the session's stream (shutdown): the SSE stream ends with it.
    if (this.listen && !this.stream.res.writableEnded) this.stream.res.end()
  }
  pending(): number {
    return this.stream.res.writableLength
  }
  abort(): void {
    this.stream.res.destroy()
  }
}

/** Serves the HTTP+SSE transport's two paths on a core. */
export class SseTransport {
  readonly #streams = new Map<string, SseStream>()
  readonly path: string
  readonly messagesPath: string

  constructor(
    private readonly core: HttpCore,
    options: SseOptions,
  ) {
    this.path = options.path ?? '/sse'
    this.messagesPath = options.messagesPath ?? '/messages'
    if (!core.servesLegacy)
      throw new TypeError('the HTTP+SSE transport needs a server that serves 2025-era sessions')
  }

  /** Answers a request to `path` or `messagesPath`. */
  serve(req: IncomingMessage, res: ServerResponse, path: string): void {
    const pending = path === this.path ? this.#open(req, res) : this.#post(req, res)
    pending.catch((error: unknown) => this.core.fail(new PlainSink(res), error))
  }

  /** `GET <path>`: opens a stream and names the URL for its messages. */
  async #open(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const out = new PlainSink(res)
    if (req.method !== 'GET')
      return sendError(
        out,
        new McpError(ErrorCode.InvalidRequest, 'Use GET', undefined, 405, { allow: 'GET' }),
      )
    const view = new View('GET', req, AbortSignal.abort())
    const refusal = this.core.originRefusal(view)
    if (refusal) return sendError(out, forbiddenOrigin(refusal))
    if (!/text\/event-stream|\*\/\*/i.test(view.header('accept') ?? '*/*'))
      return sendError(
        out,
        new McpError(ErrorCode.InvalidRequest, 'Accept must allow text/event-stream', undefined, 406),
      )
    const auth = await this.core.authenticateOrRefuse(view, out)
    if (auth === false) return
    const slot = this.core.listens.take(req.socket.remoteAddress, auth)
    if (typeof slot !== 'string') return sendError(out, slot)
    if (res.destroyed) return this.core.listens.give(slot)
    const stream = new SseStream(randomUUID(), req, res, principalKey(auth, req), (held) =>
      this.core.listens.give(held),
    )
    stream.slot = slot
    this.#streams.set(stream.id, stream)
    res.writeHead(200, SSE_HEADERS)
    res.flushHeaders()
    stream.write(`event: endpoint\ndata: ${this.messagesPath}?sessionId=${stream.id}\n\n`)
    const keepAliveMs = this.core.keepAliveMs
    const keepAlive = keepAliveMs > 0 ? setInterval(() => stream.write(':\n\n'), keepAliveMs) : undefined
    keepAlive?.unref()
    res.on('close', () => {
      if (keepAlive) clearInterval(keepAlive)
      this.#streams.delete(stream.id)
      stream.release()
      stream.closed.abort()
      // The stream was the session's connection (2024-11-05 basic/transports §HTTP with SSE): it ends with it.
      if (stream.token !== undefined) this.#end(stream)
    })
  }

  /** `POST <messagesPath>?sessionId=…`: one message of a stream's session, answered on the stream. */
  async #post(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const out = new PlainSink(res)
    const aborted = new AbortController()
    res.on('close', () => aborted.abort())
    const view = new View(req.method ?? 'GET', req, aborted.signal)
    const declared = req.headers['content-length']
    if (!this.core.precheck(view, out, declared === undefined ? undefined : Number(declared))) {
      req.resume()
      return
    }
    const id = new URL(req.url ?? '/', 'http://localhost').searchParams.get('sessionId')
    if (id === null) {
      req.resume()
      return sendError(out, invalidRequest('sessionId is required: open the SSE stream first'))
    }
    const body = await readBody(req, this.core.maxBodyBytes)
    if (body === undefined) return this.core.refuseTooLarge(out)
    const auth = await this.core.authenticateOrRefuse(view, out)
    if (auth === false) return
    const stream = this.#streams.get(id)
    // Another caller's stream is treated like an unknown one, as 2025-era sessions are.
    if (!stream || stream.principal !== principalKey(auth, req))
      return sendError(
        out,
        new McpError(ErrorCode.SessionNotFound, 'Session not found: open a new SSE stream', undefined, 404),
      )
    res.writeHead(202, { 'content-type': 'text/plain; charset=utf-8' }).end('Accepted')
    // The message's cancellation follows the stream, not this POST (closing the stream ends the session).
    const message = new View('POST', req, stream.closed.signal, {
      [HEADER_SESSION_ID]: stream.token,
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': undefined,
    })
    this.core.handle(message, body, new StreamSink(stream, false, (token) => this.#attach(stream, token)))
  }

  /** The session was minted: its notifications and requests to the client travel on the stream too. */
  #attach(stream: SseStream, token: string): void {
    stream.token = token
    const listen = new View('GET', stream.req, stream.closed.signal, {
      [HEADER_SESSION_ID]: token,
      accept: 'text/event-stream',
      'mcp-protocol-version': undefined,
    })
    this.core.precheck(listen, new StreamSink(stream, true, () => undefined), undefined)
  }

  /** Ends a closed stream's session, as a DELETE would. */
  #end(stream: SseStream): void {
    const end = new View('DELETE', stream.req, new AbortController().signal, {
      [HEADER_SESSION_ID]: stream.token,
      'mcp-protocol-version': undefined,
    })
    this.core.precheck(end, NOWHERE, undefined)
  }
}

const principalKey = (auth: AuthInfo | undefined, req: IncomingMessage): OwnerKey =>
  ownerKey(principalOf(auth, req.socket.remoteAddress, 'http'))

/** The request body, or undefined once it passed `max` bytes (the rest is drained). */
function readBody(req: IncomingMessage, max: number): Promise<Uint8Array | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let refused = false
    req.on('data', (chunk: Buffer) => {
      if (refused) return
      size += chunk.length
      if (size > max) {
        refused = true
        chunks.length = 0
        resolve(undefined)
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => refused || resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}
