/**
 * `--otel [otlp|console]` of `serve`, `demo`, `bridge` and `gateway`: starts the OpenTelemetry Node SDK
 * (`@opentelemetry/sdk-node`, an optional peer dependency imported only when the flag is given) and turns
 * telemetry on for the servers the command then builds. The SDK reads the standard `OTEL_*` variables
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_PROTOCOL`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`,
 * `OTEL_BSP_*`, `OTEL_METRIC_EXPORT_INTERVAL` …); the flag's value only picks the exporter of traces and metrics.
 */
import { Console } from 'node:console'
import type * as NodeSdk from '@opentelemetry/sdk-node'
import { Option } from 'commander'
import { setProcessTelemetryDefault } from '../wire/telemetry.js'
import { UsageError } from './client/target.js'

export const OTEL_EXPORTERS = ['otlp', 'console'] as const
export type OtelExporter = (typeof OTEL_EXPORTERS)[number]

/** The flag, shared by the commands that serve. */
export function otelOption(): Option {
  return new Option(
    '--otel [exporter]',
    'OpenTelemetry traces and metrics: otlp (default; OTEL_EXPORTER_OTLP_* variables) or console (stderr)',
  )
    .choices(OTEL_EXPORTERS)
    .preset('otlp')
}

const MISSING =
  '--otel needs the OpenTelemetry Node SDK, an optional dependency: npm install @opentelemetry/sdk-node @opentelemetry/api'

/**
 * Starts the SDK for `command` (the default `service.name` is `toolwire-<command>`) and returns its shutdown,
 * which flushes what is still buffered: call it before the process exits. Without the flag, call nothing:
 * the CLI then loads no OpenTelemetry module.
 */
export async function startOtel(
  exporter: OtelExporter | undefined,
  command: string,
): Promise<(() => Promise<void>) | undefined> {
  if (exporter === undefined) return undefined
  let sdk: typeof NodeSdk
  try {
    sdk = await import('@opentelemetry/sdk-node')
  } catch (error) {
    throw new UsageError(MISSING, { cause: error })
  }
  const env = process.env
  env.OTEL_SERVICE_NAME ??= `toolwire-${command}`
  // toolwire writes no OpenTelemetry logs: no log exporter waits idle for them.
  env.OTEL_LOGS_EXPORTER ??= 'none'
  if (exporter === 'console') {
    // The flag names the exporter: it wins over the variables.
    env.OTEL_TRACES_EXPORTER = 'console'
    env.OTEL_METRICS_EXPORTER = 'console'
    // The SDK's console exporters print with console.dir; stdout carries the protocol (--stdio) or the one
    // URL line scripts wait for, so that goes to stderr.
    const toStderr = new Console({ stdout: process.stderr, stderr: process.stderr })
    console.dir = toStderr.dir.bind(toStderr)
  }
  const node = new sdk.NodeSDK()
  node.start()
  setProcessTelemetryDefault(true)
  return () => node.shutdown()
}
