/**
 * The part of the OpenTelemetry API (`@opentelemetry/api` 1.x) toolwire uses, declared by shape.
 * `@opentelemetry/api` is an optional peer dependency: if a published type named it, a project without it
 * would fail to type-check toolwire's own declarations ("Cannot find module '@opentelemetry/api'") even when
 * it never switches telemetry on. So every OpenTelemetry type in src/ comes from here (eslint refuses a type
 * import of the package), and the real module and providers are checked against these shapes where they
 * meet them: the `import()` in wire/telemetry.ts and the tests that pass SDK providers.
 */

export type AttributeValue =
  | string
  | number
  | boolean
  | Array<null | undefined | string>
  | Array<null | undefined | number>
  | Array<null | undefined | boolean>

export interface Attributes {
  [key: string]: AttributeValue | undefined
}

/** An immutable context (`ROOT_CONTEXT`, `context.active()`), holding the active span among other values. */
export interface Context {
  getValue(key: symbol): unknown
  setValue(key: symbol, value: unknown): Context
  deleteValue(key: symbol): Context
}

export interface SpanContext {
  traceId: string
  spanId: string
  traceFlags: number
  isRemote?: boolean
}

export interface Link {
  context: SpanContext
  attributes?: Attributes
}

/** `code` is a `SpanStatusCode`. */
export interface SpanStatus {
  code: number
  message?: string
}

export interface Span {
  spanContext(): SpanContext
  setAttribute(key: string, value: AttributeValue): this
  setStatus(status: SpanStatus): this
  end(): void
}

/** `kind` is a `SpanKind`. */
export interface SpanOptions {
  kind?: number
  attributes?: Attributes
  links?: Link[]
}

export interface Tracer {
  startSpan(name: string, options?: SpanOptions, context?: Context): Span
}

export interface TracerProvider {
  getTracer(name: string, version?: string): Tracer
}

export interface Histogram {
  record(value: number, attributes?: Attributes): void
}

export interface Counter {
  add(value: number, attributes?: Attributes): void
}

export interface MetricOptions {
  description?: string
  unit?: string
  advice?: { explicitBucketBoundaries?: number[] }
}

export interface Meter {
  createHistogram(name: string, options?: MetricOptions): Histogram
  createCounter(name: string, options?: MetricOptions): Counter
}

export interface MeterProvider {
  getMeter(name: string, version?: string): Meter
}

export interface TextMapGetter<Carrier> {
  keys(carrier: Carrier): string[]
  get(carrier: Carrier, key: string): undefined | string | string[]
}

export interface TextMapSetter<Carrier> {
  set(carrier: Carrier, key: string, value: string): void
}

/** Reads and writes trace context (W3C `traceparent`, `tracestate`, `baggage`) in a carrier. */
export interface TextMapPropagator {
  inject<Carrier>(context: Context, carrier: Carrier, setter: TextMapSetter<Carrier>): void
  extract<Carrier>(context: Context, carrier: Carrier, getter: TextMapGetter<Carrier>): Context
  fields(): string[]
}

/** The module `import('@opentelemetry/api')` gives: the members toolwire calls. */
export interface OtelApiModule {
  readonly ROOT_CONTEXT: Context
  readonly SpanKind: {
    readonly INTERNAL: number
    readonly SERVER: number
    readonly CLIENT: number
    readonly PRODUCER: number
    readonly CONSUMER: number
  }
  readonly SpanStatusCode: { readonly ERROR: number }
  readonly trace: {
    getTracerProvider(): TracerProvider
    setSpan(context: Context, span: Span): Context
    getSpanContext(context: Context): SpanContext | undefined
  }
  readonly metrics: { getMeterProvider(): MeterProvider }
  readonly context: {
    active(): Context
    with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
      context: Context,
      fn: F,
      thisArg?: ThisParameterType<F>,
      ...args: A
    ): ReturnType<F>
  }
  readonly propagation: TextMapPropagator
}
