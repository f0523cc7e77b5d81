/**
 * Telemetry for the benchmark server, from the environment: `TELEMETRY=on` turns `defineServer({ telemetry })`
 * on with the real OpenTelemetry SDK (the async-hooks context manager, W3C propagators, a tracer provider
 * batching every span to an exporter that drops them, a meter provider whose reader aggregates the histograms
 * and the counters and hands them, once a minute, to an exporter that drops them too), so the
 * row measures what instrumentation costs the server, not what shipping spans costs the network.
 * Unset, the server has no telemetry and loads none of this.
 */
import { context, propagation, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import {
  CompositePropagator,
  ExportResultCode,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
} from '@opentelemetry/core'
import {
  AggregationTemporality,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base'
import type { TelemetryOptions } from 'toolwire'

/** Accepts every batch and keeps nothing. */
const dropping: SpanExporter = {
  export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }),
  shutdown: () => Promise.resolve(),
}

/**
 * Accepts every collection and keeps nothing. Without a reader the SDK's instruments would not aggregate at
 * all, and the row would understate what metrics cost.
 */
const droppingMetrics: PushMetricExporter = {
  export: (_metrics, done) => done({ code: ExportResultCode.SUCCESS }),
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
  selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
}

export function benchTelemetry(env: NodeJS.ProcessEnv): TelemetryOptions | undefined {
  if (env.TELEMETRY !== 'on') return undefined
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  const propagator = new CompositePropagator({
    propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
  })
  propagation.setGlobalPropagator(propagator)
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping)] })
  trace.setGlobalTracerProvider(tracerProvider)
  const meterProvider = new MeterProvider({
    readers: [new PeriodicExportingMetricReader({ exporter: droppingMetrics, exportIntervalMillis: 60_000 })],
  })
  return { tracerProvider, meterProvider, propagator }
}
