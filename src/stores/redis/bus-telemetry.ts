/**
 * Trace context on the Redis change bus (`RedisChangeBus.connect({ telemetry })`): a change is published
 * inside a PRODUCER span, child of whatever was current (the request that changed a tool list, say), and
 * its W3C trace context travels in the message's `_meta`, as MCP carries it in `params._meta`
 * (semantic-conventions, gen-ai/mcp.md §Context propagation). Each instance that receives it delivers it
 * inside a CONSUMER span continuing that trace, so the notifications its listen streams send are part of
 * the request that caused them. Span names and attributes follow the OpenTelemetry messaging conventions
 * (`send <channel>`, `process <channel>`, `messaging.system: redis`).
 */
import type { Attributes, Span, TextMapPropagator, Tracer } from '../../wire/otel-api.js'
import {
  INSTRUMENTATION_NAME,
  loadTelemetryApi,
  metaGetter,
  metaSetter,
  type OtelApiModule,
  type TelemetryOption,
} from '../../wire/telemetry.js'

export class BusTelemetry {
  readonly #api: OtelApiModule
  readonly #tracer: Tracer
  readonly #propagator: TextMapPropagator
  readonly #channel: string

  private constructor(api: OtelApiModule, option: Exclude<TelemetryOption, false>, channel: string) {
    const options = option === true ? {} : option
    this.#api = api
    this.#tracer = (options.tracerProvider ?? api.trace.getTracerProvider()).getTracer(INSTRUMENTATION_NAME)
    this.#propagator = options.propagator ?? api.propagation
    this.#channel = channel
  }

  /** Imports `@opentelemetry/api` (an optional peer dependency) only now that telemetry is asked for. */
  static async load(option: Exclude<TelemetryOption, false>, channel: string): Promise<BusTelemetry> {
    return new BusTelemetry(await loadTelemetryApi(), option, channel)
  }

  #attributes(operation: 'send' | 'process'): Attributes {
    return {
      'messaging.system': 'redis',
      'messaging.destination.name': this.#channel,
      'messaging.operation.type': operation,
      'messaging.operation.name': operation,
    }
  }

  /** Publishes inside a PRODUCER span; `publish` gets the `_meta` carrying its context. */
  async send(publish: (meta: Record<string, unknown>) => Promise<unknown>): Promise<void> {
    const api = this.#api
    const span = this.#tracer.startSpan(`send ${this.#channel}`, {
      kind: api.SpanKind.PRODUCER,
      attributes: this.#attributes('send'),
    })
    const meta: Record<string, unknown> = {}
    this.#propagator.inject(api.trace.setSpan(api.context.active(), span), meta, metaSetter)
    try {
      await publish(meta)
    } catch (error) {
      fail(api, span, error)
      throw error
    } finally {
      span.end()
    }
  }

  /** Runs `deliver` inside a CONSUMER span whose parent is the context in the message's `_meta`, if any. */
  process(meta: unknown, deliver: () => void): void {
    const api = this.#api
    const carrier =
      typeof meta === 'object' && meta !== null && !Array.isArray(meta)
        ? (meta as Record<string, unknown>)
        : {}
    const parent = this.#propagator.extract(api.context.active(), carrier, metaGetter)
    const span = this.#tracer.startSpan(
      `process ${this.#channel}`,
      { kind: api.SpanKind.CONSUMER, attributes: this.#attributes('process') },
      parent,
    )
    try {
      api.context.with(api.trace.setSpan(parent, span), deliver)
    } catch (error) {
      fail(api, span, error)
      throw error
    } finally {
      span.end()
    }
  }
}

function fail(api: OtelApiModule, span: Span, error: unknown): void {
  span.setAttribute('error.type', error instanceof Error ? error.name : 'unknown')
  span.setStatus({ code: api.SpanStatusCode.ERROR })
}
