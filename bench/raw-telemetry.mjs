/**
 * The floor's telemetry (`TELEMETRY=on node bench/raw-server.mjs`): the least any MCP server instrumented per
 * the OpenTelemetry conventions (gen-ai/mcp.md §Server, §Metrics) does per request, hand-written around the
 * raw handler with the same SDK setup as toolwire's bench server (bench/server/telemetry.ts): continue the
 * trace from `params._meta`, one SERVER span with the attributes toolwire's spans carry, the handler inside
 * the span's context, one `mcp.server.operation.duration` measurement. No guards, no caching, nothing else.
 *
 * Its ratio on / off is what the SDK itself costs a server: the best any instrumented server can reach, and
 * the yardstick for toolwire's own on / off ratio.
 */
import { context, SpanKind, trace } from '@opentelemetry/api'
import { benchTelemetry } from './.build/telemetry.js'

const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion'
const TRACE_KEYS = ['traceparent', 'tracestate', 'baggage']
const metaGetter = {
  keys: (carrier) => TRACE_KEYS.filter((key) => typeof carrier[key] === 'string'),
  get: (carrier, key) => (typeof carrier[key] === 'string' ? carrier[key] : undefined),
}

/** Wraps `answer(message)`: `(message, socket) => reply`, each call in its own span and measurement. */
export function instrument(answer) {
  const { tracerProvider, meterProvider, propagator } = benchTelemetry({ TELEMETRY: 'on' })
  const tracer = tracerProvider.getTracer('raw-floor')
  const duration = meterProvider.getMeter('raw-floor').createHistogram('mcp.server.operation.duration', {
    unit: 's',
  })
  return (message, socket) => {
    const started = performance.now()
    const { id, method, params } = message
    const meta = params?._meta ?? {}
    const version = meta[PROTOCOL_VERSION]
    const tool = method === 'tools/call' ? params.name : undefined
    // The bench calls one tool; every value is a string the request or the connection gave.
    const metric = {
      'mcp.method.name': method,
      'gen_ai.tool.name': tool,
      'gen_ai.operation.name': tool === undefined ? undefined : 'execute_tool',
      'mcp.protocol.version': version,
      'network.transport': 'tcp',
    }
    const attributes = {
      'mcp.method.name': method,
      'gen_ai.tool.name': tool,
      'gen_ai.operation.name': metric['gen_ai.operation.name'],
      'mcp.protocol.version': version,
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'jsonrpc.request.id': String(id),
      'client.address': socket.remoteAddress,
    }
    const parent = propagator.extract(context.active(), meta, metaGetter)
    const name = tool === undefined ? method : `${method} ${tool}`
    const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent)
    const reply = context.with(trace.setSpan(parent, span), answer, undefined, message)
    span.end()
    duration.record((performance.now() - started) / 1000, metric)
    return reply
  }
}
