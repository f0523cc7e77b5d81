/**
 * Streamable HTTP, framework-free. Adapters (node:http, fetch) supply a request view and a response sink;
 * this file owns every MCP rule: POST only, Origin/Host, body limits, parsing, headers vs body, JSON or SSE.
 */
import { KeepAlives } from './keep-alive.js'
import type { AuthInfo } from '../../protocol/exchange.js'
import type { AuthOutcome, HttpAuthenticator, HttpDocument } from '../../protocol/handler.js'
import type { DualEraHandler } from '../dual-era.js'
import { encodeError } from '../../protocol/encode.js'
import {
  forbiddenOrigin,
  invalidRequest,
  type McpError,
  methodNotAllowed,
  nestedTooDeep,
  notAcceptable,
  streamNotAcceptable,
  parseError,
  payloadTooLarge,
  transportFailure,
  unsupportedMediaType,
} from '../../wire/errors.js'
import { DEFAULT_MAX_DEPTH, nestedDeeperThan, topLevelId } from '../../wire/json-depth.js'
import { classify, type JsonRpcRequest } from '../../wire/jsonrpc.js'
import {
  checkOriginAgain,
  hostLiteral,
  isLoopbackAddress,
  loopbackPolicy,
  type OriginPolicy,
} from './guard.js'
import { HEADER_SESSION_ID, LegacyHttp } from './legacy.js'
import { DEFAULT_MAX_BACKLOG, HttpExchange, JSON_HEADERS, writeReply } from './exchange.js'
import { ListenSlots } from './listen-slots.js'
import { ListenExchange, type ListenStreams } from './listen-exchange.js'
import { ALLOWS_EVENT_STREAM, allows } from './accept.js'

export interface HttpOptions {
  /** Largest request body accepted, in bytes (default 4 MiB); larger is 413. */
  readonly maxBodyBytes?: number
  /**
   * Host/Origin policy; `false` turns the check off (only behind a proxy that does it). Default: when the
   * connection arrived on a loopback address, only loopback Hosts and Origins; on another address, that
   * address and the machine's own names (`localhost`, loopback literals; with `createNodeHandler` also
   * `os.hostname()` and every interface address); where the adapter cannot tell the address (some fetch
   * runtimes), any Host, and an Origin must name the Host itself. `allowedHosts` / `allowedOrigins` are shorthands for a policy. Read once, when the handler
   * is made.
   */
  readonly originPolicy?: OriginPolicy | false
  /** Host header values accepted (host or host:port); needed where the adapter cannot see a local address. */
  readonly allowedHosts?: readonly string[]
  /** Origins accepted (scheme://host[:port]). */
  readonly allowedOrigins?: readonly string[]
  /** Interval of SSE keep-alive comments on `subscriptions/listen` streams, in ms (default 15 s; 0 = off). */
  readonly keepAliveMs?: number
  /**
   * Unsent bytes an SSE response (a tool's progress and logs as much as a listen stream) may pile up for a
   * client that does not read; past it the response is cut and the request cancelled (default 256 KiB).
   */
  readonly maxBacklogBytes?: number
  /**
   * `subscriptions/listen` streams one principal (an authenticated user or client, else one address) may
   * hold open (default 16); more get 429.
   */
  readonly maxListenStreamsPerAddress?: number
}

/** What the core reads of an HTTP request. */
export interface HttpRequestView {
  readonly method: string
  /** A header by lower-case name. */
  header(name: string): string | undefined
  readonly signal: AbortSignal
  /** Whether `signal` has fired, when the adapter makes the signal lazily. */
  readonly aborted?: boolean
  /** `listener` once when the request is cancelled, without making `signal` (see Exchange.onAbort). */
  onAbort?(listener: () => void): () => void
  readonly remoteAddress?: string | undefined
  /** The peer's port, where the adapter knows it. */
  readonly remotePort?: number | undefined
  /** The HTTP version (`1.1`, `2`), where the adapter knows it. */
  readonly httpVersion?: string | undefined
  /** The address the connection arrived on, where the adapter knows it (picks the default Host policy). */
  readonly localAddress?: string | undefined
}

/** Where the core writes its answer. Exactly one of `send` or `startStream` is called. */
export interface HttpResponseSink {
  send(status: number, headers: Record<string, string>, body?: string): void
  startStream(headers: Record<string, string>): void
  write(chunk: string): void
  end(): void
  /** Bytes written to the stream that the client has not taken yet. */
  pending?(): number
  /** Cuts the response off; the request's signal then fires, as for a client that went away. */
  abort?(): void
}

export const DEFAULT_MAX_BODY = 4 * 1024 * 1024
const LOOPBACK_POLICY = loopbackPolicy()
const OPEN_POLICY: OriginPolicy = {}
/** Local addresses whose default policy is remembered; a host has a handful of interfaces. */
const MAX_LOCAL_POLICIES = 64
/** A JSON media type (`application/json`, `application/<x>+json`, any parameters): what a POST body may be. */
const JSON_MEDIA_TYPE = /^application\/(.+\+)?json\b/i
const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Answers with an error from the table: its status, its extra headers and a JSON-RPC error body. */
export function sendError(out: HttpResponseSink, error: McpError, id?: string | number): void {
  out.send(
    error.status,
    error.headers ? { ...JSON_HEADERS, ...error.headers } : JSON_HEADERS,
    encodeError(id, error),
  )
}

const isPromiseLike = (value: unknown): value is PromiseLike<AuthOutcome> =>
  typeof (value as PromiseLike<unknown> | null)?.then === 'function'

/** A copy of a policy's lists: the policy is fixed once the handler is made (its verdicts are remembered). */
function fixedPolicy(policy: OriginPolicy | false | undefined): OriginPolicy | false | undefined {
  if (!policy) return policy
  return {
    ...(policy.allowedHosts && { allowedHosts: [...policy.allowedHosts] }),
    ...(policy.allowedOrigins && { allowedOrigins: [...policy.allowedOrigins] }),
    ...(policy.extraOrigins && { extraOrigins: [...policy.extraOrigins] }),
  }
}

/** What `#authenticate` returns once it has answered a refused request itself. */
const REFUSED = Symbol('refused')

export class HttpCore {
  readonly server: DualEraHandler
  readonly maxBodyBytes: number
  /** Undefined: chosen per request from the local address (see `HttpOptions.originPolicy`). */
  readonly #policy: OriginPolicy | false | undefined
  /** Hosts every non-loopback local address accepts besides itself: the machine's names, where known. */
  readonly #ownHosts: readonly string[]
  /** The default policy per non-loopback local address, made once (the origin check remembers by policy). */
  readonly #localPolicies = new Map<string, OriginPolicy>()
  readonly #authenticator: HttpAuthenticator | undefined
  readonly #keepAliveMs: number
  /** The keep-alive comments of every open listen stream, on one timer. */
  readonly #keepAlives: KeepAlives
  readonly #maxBacklog: number
  /** Open listen streams (and 2025-era GET streams) per client network. */
  readonly #listens: ListenSlots
  /** What every open listen stream ends through (see ListenExchange). */
  readonly #listenStreams: ListenStreams
  /** 2025-era sessions; undefined when the server serves 2026-07-28 only. */
  readonly #legacy: LegacyHttp | undefined
  /** The default policies plus `extraOrigins`, made once (the origin check remembers by policy). */
  #openExtra: OriginPolicy | undefined
  #loopbackExtra: OriginPolicy | undefined

  /**
   * `ownHosts`: the machine's own names (an adapter that can read them); a connection that arrived on a
   * non-loopback address accepts these and that address by default.
   */
  constructor(
    server: DualEraHandler,
    options: HttpOptions = {},
    ownHosts?: readonly string[],
    /** Origins accepted besides the policy's (an adapter's CORS origins), also under the default policy. */
    readonly extraOrigins?: readonly string[],
  ) {
    this.server = server
    this.#ownHosts = ownHosts ?? LOOPBACK_POLICY.allowedHosts ?? []
    this.#keepAliveMs = options.keepAliveMs ?? 15_000
    this.#keepAlives = new KeepAlives(this.#keepAliveMs)
    this.#maxBacklog = options.maxBacklogBytes ?? DEFAULT_MAX_BACKLOG
    this.#listens = new ListenSlots(options.maxListenStreamsPerAddress ?? 16)
    this.#listenStreams = {
      keepAlives: this.#keepAlives,
      slots: this.#listens,
      fail: (out, error) => this.fail(out, error),
    }
    if (server.legacy && server.sessions)
      this.#legacy = new LegacyHttp(
        server.legacy,
        server.sessions,
        this.#keepAliveMs,
        this.#maxBacklog,
        this.#listens,
      )
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY
    const policy = fixedPolicy(
      options.originPolicy ?? (options.allowedHosts || options.allowedOrigins ? options : undefined),
    )
    this.#policy = policy && extraOrigins ? { ...policy, extraOrigins: [...extraOrigins] } : policy
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
   * The server's Server Card, asked for at `<endpoint>/server-card` (discovery §Hosted Server Card Location), or
   * undefined when it publishes none. No authentication: cards are public. The Host header is checked as on the
   * endpoint (a card names its own URL), the Origin is not: any page may read a card (discovery §CORS).
   */
  serverCard(
    view: Pick<HttpRequestView, 'method' | 'header' | 'localAddress'>,
    endpointUrl: string,
  ): HttpDocument | undefined {
    const card = this.server.serverCard
    if (!card) return undefined
    const hostOnly = {
      header: (name: string) => (name === 'origin' ? undefined : view.header(name)),
      localAddress: view.localAddress,
    }
    const reason = this.#originRefusal(hostOnly)
    if (reason)
      return { status: 403, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `${reason}\n` }
    return card.document(view.method, endpointUrl, view.header('if-none-match'))
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
    const reason = this.#originRefusal(view)
    if (reason) return forbiddenOrigin(reason)
    if (contentLength !== undefined && contentLength > this.maxBodyBytes)
      return payloadTooLarge(this.maxBodyBytes)
    const type = view.header('content-type')
    // Nearly every client sends exactly `application/json`: that one needs no pattern.
    if (type !== undefined && type !== 'application/json' && !JSON_MEDIA_TYPE.test(type.trim()))
      return unsupportedMediaType()
    if (allows(view.header('accept')) === 0) return notAcceptable()
    return undefined
  }

  /**
   * DNS rebinding (basic/transports/streamable-http §Security & Endpoint): a loopback listener only answers
   * loopback names, any other only the machine's own names and addresses, however the handler was mounted.
   * Returns why the request is refused, or undefined.
   */
  originRefusal(view: Pick<HttpRequestView, 'header' | 'localAddress'>): string | undefined {
    return this.#originRefusal(view)
  }

  #originRefusal(view: Pick<HttpRequestView, 'header' | 'localAddress'>): string | undefined {
    const policy = this.#policy ?? this.#defaultPolicy(view.localAddress)
    return policy ? checkOriginAgain(policy, view.header('host'), view.header('origin')) : undefined
  }

  #defaultPolicy(local: string | undefined): OriginPolicy {
    const extra = this.extraOrigins
    if (local === undefined) return extra ? (this.#openExtra ??= { extraOrigins: extra }) : OPEN_POLICY
    if (isLoopbackAddress(local))
      return extra ? (this.#loopbackExtra ??= { ...LOOPBACK_POLICY, extraOrigins: extra }) : LOOPBACK_POLICY
    let policy = this.#localPolicies.get(local)
    if (policy === undefined) {
      policy = {
        allowedHosts: [...new Set([...this.#ownHosts, hostLiteral(local)])],
        ...(extra && { extraOrigins: extra }),
      }
      if (this.#localPolicies.size < MAX_LOCAL_POLICIES) this.#localPolicies.set(local, policy)
    }
    return policy
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

  /** Interval of SSE keep-alive comments, in ms (0: none). */
  get keepAliveMs(): number {
    return this.#keepAliveMs
  }

  /** Open-ended streams per principal: the HTTP+SSE transport's streams count here too. */
  get listens(): ListenSlots {
    return this.#listens
  }

  /** Whether the server serves 2025-era sessions (the HTTP+SSE transport needs them). */
  get servesLegacy(): boolean {
    return this.#legacy !== undefined
  }

  /** The caller's identity (undefined: anonymous), or false after answering with the authenticator's refusal. */
  async authenticateOrRefuse(
    view: HttpRequestView,
    out: HttpResponseSink,
  ): Promise<AuthInfo | undefined | false> {
    const auth = await this.#authenticate(view, out)
    return auth === REFUSED ? false : auth
  }

  /** The caller's identity (undefined: anonymous), or REFUSED after answering with the authenticator's refusal. */
  async #authenticate(
    view: HttpRequestView,
    out: HttpResponseSink,
  ): Promise<AuthInfo | undefined | typeof REFUSED> {
    if (!this.#authenticator) return undefined
    const outcome = await this.#authenticator.authenticate(view)
    if (outcome.ok) return outcome.auth
    out.send(outcome.status, { ...JSON_HEADERS, ...outcome.headers }, outcome.body)
    return REFUSED
  }

  /** GET or DELETE of a 2025-era session (after the Origin check and authentication). */
  async #legacySession(view: HttpRequestView, out: HttpResponseSink): Promise<void> {
    const legacy = this.#legacy as LegacyHttp
    const refusal = this.#originRefusal(view)
    if (refusal) return sendError(out, forbiddenOrigin(refusal))
    const auth = await this.#authenticate(view, out)
    if (auth === REFUSED) return
    await (view.method === 'GET' ? legacy.stream(view, out, auth) : legacy.end(view, out, auth))
  }

  /**
   * Answers a POST whose body has been read (at most maxBodyBytes). Never throws: a failure of its own is
   * answered with 500. Without authentication a request costs no async step of its own, only the server's.
   */
  handle(view: HttpRequestView, body: Uint8Array, out: HttpResponseSink): void {
    try {
      const pending = this.#authenticator
        ? this.#authenticated(view, body, out)
        : this.#answer(view, body, out, undefined)
      pending?.catch((error: unknown) => this.fail(out, error))
    } catch (error) {
      this.fail(out, error)
    }
  }

  /** Authenticates, then answers; a verdict given at once (a token already verified) costs no promise. */
  #authenticated(view: HttpRequestView, body: Uint8Array, out: HttpResponseSink): Promise<void> | void {
    const outcome = (this.#authenticator as HttpAuthenticator).authenticate(view)
    if (isPromiseLike(outcome))
      return Promise.resolve(outcome).then((settled) => this.#afterAuth(view, body, out, settled))
    return this.#afterAuth(view, body, out, outcome)
  }

  #afterAuth(
    view: HttpRequestView,
    body: Uint8Array,
    out: HttpResponseSink,
    outcome: AuthOutcome,
  ): Promise<void> | void {
    if (outcome.ok) return this.#answer(view, body, out, outcome.auth)
    out.send(outcome.status, { ...JSON_HEADERS, ...outcome.headers }, outcome.body)
  }

  /** Parses and answers; a promise while the server works on the request, undefined when answered at once. */
  #answer(
    view: HttpRequestView,
    body: Uint8Array,
    out: HttpResponseSink,
    auth: AuthInfo | undefined,
  ): Promise<void> | void {
    let text: string
    try {
      text = utf8.decode(body)
    } catch {
      return sendError(out, parseError('body is not valid UTF-8'))
    }
    // Checked on the raw text: parsing a deeply nested body is itself the attack.
    const maxDepth = this.server.maxParamsDepth ?? DEFAULT_MAX_DEPTH
    if (nestedDeeperThan(text, maxDepth + 1)) return sendError(out, nestedTooDeep(maxDepth), topLevelId(text))
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return sendError(out, parseError())
    }
    // Batches exist only in 2025-03-26, whose sessions always name themselves (the legacy side decides).
    if (this.#legacy && Array.isArray(parsed) && view.header(HEADER_SESSION_ID) !== undefined)
      return this.#legacy.batch(view, parsed, out, auth)
    const inbound = classify(parsed)
    if (this.#legacy && LegacyHttp.claims(view, inbound)) return this.#legacy.post(view, inbound, out, auth)
    if (inbound.kind === 'invalid') return sendError(out, invalidRequest(inbound.reason), inbound.id)
    if (inbound.kind === 'response') return sendError(out, invalidRequest('clients must not send responses'))
    if (inbound.kind === 'notification') return out.send(202, {})
    const request = inbound.message
    const eventStream = (allows(view.header('accept')) & ALLOWS_EVENT_STREAM) !== 0
    if (request.method === 'subscriptions/listen') {
      this.#listen(view, request, out, auth, eventStream)
      return undefined
    }
    const exchange = new HttpExchange(view, out, auth, eventStream, this.#maxBacklog)
    exchange.checkedDepth = maxDepth
    // The exchange is also the transport check (standard headers against the body). A reply made
    // synchronously is written at once.
    const reply = this.server.answer
      ? this.server.answer(request, exchange, exchange)
      : this.server.handle(request, exchange, exchange)
    if (reply instanceof Promise) return reply.then((settled) => writeReply(exchange, settled, out))
    writeReply(exchange, reply, out)
  }

  /**
   * A `subscriptions/listen` stream: bounded per principal, kept open with SSE comments. It answers its own
   * failures and never rejects, so an open stream holds no rejection handler of the caller's for hours.
   */
  #listen(
    view: HttpRequestView,
    request: JsonRpcRequest,
    out: HttpResponseSink,
    auth: AuthInfo | undefined,
    eventStream: boolean,
  ): void {
    if (!eventStream) return sendError(out, streamNotAcceptable(), request.id)
    // Listen streams stay open indefinitely: one address may not hold an unbounded number of them.
    const slot = this.#listens.take(view.remoteAddress, auth)
    if (typeof slot !== 'string') return sendError(out, slot, request.id)
    const exchange = new ListenExchange(view, out, auth, this.#maxBacklog, this.#listenStreams, slot)
    // The exchange is where the reply goes: an open stream holds no promise or closure of the core's.
    let reply: ReturnType<DualEraHandler['handle']>
    try {
      if (this.server.answerTo) return this.server.answerTo(request, exchange, exchange, exchange)
      reply = this.server.handle(request, exchange, exchange)
    } catch (error) {
      return exchange.fail(error)
    }
    reply.then(
      (settled) => exchange.reply(settled),
      (error: unknown) => exchange.fail(error),
    )
  }
}
