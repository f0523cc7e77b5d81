/**
 * Streamable HTTP, framework-free. Adapters (node:http, fetch) supply a request view and a response sink;
 * this file owns every MCP rule: POST only, Origin/Host, body limits, parsing, headers vs body, JSON or SSE.
 */
import type { AuthInfo } from '../../protocol/exchange.js'
import type { Reply, TransportCheck } from '../../protocol/dispatcher.js'
import type { HttpAuthenticator, HttpDocument } from '../../protocol/handler.js'
import type { DualEraHandler } from '../dual-era.js'
import { encodeError } from '../../protocol/encode.js'
import { decodeHeaderValue } from '../../schema/x-mcp-header.js'
import {
  forbiddenOrigin,
  headerMismatch,
  invalidRequest,
  type McpError,
  methodNotAllowed,
  notAcceptable,
  streamNotAcceptable,
  parseError,
  payloadTooLarge,
  transportFailure,
  unsupportedMediaType,
} from '../../wire/errors.js'
import { classify } from '../../wire/jsonrpc.js'
import { HEADER_METHOD, HEADER_NAME, HEADER_PROTOCOL_VERSION } from '../../wire/meta.js'
import { checkOrigin, type OriginPolicy } from './guard.js'
import { HEADER_SESSION_ID, LegacyHttp } from './legacy.js'
import { HttpExchange, JSON_HEADERS, writeReply } from './exchange.js'

export interface HttpOptions {
  /** Largest request body accepted, in bytes (default 4 MiB); larger is 413. */
  readonly maxBodyBytes?: number
  /** Host/Origin policy; `false` turns the check off (only behind a proxy that does it). */
  readonly originPolicy?: OriginPolicy | false
  /** Interval of SSE keep-alive comments on `subscriptions/listen` streams, in ms (default 15 s; 0 = off). */
  readonly keepAliveMs?: number
}

/** What the core reads of an HTTP request. */
export interface HttpRequestView {
  readonly method: string
  /** A header by lower-case name. */
  header(name: string): string | undefined
  readonly signal: AbortSignal
  /** Whether `signal` has fired, when the adapter makes the signal lazily. */
  readonly aborted?: boolean
  readonly remoteAddress?: string | undefined
}

/** Where the core writes its answer. Exactly one of `send` or `startStream` is called. */
export interface HttpResponseSink {
  send(status: number, headers: Record<string, string>, body?: string): void
  startStream(headers: Record<string, string>): void
  write(chunk: string): void
  end(): void
  /** Bytes written to the stream that the client has not taken yet. */
  pending?(): number
}

export const DEFAULT_MAX_BODY = 4 * 1024 * 1024
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Answers with an error from the table: its status, its extra headers and a JSON-RPC error body. */
export function sendError(out: HttpResponseSink, error: McpError, id?: string | number): void {
  out.send(
    error.status,
    error.headers ? { ...JSON_HEADERS, ...error.headers } : JSON_HEADERS,
    encodeError(id, error),
  )
}

function acceptsResponse(accept: string | undefined): boolean {
  return accepts(accept, 'application/json') || accepts(accept, 'text/event-stream')
}

/**
 * Whether an Accept header allows a media type (RFC 9110 §12.5.1): the most specific matching range decides,
 * and `q=0` refuses. No header allows anything.
 */
function accepts(accept: string | undefined, mediaType: string): boolean {
  if (accept === undefined || accept.trim() === '') return true
  const [type] = mediaType.split('/')
  let best: { specificity: number; q: number } | undefined
  for (const range of accept.split(',')) {
    const [name = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase())
    const specificity = name === mediaType ? 2 : name === `${type}/*` ? 1 : name === '*/*' ? 0 : -1
    if (specificity < 0 || (best && best.specificity > specificity)) continue
    const q = params.find((param) => param.startsWith('q='))
    best = { specificity, q: q === undefined ? 1 : Number(q.slice(2)) }
  }
  return best !== undefined && best.q > 0
}

/**
 * Checks on the standard headers against the body (streamable-http §Standard Request Headers, §Server
 * Validation; order: headers before version support).
 */
const checkStandardHeaders =
  (view: HttpRequestView): TransportCheck =>
  (request, meta, spec) => {
    const version = view.header(HEADER_PROTOCOL_VERSION)?.trim()
    if (version === undefined || version === '')
      throw headerMismatch('MCP-Protocol-Version header is required')
    if (version !== meta.protocolVersion) {
      throw headerMismatch(
        `MCP-Protocol-Version header '${version}' does not match _meta protocolVersion '${meta.protocolVersion}'`,
      )
    }
    const method = view.header(HEADER_METHOD)?.trim()
    if (method === undefined || method === '') throw headerMismatch('Mcp-Method header is required')
    if (method !== request.method) {
      throw headerMismatch(
        `Mcp-Method header value '${method}' does not match body value '${request.method}'`,
      )
    }
    if (!spec?.nameParam) return
    const bodyName = request.params?.[spec.nameParam]
    const raw = view.header(HEADER_NAME)
    if (raw === undefined || raw.trim() === '')
      throw headerMismatch('Mcp-Name header is required for this method')
    let name: string
    try {
      name = decodeHeaderValue(raw.trim())
    } catch (error) {
      throw headerMismatch(`Mcp-Name header ${(error as Error).message}`)
    }
    if (typeof bodyName === 'string' && name !== bodyName) {
      throw headerMismatch(`Mcp-Name header value '${name}' does not match body value '${bodyName}'`)
    }
  }

export class HttpCore {
  readonly server: DualEraHandler
  readonly maxBodyBytes: number
  readonly #policy: OriginPolicy | false
  readonly #authenticator: HttpAuthenticator | undefined
  readonly #keepAliveMs: number
  /** 2025-era sessions; undefined when the server serves 2026-07-28 only. */
  readonly #legacy: LegacyHttp | undefined

  constructor(server: DualEraHandler, options: HttpOptions = {}) {
    this.server = server
    this.#keepAliveMs = options.keepAliveMs ?? 15_000
    if (server.legacy && server.sessions)
      this.#legacy = new LegacyHttp(server.legacy, server.sessions, this.#keepAliveMs)
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY
    this.#policy = options.originPolicy ?? {}
    this.#authenticator = server.authenticator
  }

  /**
   * A document the server publishes beside its endpoint (RFC 9728 metadata when auth is on), or undefined.
   */
  wellKnown(method: string, path: string): HttpDocument | undefined {
    const auth = this.server.authenticator
    if (!auth?.document || !path.startsWith('/.well-known/')) return undefined
    return auth.document(method, path)
  }

  /**
   * Checks that need no body. Returns false when it already answered (405, 403, 413, 415, 406).
   * `contentLength` is the declared length, when there is one.
   */
  precheck(view: HttpRequestView, out: HttpResponseSink, contentLength: number | undefined): boolean {
    if (
      this.#legacy &&
      (view.method === 'GET' || view.method === 'DELETE') &&
      view.header(HEADER_SESSION_ID) !== undefined
    ) {
      this.#legacySession(view, out).catch((error: unknown) => this.fail(out, error))
      return false
    }
    const refusal = this.#refusal(view, contentLength)
    if (refusal === undefined) return true
    sendError(out, refusal)
    return false
  }

  #refusal(view: HttpRequestView, contentLength: number | undefined): McpError | undefined {
    if (view.method !== 'POST') return methodNotAllowed()
    if (this.#policy) {
      const reason = checkOrigin(this.#policy, view.header('host'), view.header('origin'))
      if (reason) return forbiddenOrigin(reason)
    }
    if (contentLength !== undefined && contentLength > this.maxBodyBytes)
      return payloadTooLarge(this.maxBodyBytes)
    const type = view.header('content-type')
    if (type !== undefined && !/^application\/(.+\+)?json\b/i.test(type.trim())) return unsupportedMediaType()
    if (!acceptsResponse(view.header('accept'))) return notAcceptable()
    return undefined
  }

  /** Refuses a body that turned out larger than the limit while it was read (413). */
  refuseTooLarge(out: HttpResponseSink): void {
    sendError(out, payloadTooLarge(this.maxBodyBytes, true))
  }

  /** Answers when the adapter itself failed; the detail goes only to the server log (500). */
  fail(out: HttpResponseSink, error: unknown): void {
    this.server.logger.error('HTTP handler failed', { error: String(error) })
    sendError(out, transportFailure())
  }

  /** GET or DELETE of a 2025-era session (after the Origin check and authentication). */
  async #legacySession(view: HttpRequestView, out: HttpResponseSink): Promise<void> {
    const legacy = this.#legacy as LegacyHttp
    if (this.#policy) {
      const refusal = checkOrigin(this.#policy, view.header('host'), view.header('origin'))
      if (refusal) return sendError(out, forbiddenOrigin(refusal))
    }
    let auth: AuthInfo | undefined
    if (this.#authenticator) {
      const outcome = await this.#authenticator.authenticate(view)
      if (!outcome.ok) {
        out.send(outcome.status, { ...JSON_HEADERS, ...outcome.headers }, outcome.body)
        return
      }
      auth = outcome.auth
    }
    await (view.method === 'GET' ? legacy.stream(view, out, auth) : legacy.end(view, out, auth))
  }

  /** Answers a POST whose body has been read (at most maxBodyBytes). */
  async handle(view: HttpRequestView, body: Uint8Array, out: HttpResponseSink): Promise<void> {
    let auth: AuthInfo | undefined
    if (this.#authenticator) {
      const outcome = await this.#authenticator.authenticate(view)
      if (!outcome.ok) {
        out.send(outcome.status, { ...JSON_HEADERS, ...outcome.headers }, outcome.body)
        return
      }
      auth = outcome.auth
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(utf8.decode(body))
    } catch (error) {
      sendError(out, error instanceof TypeError ? parseError('body is not valid UTF-8') : parseError())
      return
    }
    const inbound = classify(parsed)
    if (this.#legacy && LegacyHttp.claims(view, inbound)) return this.#legacy.post(view, inbound, out, auth)
    if (inbound.kind === 'invalid') return sendError(out, invalidRequest(inbound.reason), inbound.id)
    if (inbound.kind === 'response') return sendError(out, invalidRequest('clients must not send responses'))
    if (inbound.kind === 'notification') {
      out.send(202, {})
      return
    }
    const request = inbound.message
    const eventStream = accepts(view.header('accept'), 'text/event-stream')
    if (!eventStream && request.method === 'subscriptions/listen')
      return sendError(out, streamNotAcceptable(), request.id)
    const exchange = new HttpExchange(view, out, auth, eventStream)
    // Long-lived listen streams get periodic SSE comments so proxies keep them open (streamable-http
    // §Receiving Messages).
    const keepAlive =
      request.method === 'subscriptions/listen' && this.#keepAliveMs > 0
        ? setInterval(() => {
            if (exchange.streaming && !exchange.aborted) out.write(':\n\n')
          }, this.#keepAliveMs)
        : undefined
    keepAlive?.unref?.()
    let reply: Reply | null
    try {
      reply = await this.server.handle(request, exchange, checkStandardHeaders(view))
    } finally {
      if (keepAlive) clearInterval(keepAlive)
    }
    writeReply(exchange, reply, out)
  }
}
