/**
 * What the server's and the client's OpenTelemetry instrumentation share: the option, the loader, and the
 * names and rules of the OpenTelemetry semantic conventions for MCP (semantic-conventions, gen-ai/mcp.md:
 * §Spans, §Metrics). `@opentelemetry/api` is an optional peer dependency: its types are declared by shape
 * (otel-api.ts), and `loadTelemetryApi` imports it when telemetry is switched on, so a server or client
 * without telemetry loads nothing of it and a project without it type-checks.
 */
import type {
  MeterProvider,
  OtelApiModule,
  TextMapGetter,
  TextMapPropagator,
  TextMapSetter,
  TracerProvider,
} from './otel-api.js'

export type { OtelApiModule } from './otel-api.js'

/** `telemetry: true` uses the globally registered providers and propagator; an object may name its own. */
export interface TelemetryOptions {
  /** Default: the global tracer provider (`trace.getTracerProvider()`). */
  readonly tracerProvider?: TracerProvider
  /** Default: the global meter provider (`metrics.getMeterProvider()`). */
  readonly meterProvider?: MeterProvider
  /**
   * Reads and writes `traceparent`/`tracestate`/`baggage` in `params._meta`. Default: the global propagator
   * (`propagation`), which the OpenTelemetry SDKs set to W3C Trace Context and Baggage.
   */
  readonly propagator?: TextMapPropagator
}

export type TelemetryOption = boolean | TelemetryOptions

/**
 * The process-wide default of `defineServer({ telemetry })`, set by the CLI's `--otel` (which starts the
 * OpenTelemetry SDK before it loads the served module): a server that leaves the option unset is then
 * traced; `telemetry: false` keeps it off. A `Symbol.for` key on `globalThis`, so a module that resolves
 * another copy of toolwire than the CLI's sees it too.
 */
const PROCESS_DEFAULT = Symbol.for('toolwire.telemetry.default')

export function setProcessTelemetryDefault(option: TelemetryOption): void {
  ;(globalThis as Record<symbol, unknown>)[PROCESS_DEFAULT] = option
}

export function processTelemetryDefault(): TelemetryOption | undefined {
  const option = (globalThis as Record<symbol, unknown>)[PROCESS_DEFAULT]
  return typeof option === 'boolean' || (typeof option === 'object' && option !== null)
    ? (option as TelemetryOption)
    : undefined
}

/** The instrumentation scope name of spans and metrics. */
export const INSTRUMENTATION_NAME = 'toolwire'

let loading: Promise<OtelApiModule> | undefined

/** Imports `@opentelemetry/api` once; a clear error when the optional peer dependency is missing. */
export function loadTelemetryApi(): Promise<OtelApiModule> {
  loading ??= import('@opentelemetry/api').catch((error: unknown) => {
    loading = undefined
    throw new Error(
      'telemetry needs the optional peer dependency @opentelemetry/api: npm install @opentelemetry/api',
      { cause: error },
    )
  })
  return loading
}

/** Attribute names (gen-ai/mcp.md §Client, §Server; registry: mcp, gen-ai, jsonrpc, rpc, error, network). */
export const ATTR = {
  method: 'mcp.method.name',
  protocolVersion: 'mcp.protocol.version',
  sessionId: 'mcp.session.id',
  resourceUri: 'mcp.resource.uri',
  requestId: 'jsonrpc.request.id',
  toolName: 'gen_ai.tool.name',
  promptName: 'gen_ai.prompt.name',
  operation: 'gen_ai.operation.name',
  errorType: 'error.type',
  statusCode: 'rpc.response.status_code',
  networkTransport: 'network.transport',
  networkProtocol: 'network.protocol.name',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  clientAddress: 'client.address',
  clientPort: 'client.port',
  networkProtocolVersion: 'network.protocol.version',
} as const

/**
 * What a tool or prompt name the server does not define becomes in span names and metric attributes, as
 * the HTTP conventions do for an unknown method (semantic-conventions http/http-spans.md, `_OTHER`): names
 * are chosen by callers, and each distinct one would otherwise be a metric series of its own.
 */
export const OTHER_NAME = '_OTHER'

export const SERVER_DURATION = 'mcp.server.operation.duration'
export const CLIENT_DURATION = 'mcp.client.operation.duration'
/** gen-ai/mcp.md §Metric mcp.server.session.duration: "The duration of the MCP session as observed on the MCP server". */
export const SERVER_SESSION_DURATION = 'mcp.server.session.duration'
export const CLIENT_SESSION_DURATION = 'mcp.client.session.duration'
/** gen-ai/mcp.md §Metrics: "ExplicitBucketBoundaries of [0.01, … 300]" seconds. */
export const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]
/** gen-ai/mcp.md, error.type note: a `CallToolResult` with `isError: true`. */
export const TOOL_ERROR = 'tool_error'

/** The trace context keys carried in `params._meta` (gen-ai/mcp.md §Context propagation). */
export const TRACE_META_KEYS = ['traceparent', 'tracestate', 'baggage'] as const

/** `network.transport`: `pipe` for stdio, `tcp` for HTTP (gen-ai/mcp.md, network.transport note). */
export const networkTransport = (transport: string): string | undefined =>
  transport === 'stdio' ? 'pipe' : transport === 'http' ? 'tcp' : undefined

export interface OperationTarget {
  /** `gen_ai.tool.name` or `gen_ai.prompt.name`, whichever applies. */
  readonly attribute?: string
  readonly name?: string
  readonly uri?: string
}

/**
 * The low-cardinality target of a method: a tool or a prompt by name. A resource URI is recorded as an
 * attribute only; the conventions keep it out of span names by default (gen-ai/mcp.md §Client: "SHOULD NOT
 * include it by default to avoid high cardinality span names").
 */
export function operationTarget(
  method: string,
  params: Record<string, unknown> | undefined,
): OperationTarget {
  const name = params?.name
  if (method === 'tools/call' && typeof name === 'string') return { attribute: ATTR.toolName, name }
  if (method === 'prompts/get' && typeof name === 'string') return { attribute: ATTR.promptName, name }
  const uri = params?.uri
  if (typeof uri === 'string' && method.startsWith('resources/')) return { uri }
  return {}
}

/** `{mcp.method.name} {target}`, or the method alone when there is no low-cardinality target. */
export const spanName = (method: string, target: OperationTarget): string =>
  target.name === undefined ? method : `${method} ${target.name}`

/** The attributes every span and measurement of one operation carries. */
export function operationAttributes(
  method: string,
  target: OperationTarget,
): Record<string, string | number> {
  const attributes: Record<string, string | number> = { [ATTR.method]: method }
  if (target.attribute !== undefined && target.name !== undefined) {
    attributes[target.attribute] = target.name
    // gen_ai.operation.name: "SHOULD be set to execute_tool when the operation describes a tool call".
    if (method === 'tools/call') attributes[ATTR.operation] = 'execute_tool'
  }
  return attributes
}

/** Reads trace context keys out of `_meta` for a propagator. */
export const metaGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => TRACE_META_KEYS.filter((key) => typeof carrier[key] === 'string'),
  get: (carrier, key) => {
    const value = carrier[key]
    return typeof value === 'string' ? value : undefined
  },
}

export const metaSetter: TextMapSetter<Record<string, unknown>> = {
  set: (carrier, key, value) => {
    carrier[key] = value
  },
}
