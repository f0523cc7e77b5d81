/**
 * Client spans and the `mcp.client.operation.duration` histogram (semantic-conventions, gen-ai/mcp.md
 * §Client, §Metrics), and trace context injected into every request's `params._meta` (§Context propagation),
 * so the server's span continues the client's trace on any transport and in both eras. Made only when
 * `connect(…, { telemetry })` is set; `@opentelemetry/api` is imported then, never otherwise.
 */
import type { Attributes, Histogram, Link, SpanContext, TextMapPropagator, Tracer } from '../wire/otel-api.js'
import { isRecord, type JsonRpcResponse } from '../wire/jsonrpc.js'
import {
  ATTR,
  CLIENT_DURATION,
  CLIENT_SESSION_DURATION,
  DURATION_BUCKETS,
  INSTRUMENTATION_NAME,
  loadTelemetryApi,
  metaSetter,
  networkTransport,
  operationAttributes,
  operationTarget,
  type OtelApiModule,
  spanName,
  type TelemetryOption,
  TOOL_ERROR,
} from '../wire/telemetry.js'
import { RequestCancelledError, RequestTimeoutError } from './errors.js'
import type { ClientTransport } from './transport.js'

interface Instruments {
  readonly api: OtelApiModule
  readonly tracer: Tracer
  readonly duration: Histogram
  readonly sessionDuration: Histogram
  readonly propagator: TextMapPropagator
}

/** What the request engine hands the span once the message is built: its `_meta` and id. */
export type PrepareMessage = (meta: Record<string, unknown>, id: number) => void

/** Where the server is, as the conventions name it (`server.address`, `server.port`, `network.transport`). */
function peerAttributes(transport: ClientTransport): Attributes {
  const attributes: Attributes = {}
  const network = networkTransport(transport.kind)
  if (network !== undefined) attributes[ATTR.networkTransport] = network
  const url = (transport as { url?: unknown }).url
  if (url instanceof URL) {
    attributes[ATTR.serverAddress] = url.hostname.replace(/^\[|\]$/g, '')
    attributes[ATTR.serverPort] = Number(url.port || (url.protocol === 'https:' ? 443 : 80))
  }
  return attributes
}

/** A low-cardinality `error.type` for a request that got no JSON-RPC answer. */
function thrownType(error: unknown): string {
  if (error instanceof RequestTimeoutError) return 'timeout'
  if (error instanceof RequestCancelledError) return 'cancelled'
  return error instanceof Error ? error.name : 'unknown'
}

export class ClientTelemetry {
  /** Undefined while `@opentelemetry/api` loads; null when it could not be loaded. */
  #instruments: Instruments | null | undefined
  readonly #ready: Promise<Instruments | null>
  readonly #peer: Attributes

  constructor(
    option: Exclude<TelemetryOption, false>,
    transport: ClientTransport,
    warn: (message: string) => void,
  ) {
    const options = option === true ? {} : option
    this.#peer = peerAttributes(transport)
    this.#ready = loadTelemetryApi().then(
      (api) => {
        const tracer = (options.tracerProvider ?? api.trace.getTracerProvider()).getTracer(
          INSTRUMENTATION_NAME,
        )
        const meter = (options.meterProvider ?? api.metrics.getMeterProvider()).getMeter(INSTRUMENTATION_NAME)
        const duration = meter.createHistogram(CLIENT_DURATION, {
          unit: 's',
          description:
            'The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.',
          advice: { explicitBucketBoundaries: DURATION_BUCKETS },
        })
        const sessionDuration = meter.createHistogram(CLIENT_SESSION_DURATION, {
          unit: 's',
          description: 'The duration of the MCP session as observed on the MCP client.',
          advice: { explicitBucketBoundaries: DURATION_BUCKETS },
        })
        const instruments = {
          api,
          tracer,
          duration,
          sessionDuration,
          propagator: options.propagator ?? api.propagation,
        }
        this.#instruments = instruments
        return instruments
      },
      (error: unknown) => {
        // Like the server: requests go on untraced, and the application hears why once.
        this.#instruments = null
        warn(`telemetry is off: ${error instanceof Error ? error.message : String(error)}`)
        return null
      },
    )
  }

  /**
   * `mcp.client.session.duration` (gen-ai/mcp.md §Metrics): a 2025-era session, from the `initialize`
   * answer to `close()`, with the protocol version and where the server is.
   */
  sessionEnded(startedAt: number, protocolVersion: string): void {
    const instruments = this.#instruments
    if (!instruments) return
    const attributes: Attributes = { [ATTR.protocolVersion]: protocolVersion, ...this.#peer }
    if (attributes[ATTR.networkTransport] === 'tcp') attributes[ATTR.networkProtocol] = 'http'
    instruments.sessionDuration.record(Math.max(0, Date.now() - startedAt) / 1000, attributes)
  }

  /**
   * Runs one exchange inside a CLIENT span. `exchange` builds the message and calls `prepare` with its
   * `_meta` (trace context is injected there) and id, then sends it.
   */
  async observe(
    method: string,
    params: Record<string, unknown>,
    version: string,
    exchange: (prepare: PrepareMessage) => Promise<JsonRpcResponse>,
    call?: { lastSpan: unknown },
  ): Promise<JsonRpcResponse> {
    const instruments = this.#instruments === undefined ? await this.#ready : this.#instruments
    if (instruments === null) return exchange(() => undefined)
    const { api, tracer } = instruments
    const started = performance.now()
    const target = operationTarget(method, params)
    const metricAttributes: Attributes = {
      ...operationAttributes(method, target),
      [ATTR.protocolVersion]: version,
      ...this.#peer,
    }
    const attributes: Attributes = { ...metricAttributes }
    if (target.uri !== undefined) attributes[ATTR.resourceUri] = target.uri
    // gen-ai/mcp.md §Context propagation: the rounds of one call (an input_required retry) are linked.
    const previous = call?.lastSpan as SpanContext | undefined
    const links: Link[] = previous ? [{ context: previous }] : []
    const span = tracer.startSpan(spanName(method, target), { kind: api.SpanKind.CLIENT, attributes, links })
    if (call) call.lastSpan = span.spanContext()
    const spanContext = api.trace.setSpan(api.context.active(), span)
    const prepare: PrepareMessage = (meta, id) => {
      span.setAttribute(ATTR.requestId, String(id))
      instruments.propagator.inject(spanContext, meta, metaSetter)
    }
    let errorType: string | undefined
    try {
      const response = await api.context.with(spanContext, exchange, undefined, prepare)
      if ('error' in response) {
        errorType = String(response.error.code)
        metricAttributes[ATTR.statusCode] = errorType
        span.setAttribute(ATTR.statusCode, errorType)
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: response.error.message })
      } else if (method === 'tools/call' && isRecord(response.result) && response.result.isError === true) {
        errorType = TOOL_ERROR
        span.setStatus({ code: api.SpanStatusCode.ERROR })
      }
      return response
    } catch (error) {
      errorType = thrownType(error)
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: errorType })
      throw error
    } finally {
      if (errorType !== undefined) {
        metricAttributes[ATTR.errorType] = errorType
        span.setAttribute(ATTR.errorType, errorType)
      }
      span.end()
      instruments.duration.record((performance.now() - started) / 1000, metricAttributes)
    }
  }
}
