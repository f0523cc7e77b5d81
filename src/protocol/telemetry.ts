/**
 * Server spans and the `mcp.server.operation.duration` histogram (semantic-conventions, gen-ai/mcp.md §Server,
 * §Metrics). Made only when `defineServer({ telemetry })` is set: the dispatcher then runs each request
 * through `serve`, inside its span's context, so spans a handler makes nest under it. Without the option the
 * dispatcher holds no observer and pays one `undefined` check per request.
 */
import type {
  Attributes,
  Counter,
  Histogram,
  Span,
  SpanOptions,
  TextMapPropagator,
  Tracer,
} from '../wire/otel-api.js'
import { ErrorCode, type McpError } from '../wire/errors.js'
import { isRecord, type JsonRpcRequest } from '../wire/jsonrpc.js'
import { META_PROTOCOL_VERSION } from '../wire/meta.js'
import {
  ATTR,
  DURATION_BUCKETS,
  INSTRUMENTATION_NAME,
  loadTelemetryApi,
  metaGetter,
  networkTransport,
  type OtelApiModule,
  SERVER_DURATION,
  SERVER_SESSION_DURATION,
  type TelemetryOption,
  TOOL_ERROR,
} from '../wire/telemetry.js'
import { isRawJson, type ResultPayload } from './encode.js'
import type { Exchange } from './exchange.js'
import {
  type DefinedName,
  LastOperation,
  operationSpanAttributes,
  type ServerOperation,
  targetName,
} from './telemetry-operation.js'

/**
 * The name an unknown tool or prompt was asked by, on the span only (never a metric) and only for an
 * authenticated caller: anyone else could fill traces with whatever text they like. Named as the HTTP
 * conventions name an unknown method's original (`http.request.method_original`).
 */
export const ATTR_TOOL_NAME_ORIGINAL = 'toolwire.tool.name_original'
export const ATTR_PROMPT_NAME_ORIGINAL = 'toolwire.prompt.name_original'
/** Characters of an unknown name kept on the span. */
export const MAX_ORIGINAL_NAME = 128

/** The guard that refused a request (docs/security.md), the `toolwire.guard` attribute. */
export type RefusalGuard = 'auth' | 'rate_limit' | 'validation' | 'timeout' | 'output'

/** Counted refusals: not in the MCP conventions, so named in toolwire's own namespace. */
export const REFUSALS = 'toolwire.server.refusals'
export const ATTR_GUARD = 'toolwire.guard'

/**
 * Marks a result that a guard made in place of the handler's (the output guard's refusal), for results built
 * where no request context is at hand. A symbol key: never encoded, and spreads keep it.
 */
export const REFUSED = Symbol('toolwire.refused')

export function markRefused<T extends object>(result: T, guard: RefusalGuard): T {
  return Object.assign(result, { [REFUSED]: guard })
}

/** How the dispatcher and the guards tell the observer how a request ended (set before the reply is encoded). */
export interface OperationProbe {
  result(payload: ResultPayload): void
  error(error: McpError): void
  refused(guard: RefusalGuard): void
}

/** What a 2025-era request knows from its session rather than from `_meta`. */
export interface LegacyEra {
  readonly protocolVersion: string
  /** The session's own random id (never the sealed `Mcp-Session-Id` token, which opens the session). */
  readonly sessionId?: string | undefined
}

export interface RequestObserver {
  serve<T>(
    request: JsonRpcRequest,
    exchange: Exchange,
    era: LegacyEra | undefined,
    answer: (probe: OperationProbe) => T | Promise<T>,
  ): T | Promise<T>
}

/**
 * Where a session ends, told by the legacy engine (a 2025-era HTTP session's DELETE) and the stdio
 * transport (a 2025-era connection's end); a `subscriptions/listen` stream is measured by the dispatcher.
 */
export interface SessionObserver {
  /** `startedAt`: epoch milliseconds; `transport`: the exchange's (`http`, `stdio`). */
  sessionEnded(startedAt: number, protocolVersion: string, transport: string, errorType?: string): void
}

/** The method whose stream is the nearest thing 2026-07-28 has to a session (patterns/subscriptions). */
const LISTEN = 'subscriptions/listen'

interface Instruments {
  readonly api: OtelApiModule
  readonly tracer: Tracer
  readonly duration: Histogram
  readonly sessionDuration: Histogram
  readonly refusals: Counter
  readonly propagator: TextMapPropagator
}

/** One request's outcome, filled in by the dispatcher. */
class Outcome implements OperationProbe {
  code: number | undefined
  message: string | undefined
  toolError = false
  /** A throw that escaped the dispatcher (a bug): its class name is the `error.type`. */
  thrown: string | undefined
  guard: RefusalGuard | undefined
  refused(guard: RefusalGuard): void {
    this.guard = guard
  }
  result(payload: ResultPayload): void {
    if (isRawJson(payload)) return
    this.toolError = payload.isError === true
    const guard = (payload as { [REFUSED]?: RefusalGuard })[REFUSED]
    if (guard !== undefined) this.guard = guard
  }
  error(error: McpError): void {
    this.code = error.code
    this.message = error.message
  }
}

export class ServerTelemetry implements RequestObserver, SessionObserver {
  /** Undefined while `@opentelemetry/api` loads; null when it could not be loaded. */
  #instruments: Instruments | null | undefined
  readonly #ready: Promise<void>
  readonly #operations = new LastOperation()
  /** Whether the server defines a tool or prompt name; undefined takes every name as defined. */
  readonly #defined: DefinedName | undefined

  constructor(
    option: Exclude<TelemetryOption, false>,
    onLoadError: (error: unknown) => void,
    defined?: DefinedName,
  ) {
    this.#defined = defined
    const options = option === true ? {} : option
    this.#ready = loadTelemetryApi().then(
      (api) => {
        const tracer = (options.tracerProvider ?? api.trace.getTracerProvider()).getTracer(
          INSTRUMENTATION_NAME,
        )
        const meter = (options.meterProvider ?? api.metrics.getMeterProvider()).getMeter(INSTRUMENTATION_NAME)
        const duration = meter.createHistogram(SERVER_DURATION, {
          unit: 's',
          description:
            'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.',
          advice: { explicitBucketBoundaries: DURATION_BUCKETS },
        })
        const sessionDuration = meter.createHistogram(SERVER_SESSION_DURATION, {
          unit: 's',
          description: 'The duration of the MCP session as observed on the MCP server.',
          advice: { explicitBucketBoundaries: DURATION_BUCKETS },
        })
        const refusals = meter.createCounter(REFUSALS, {
          unit: '{refusal}',
          description: 'Requests a guard refused (auth, rate_limit, validation, timeout, output).',
        })
        this.#instruments = {
          api,
          tracer,
          duration,
          sessionDuration,
          refusals,
          propagator: options.propagator ?? api.propagation,
        }
      },
      (error: unknown) => {
        this.#instruments = null
        onLoadError(error)
      },
    )
  }

  /**
   * `mcp.server.session.duration` (gen-ai/mcp.md §Metrics) with the conventions' attributes: the protocol
   * version, `network.transport`, `network.protocol.name`, and `error.type` only when the session ended
   * with an error.
   */
  sessionEnded(startedAt: number, protocolVersion: string, transport: string, errorType?: string): void {
    const instruments = this.#instruments
    if (!instruments) return
    const attributes: Attributes = { [ATTR.protocolVersion]: protocolVersion }
    const network = networkTransport(transport)
    if (network !== undefined) attributes[ATTR.networkTransport] = network
    if (transport === 'http') attributes[ATTR.networkProtocol] = 'http'
    if (errorType !== undefined) attributes[ATTR.errorType] = errorType
    instruments.sessionDuration.record(Math.max(0, Date.now() - startedAt) / 1000, attributes)
  }

  /** The tracer and propagator, once `@opentelemetry/api` is loaded; null when it could not be. */
  async tracing(): Promise<Pick<Instruments, 'api' | 'tracer' | 'propagator'> | null> {
    await this.#ready
    return this.#instruments ?? null
  }

  /** An HTTP request the authenticator refused: it never reaches the dispatcher, so it has no span. */
  refusedAuth(): void {
    this.#instruments?.refusals.add(1, { [ATTR_GUARD]: 'auth' })
  }

  serve<T>(
    request: JsonRpcRequest,
    exchange: Exchange,
    era: LegacyEra | undefined,
    answer: (probe: OperationProbe) => T | Promise<T>,
  ): T | Promise<T> {
    const instruments = this.#instruments
    // The first requests may arrive while the API is still loading: they wait for it rather than go unseen.
    if (instruments === undefined) return this.#ready.then(() => this.serve(request, exchange, era, answer))
    if (instruments === null) return answer(new Outcome())
    const { api } = instruments
    const started = performance.now()
    const params = request.params
    const meta = isRecord(params?._meta) ? params._meta : undefined
    const version = era?.protocolVersion ?? meta?.[META_PROTOCOL_VERSION]
    const operation = this.#operations.of(
      request.method,
      params,
      typeof version === 'string' ? version : undefined,
      exchange.transport,
      this.#defined,
    )
    const attributes = operationSpanAttributes(operation)
    if (operation.unknown && authenticated(exchange)) {
      const asked = targetName(request.method, params) ?? ''
      attributes[request.method === 'tools/call' ? ATTR_TOOL_NAME_ORIGINAL : ATTR_PROMPT_NAME_ORIGINAL] =
        asked.length > MAX_ORIGINAL_NAME ? asked.slice(0, MAX_ORIGINAL_NAME) : asked
    }
    const uri = params?.uri
    if (typeof uri === 'string' && request.method.startsWith('resources/')) attributes[ATTR.resourceUri] = uri
    const id = request.id
    if (id !== null && id !== undefined) attributes[ATTR.requestId] = typeof id === 'string' ? id : String(id)
    if (era?.sessionId !== undefined) attributes[ATTR.sessionId] = era.sessionId
    if (exchange.remoteAddress !== undefined) {
      attributes[ATTR.clientAddress] = exchange.remoteAddress
      const port = exchange.remotePort
      if (port !== undefined) attributes[ATTR.clientPort] = port
    }
    if (exchange.transport === 'http') {
      const httpVersion = exchange.httpVersion
      if (httpVersion !== undefined) attributes[ATTR.networkProtocolVersion] = httpVersion
    }

    // gen-ai/mcp.md §Context propagation: the context in `params._meta` is the parent; the ambient one (an
    // HTTP server span, say) is linked, since one HTTP request may carry several MCP messages and retries.
    const ambient = api.context.active()
    const parent = meta ? instruments.propagator.extract(ambient, meta, metaGetter) : ambient
    const ambientSpan = api.trace.getSpanContext(ambient)
    const options: SpanOptions = { kind: api.SpanKind.SERVER, attributes }
    // No links array when there is nothing to link (most requests): the SDK copies whatever it is given.
    if (ambientSpan && parent !== ambient && api.trace.getSpanContext(parent) !== ambientSpan)
      options.links = [{ context: ambientSpan }]
    const span = instruments.tracer.startSpan(operation.spanName, options, parent)
    const outcome = new Outcome()
    let answered: T | Promise<T>
    try {
      answered = api.context.with(api.trace.setSpan(parent, span), answer, undefined, outcome)
    } catch (error) {
      outcome.thrown = error instanceof Error ? error.name : 'unknown'
      this.#finish(instruments, span, outcome, false, operation, started)
      throw error
    }
    // A synchronous answer (most tools/call) is finished here: no closure, no promise.
    if (!isPromise(answered)) {
      this.#finish(instruments, span, outcome, answered === null, operation, started)
      return answered
    }
    return answered.then(
      (reply) => {
        this.#finish(instruments, span, outcome, reply === null, operation, started)
        return reply
      },
      (error: unknown) => {
        outcome.thrown = error instanceof Error ? error.name : 'unknown'
        this.#finish(instruments, span, outcome, false, operation, started)
        throw error
      },
    )
  }

  /**
   * Span status and `error.type` per gen-ai/mcp.md §Server: a JSON-RPC error is recorded by its code (also
   * `rpc.response.status_code`) with the error message as the status description; a tool result with
   * `isError: true` is `tool_error`, with no description (its text may hold the tool's data). -32602 (an
   * unknown tool or prompt, arguments that do not fit) is the caller's mistake, not the server's: its code is
   * recorded but the server span's status stays unset, as for a 4xx on an HTTP server span
   * (http/http-spans.md §Status) and INVALID_ARGUMENT on a gRPC one.
   */
  #finish(
    instruments: Instruments,
    span: Span,
    outcome: Outcome,
    cancelled: boolean,
    operation: ServerOperation,
    started: number,
  ): void {
    const { api } = instruments
    // Shared by every successful request of the operation; an error gets its own copy.
    let metricAttributes: Readonly<Attributes> = operation.metricAttributes
    let errorType: string | undefined
    if (outcome.code !== undefined) {
      errorType = String(outcome.code)
      metricAttributes = { ...metricAttributes, [ATTR.statusCode]: errorType }
      span.setAttribute(ATTR.statusCode, errorType)
      if (outcome.code !== ErrorCode.InvalidParams)
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: outcome.message ?? '' })
    } else if (outcome.toolError) {
      errorType = TOOL_ERROR
      span.setStatus({ code: api.SpanStatusCode.ERROR })
    } else if (outcome.thrown !== undefined) {
      errorType = outcome.thrown
      span.setStatus({ code: api.SpanStatusCode.ERROR })
    } else if (cancelled) {
      errorType = 'cancelled'
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: 'cancelled by the client' })
    }
    if (errorType !== undefined) {
      metricAttributes = { ...metricAttributes, [ATTR.errorType]: errorType }
      span.setAttribute(ATTR.errorType, errorType)
    }
    if (outcome.guard !== undefined) {
      span.setAttribute(ATTR_GUARD, outcome.guard)
      const counted: Attributes = { [ATTR_GUARD]: outcome.guard, [ATTR.method]: operation.method }
      const tool = metricAttributes[ATTR.toolName]
      if (tool !== undefined) counted[ATTR.toolName] = tool
      instruments.refusals.add(1, counted)
    }
    span.end()
    const seconds = (performance.now() - started) / 1000
    instruments.duration.record(seconds, metricAttributes)
    // A listen stream lives as long as the client keeps it: its duration is also the session's.
    if (operation.method === LISTEN) {
      const session: Attributes = {}
      for (const key of [ATTR.protocolVersion, ATTR.networkTransport]) {
        const value = metricAttributes[key]
        if (value !== undefined) session[key] = value
      }
      // The client closing its stream is how a listen session ends normally, not an error.
      if (errorType !== undefined && errorType !== 'cancelled') session[ATTR.errorType] = errorType
      if (metricAttributes[ATTR.networkTransport] === 'tcp') session[ATTR.networkProtocol] = 'http'
      instruments.sessionDuration.record(seconds, session)
    }
  }
}

/** A caller with a verified identity (a user or a client with a token), not one known only by its address. */
function authenticated(exchange: Exchange): boolean {
  const principal = exchange.principal
  return principal !== undefined ? principal.kind !== 'anonymous' : exchange.auth !== undefined
}

const isPromise = <T>(value: T | Promise<T>): value is Promise<T> =>
  typeof (value as Promise<T> | null)?.then === 'function'
