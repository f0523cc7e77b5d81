/**
 * Method dispatch for one request: `_meta` check, transport checks, version check, method lookup,
 * middleware and handler, then encoding. Built once per server; holds nothing per request.
 */
import { internalError, isAnswerError, McpError, methodNotFound, unsupportedVersion } from '../wire/errors.js'
import { isRecord, type JsonRpcRequest, type RequestId } from '../wire/jsonrpc.js'
import { META_SERVER_INFO, SUPPORTED_VERSIONS } from '../wire/meta.js'
import type { Implementation, RequestMeta } from '../wire/types.js'
import { RequestContext } from './context.js'
import { CLEANED, encodeError, encodeResult, isRawJson, type ResultPayload } from './encode.js'
import { type Exchange, isAborted } from './exchange.js'
import { type AroundSteps, composeAround, type MethodHandler, type Middleware } from './middleware.js'
import { LaterResult, type LaterReceiver } from './later-result.js'
import { InputRequired } from './mrtr/inputs.js'
import type { RequestStateCodec } from './mrtr/state.js'
import { parseRequestMeta } from './request-meta.js'
import type { OperationProbe, RequestObserver } from './telemetry.js'

/** @internal Reached through a public type, but not exported from the package entries: it may change in any release. */
export interface MethodSpec {
  readonly handler: MethodHandler
  /** The param mirrored into the HTTP `Mcp-Name` header, for methods that have one. */
  readonly nameParam?: 'name' | 'uri' | 'taskId'
}

/** Where toolwire reports what only operators should see (stack traces, internal failures). */
export interface ServerLogger {
  error(message: string, details?: Record<string, unknown>): void
  warn(message: string, details?: Record<string, unknown>): void
}

/** Default logger: stderr, which is also the only place a stdio server may write logs. */
/* eslint-disable no-console */
export const consoleLogger: ServerLogger = {
  error: (message, details) => console.error(`[toolwire] ${message}`, details ?? ''),
  warn: (message, details) => console.error(`[toolwire] ${message}`, details ?? ''),
}
/* eslint-enable no-console */

/**
 * A transport's own checks, run after `_meta` is known and before the version check (the spec leaves the
 * order open; streamable-http §Server Validation lists the checks, and header mismatches are reported before
 * an unsupported version). An object rather than a function, so a transport's per-request exchange can be
 * its own check and no closure is made per request.
 */
export interface TransportCheck {
  checkRequest(request: JsonRpcRequest, meta: RequestMeta, spec: MethodSpec | undefined): void
}

/** @internal Reached through a public type, but not exported from the package entries: it may change in any release. */
export interface Reply {
  readonly status: number
  readonly body: string
  /** Extra HTTP headers an error asked for (`WWW-Authenticate`, `Retry-After`). */
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * @internal Reached through a public type, but not exported from the package entries: it may change in any
 * release.
 *
 * Where a reply made later goes, for a transport that would rather not hold a promise per request: a
 * long-lived request (`subscriptions/listen`) then costs its transport one object, not a chain of promises,
 * reactions and closures for as long as it is open.
 */
export interface ReplyTarget {
  /** The reply (null: the request was cancelled, nothing may be sent). */
  reply(reply: Reply | null): void
  /** Making the reply failed (the transport answers with its own internal error). */
  fail(error: unknown): void
}

export interface DispatcherOptions {
  readonly methods: ReadonlyMap<string, MethodSpec>
  readonly middleware: readonly Middleware[]
  /** Synchronous steps outside the middleware (see `AroundSteps`). */
  readonly around?: AroundSteps | undefined
  readonly supportedVersions: readonly string[]
  readonly serverInfo: Implementation | undefined
  readonly logger: ServerLogger
  /** Seals and opens `requestState` for multi-round-trip requests. */
  readonly requestState?: RequestStateCodec
  /**
   * Rewrites string values of every result and error before it is encoded (secret redaction). Works on the
   * structure, so numbers, keys and JSON syntax are never touched. Pre-serialized results (list pages,
   * discovery, built from the server's own definitions) are left as they are.
   */
  readonly redact?: (value: unknown) => unknown
  /** Spans and metrics per request (`defineServer({ telemetry })`); absent, requests pay nothing for it. */
  readonly telemetry?: RequestObserver | undefined
}

/**
 * A 2025-era client opening with `initialize` on a server that serves only the current revision: name the
 * versions we speak and what to do, since a legacy client may only show this message
 * (basic/versioning §Backward Compatibility with Initialization-Based Versions).
 */
function legacyInitialize(params: Record<string, unknown>): McpError {
  const requested = typeof params.protocolVersion === 'string' ? params.protocolVersion : 'unknown'
  const error = unsupportedVersion(requested, SUPPORTED_VERSIONS)
  return new McpError(
    error.code,
    `Unsupported protocol version ${requested}: this server speaks only ${SUPPORTED_VERSIONS.join(', ')}; ` +
      'upgrade the client, or turn on its automatic version negotiation',
    error.data,
    error.status,
  )
}

/** Methods of the current revision that 2025-era sessions do not have. */
const LEGACY_HIDDEN: ReadonlySet<string> = new Set(['server/discover', 'subscriptions/listen'])

const isThenable = <T>(value: unknown): value is PromiseLike<T> =>
  typeof (value as PromiseLike<unknown> | null)?.then === 'function'

/** What a method name leads to: its spec (for the transport check) and its composed handler. */
interface Route {
  readonly spec: MethodSpec
  readonly handler: MethodHandler
}

/** `#answer`'s word that the reply will reach its target later. */
const PENDING: unique symbol = Symbol('pending')

let correlationCounter = 0
const correlationId = (): string =>
  `${Date.now().toString(36)}-${(++correlationCounter).toString(36)}-${Math.random().toString(36).slice(2, 8)}`

export class Dispatcher {
  /** Each method's spec with its handler composed in its middleware: one lookup for both per request. */
  readonly #routes: ReadonlyMap<string, Route>
  readonly #supported: ReadonlySet<string>
  readonly #supportedList: readonly string[]
  readonly #serverInfo: Implementation | undefined
  /** `_meta` holding only the server info, as JSON text. */
  readonly #serverInfoMetaJson: string
  readonly #logger: ServerLogger
  readonly #stateCodec: RequestStateCodec | undefined
  readonly #redact: ((value: unknown) => unknown) | undefined
  readonly #around: AroundSteps | undefined
  readonly #middleware: readonly Middleware[]
  readonly #telemetry: RequestObserver | undefined
  /** Told the result of a handler that answers later without a promise (see LaterResult). */
  readonly #later: LaterReceiver<RequestContext, ReplyTarget> = {
    settled: (ctx, target, result) => this.#deliver(target, ctx, result, false),
  }

  constructor(options: DispatcherOptions) {
    this.#telemetry = options.telemetry
    this.#around = options.around
    this.#middleware = options.middleware
    this.#stateCodec = options.requestState
    this.#redact = options.redact
    this.#supported = new Set(options.supportedVersions)
    this.#supportedList = options.supportedVersions
    this.#serverInfo = options.serverInfo
    this.#serverInfoMetaJson = JSON.stringify({ [META_SERVER_INFO]: options.serverInfo })
    this.#logger = options.logger
    const routes = new Map<string, Route>()
    for (const [method, spec] of options.methods)
      routes.set(method, {
        spec,
        handler: composeAround(method, options.around, options.middleware, spec.handler),
      })
    this.#routes = routes
  }

  methodSpec(method: string): MethodSpec | undefined {
    return this.#routes.get(method)?.spec
  }

  /** Handles one request. Resolves to null when the request was cancelled (nothing may be sent). */
  handle(request: JsonRpcRequest, exchange: Exchange, check?: TransportCheck): Promise<Reply | null> {
    try {
      return Promise.resolve(this.answer(request, exchange, check))
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }

  /**
   * `handle`, but a request whose handler answered synchronously gets its reply at once rather than a
   * promise, so a transport can write it in the same tick (no promise, no microtask turn).
   */
  answer(
    request: JsonRpcRequest,
    exchange: Exchange,
    check?: TransportCheck,
  ): Reply | null | Promise<Reply | null> {
    const telemetry = this.#telemetry
    // Without a target, `#answer` never answers PENDING.
    if (telemetry === undefined)
      return this.#answer(request, exchange, check, undefined, undefined) as
        Reply | null | Promise<Reply | null>
    return telemetry.serve(
      request,
      exchange,
      undefined,
      (probe) =>
        this.#answer(request, exchange, check, probe, undefined) as Reply | null | Promise<Reply | null>,
    )
  }

  /**
   * `answer`, with the reply handed to `target` (at once when the handler answered synchronously). A handler
   * that answers with a `LaterResult` costs the open request no promise at all; any other promise gets the
   * two reactions that answer it.
   */
  answerTo(
    request: JsonRpcRequest,
    exchange: Exchange,
    check: TransportCheck | undefined,
    target: ReplyTarget,
  ): void {
    let reply: Reply | null | Promise<Reply | null> | typeof PENDING
    try {
      reply =
        this.#telemetry === undefined
          ? this.#answer(request, exchange, check, undefined, target)
          : this.answer(request, exchange, check)
    } catch (error) {
      return target.fail(error)
    }
    if (reply === PENDING) return
    if (!isThenable<Reply | null>(reply)) return target.reply(reply)
    reply.then(
      (settled) => target.reply(settled),
      (error: unknown) => target.fail(error),
    )
  }

  /** Answers `request`; a target given gets a reply made later, and PENDING is returned instead of a promise. */
  #answer(
    request: JsonRpcRequest,
    exchange: Exchange,
    check: TransportCheck | undefined,
    probe: OperationProbe | undefined,
    target: ReplyTarget | undefined,
  ): Reply | null | Promise<Reply | null> | typeof PENDING {
    let ctx: RequestContext | undefined
    try {
      const params = request.params ?? {}
      if (request.method === 'initialize' && !isRecord(params._meta)) throw legacyInitialize(params)
      const meta = parseRequestMeta(params)
      const route = this.#routes.get(request.method)
      check?.checkRequest(request, meta, route?.spec)
      if (!this.#supported.has(meta.protocolVersion)) {
        throw unsupportedVersion(meta.protocolVersion, this.#supportedList)
      }
      if (!route) throw methodNotFound(request.method)
      const handler = route.handler
      if (isAborted(exchange)) return null // cancelled before it started: do no work at all
      ctx = new RequestContext(request.id, request.method, params, meta, exchange, this.#stateCodec)
      if (probe) ctx.probe = probe
      const result = handler(ctx)
      if (!isThenable<ResultPayload>(result)) return this.#answered(ctx, result)
      // The reactions hold the context alone (it has the id, method, exchange and probe): a request that
      // stays open does not keep the parsed message as well.
      const running = ctx
      if (target !== undefined && result instanceof LaterResult) {
        result.deliverTo(this.#later, running, target)
        return PENDING
      }
      const pending = Promise.resolve(result)
      if (target === undefined)
        return pending.then(
          (settled) => this.#answered(running, settled),
          (thrown: unknown) => this.#finishedWith(running, thrown),
        )
      void pending.then(
        (settled) => this.#deliver(target, running, settled, false),
        (thrown: unknown) => this.#deliver(target, running, thrown, true),
      )
      return PENDING
    } catch (thrown) {
      if (ctx) return this.#finishedWith(ctx, thrown)
      return this.#failed(request.id, request.method, exchange, thrown, probe)
    }
  }

  /** A reply made later, handed to its target; never throws, so the reaction that calls it cannot reject. */
  #deliver(target: ReplyTarget, ctx: RequestContext, outcome: unknown, thrown: boolean): void {
    let reply: Reply | null
    try {
      reply = thrown ? this.#finishedWith(ctx, outcome) : this.#answered(ctx, outcome as ResultPayload)
    } catch (error) {
      return target.fail(error)
    }
    target.reply(reply)
  }

  #answered(ctx: RequestContext, result: ResultPayload): Reply | null {
    try {
      ctx.finish()
      if (isAborted(ctx.exchange)) return null
      ctx.probe?.result(result)
      return { status: 200, body: this.#encode(ctx.id, result) }
    } catch (thrown) {
      return this.#finishedWith(ctx, thrown)
    }
  }

  #finishedWith(ctx: RequestContext, thrown: unknown): Reply | null {
    ctx.finish()
    return this.#failed(ctx.id, ctx.method, ctx.exchange, thrown, ctx.probe)
  }

  #failed(
    id: RequestId,
    method: string,
    exchange: Exchange,
    thrown: unknown,
    probe: OperationProbe | undefined,
  ): Reply | null {
    if (isAborted(exchange)) return null
    if (thrown instanceof InputRequired) {
      probe?.result(thrown.result)
      return { status: 200, body: this.#encode(id, thrown.result) }
    }
    const error = this.#toProtocolError(thrown, method)
    probe?.error(error)
    const body = encodeError(id, error, this.#redact)
    return error.headers
      ? { status: error.status, body, headers: error.headers }
      : { status: error.status, body }
  }

  /**
   * A request of a legacy (2025-era) session: its version and client capabilities come from the session,
   * not from `_meta`, and `shape` turns the result into that revision's shape. Kept apart from `handle`, so
   * the current revision's path carries no legacy branch. `own` answers a method only those revisions have
   * (`initialize`, `ping` …): it runs inside the same middleware as every other method, so it counts against
   * the caller's request limit too.
   */
  handleLegacy(
    request: JsonRpcRequest,
    exchange: Exchange,
    meta: RequestMeta,
    shape: (result: Record<string, unknown>) => Record<string, unknown>,
    own?: MethodHandler,
    sessionId?: string,
  ): Promise<Reply | null> {
    const telemetry = this.#telemetry
    if (telemetry === undefined) return this.#handleLegacy(request, exchange, meta, shape, own, undefined)
    const era = { protocolVersion: meta.protocolVersion, sessionId }
    return Promise.resolve(
      telemetry.serve(request, exchange, era, (probe) =>
        this.#handleLegacy(request, exchange, meta, shape, own, probe),
      ),
    )
  }

  async #handleLegacy(
    request: JsonRpcRequest,
    exchange: Exchange,
    meta: RequestMeta,
    shape: (result: Record<string, unknown>) => Record<string, unknown>,
    own: MethodHandler | undefined,
    probe: OperationProbe | undefined,
  ): Promise<Reply | null> {
    let ctx: RequestContext | undefined
    try {
      const handler = own
        ? composeAround(request.method, this.#around, this.#middleware, own)
        : this.#routes.get(request.method)?.handler
      if (!handler || LEGACY_HIDDEN.has(request.method)) throw methodNotFound(request.method)
      if (isAborted(exchange)) return null
      ctx = new RequestContext(
        request.id,
        request.method,
        request.params ?? {},
        meta,
        exchange,
        this.#stateCodec,
      )
      if (probe) ctx.probe = probe
      const result = await handler(ctx)
      ctx.finish()
      if (isAborted(exchange)) return null
      probe?.result(result)
      const plain = isRawJson(result)
        ? (JSON.parse(encodeResult(0, result)) as { result: Record<string, unknown> }).result
        : result
      const clean =
        this.#redact && !(CLEANED in plain) ? (this.#redact(plain) as Record<string, unknown>) : plain
      return { status: 200, body: encodeResult(request.id, shape(clean)) }
    } catch (thrown) {
      ctx?.finish()
      if (isAborted(exchange)) return null
      const error =
        thrown instanceof InputRequired
          ? internalError('This request needs a client of protocol revision 2026-07-28')
          : this.#toProtocolError(thrown, request.method)
      probe?.error(error)
      // 2025-era transports carry JSON-RPC errors with 200; only errors with their own headers keep a status.
      const body = encodeError(request.id, error, this.#redact)
      return error.headers ? { status: error.status, body, headers: error.headers } : { status: 200, body }
    }
  }

  /** The response text of a result, with `_meta.serverInfo` added (basic/index §_meta) and secrets redacted. */
  #encode(id: RequestId, payload: ResultPayload): string {
    if (isRawJson(payload)) return encodeResult(id, payload)
    const result =
      this.#redact && !(CLEANED in payload) ? (this.#redact(payload) as Record<string, unknown>) : payload
    if (!this.#serverInfo) return encodeResult(id, result)
    const meta = result._meta as Record<string, unknown> | undefined
    // A result without `_meta` (nearly all) gets the server info as text serialized once, not per call.
    if (meta === undefined) return encodeResult(id, result, this.#serverInfoMetaJson)
    if (!(META_SERVER_INFO in meta)) meta[META_SERVER_INFO] = this.#serverInfo
    return encodeResult(id, result)
  }

  #toProtocolError(thrown: unknown, method: string): McpError {
    if (isAnswerError(thrown)) return thrown
    const ref = correlationId()
    this.#logger.error(`internal error in ${method} (ref ${ref})`, {
      error: thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown),
    })
    return internalError(`Internal error (ref ${ref})`, { correlationId: ref })
  }

  /** Logs an internal failure and returns the reference the caller sees. */
  reportInternal(what: string, thrown: unknown): string {
    const ref = correlationId()
    this.#logger.error(`${what} (ref ${ref})`, {
      error: thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown),
    })
    return ref
  }
}
