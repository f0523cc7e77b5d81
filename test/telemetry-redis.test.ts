/**
 * Trace context on the Redis change bus, with a real redis-server and the real SDK: a change a tool call
 * publishes on one instance reaches another instance inside a span of the same trace (PRODUCER under the
 * server span, CONSUMER under the PRODUCER), and a message without context still arrives.
 */
import { context, type SpanContext, SpanKind, trace } from '@opentelemetry/api'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect } from '../src/client/index.js'
import { defineServer, defineTool } from '../src/index.js'
import { RedisChangeBus } from '../src/stores/redis/index.js'
import { serveNode, type RunningServer } from '../src/transports/http/node.js'
import { registerOtelGlobals } from './fixtures/telemetry-server.js'
import { redisAvailable, requireRedis, type RedisProcess, startRedis } from './helpers/redis.js'
import { until } from './helpers/wait.js'

const run = redisAvailable || requireRedis
if (!run) console.warn('redis-server not found: Redis tests skipped (CI installs it)')

const CHANNEL = 'test:otel-changes'

describe.runIf(run)('RedisChangeBus with telemetry', () => {
  const exporter = new InMemorySpanExporter()
  let redis: RedisProcess
  let running: RunningServer
  let publishing: RedisChangeBus
  let receiving: RedisChangeBus
  /** What the other instance's subscriber saw: the event, and the span context current at delivery. */
  const received: { type: string; uri?: string; active: SpanContext | undefined }[] = []
  let wake: (() => void) | undefined

  beforeAll(async () => {
    registerOtelGlobals()
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    )
    redis = await startRedis()
    publishing = await RedisChangeBus.connect({ url: redis.url, channel: CHANNEL, telemetry: true })
    receiving = await RedisChangeBus.connect({ url: redis.url, channel: CHANNEL, telemetry: true })
    receiving.subscribe((event) => {
      received.push({
        type: event.type,
        ...('uri' in event && { uri: event.uri }),
        active: trace.getActiveSpan()?.spanContext(),
      })
      wake?.()
    })
    const server = defineServer({
      name: 'instance-a',
      version: '1.0.0',
      telemetry: true,
      changes: publishing,
      resources: [],
      tools: [
        defineTool({
          name: 'touch',
          description: 'Marks a resource updated (published on the bus)',
          handler: () => {
            server.resourceUpdated('docs://touched')
            return 'touched'
          },
        }),
      ],
    })
    running = await serveNode(server, { host: '127.0.0.1', port: 0 })
  })
  afterAll(async () => {
    await running?.close()
    await publishing?.close()
    await receiving?.close()
    await redis?.stop()
  })

  /** Waits (generous deadline) for the other instance to receive an update of `uri`. */
  async function receivedUpdate(uri: string) {
    const deadline = Date.now() + 20_000
    for (;;) {
      const found = received.find((event) => event.uri === uri)
      if (found) return found
      if (Date.now() > deadline) throw new Error(`${uri} never arrived`)
      await new Promise<void>((resolve) => {
        wake = resolve
        setTimeout(resolve, 1_000).unref() // a re-check, not an assertion deadline
      })
    }
  }

  it("a change a tool call publishes arrives on another instance inside the call's trace", async () => {
    const client = connect({ url: running.url }, { telemetry: true })
    const app = trace.getTracer('application').startSpan('application work')
    await context.with(trace.setSpan(context.active(), app), () => client.callTool('touch'))
    app.end()
    await client.close()
    const update = await receivedUpdate('docs://touched')
    const traceId = app.spanContext().traceId
    expect(update.active?.traceId).toBe(traceId)

    const inTrace = (): ReadableSpan[] =>
      exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId)
    // The publishing instance gets its own copy through its subscription too, in its own time: wait for
    // both deliveries' spans, not only the one the other instance's subscriber saw.
    await until(
      () => inTrace().filter((span) => span.kind === SpanKind.CONSUMER).length >= 2,
      'both instances delivered the change',
    )
    const spans = inTrace()
    const one = (name: string, kind: SpanKind): ReadableSpan => {
      const found = spans.filter((span) => span.name === name && span.kind === kind)
      expect(found, name).toHaveLength(1)
      return found[0]!
    }
    const serverSpan = one('tools/call touch', SpanKind.SERVER)
    const producer = one(`send ${CHANNEL}`, SpanKind.PRODUCER)
    // Every instance on the channel delivers it, the publishing one too: one CONSUMER span each.
    const consumers = spans.filter((span) => span.kind === SpanKind.CONSUMER)
    expect(consumers.map((span) => span.name)).toEqual([`process ${CHANNEL}`, `process ${CHANNEL}`])
    expect(producer.parentSpanContext?.spanId).toBe(serverSpan.spanContext().spanId)
    for (const span of consumers) {
      expect(span.parentSpanContext?.spanId).toBe(producer.spanContext().spanId)
      expect(span.parentSpanContext?.isRemote).toBe(true)
    }
    // The other instance's subscriber ran inside its CONSUMER span.
    const consumer = consumers.find((span) => span.spanContext().spanId === update.active?.spanId)
    expect(consumer).toBeDefined()
    expect(consumer!.attributes).toMatchObject({
      'messaging.system': 'redis',
      'messaging.destination.name': CHANNEL,
      'messaging.operation.type': 'process',
    })
  })

  it('the message carries the context in _meta; one without it (an instance without telemetry) still arrives', async () => {
    const raw = new Redis(redis.url)
    const seen: string[] = []
    const watcher = raw.duplicate()
    await watcher.subscribe(CHANNEL)
    watcher.on('message', (_channel: string, message: string) => seen.push(message))
    const app = trace.getTracer('application').startSpan('publisher')
    await context.with(trace.setSpan(context.active(), app), () =>
      publishing.publish({ type: 'resources/updated', uri: 'docs://direct' }),
    )
    app.end()
    await receivedUpdate('docs://direct')
    await raw.publish(CHANNEL, JSON.stringify({ type: 'resources/updated', uri: 'docs://plain' }))
    const plain = await receivedUpdate('docs://plain')
    // No context in the message: the CONSUMER span starts a trace of its own.
    expect(plain.active?.traceId).toBeDefined()
    expect(plain.active?.traceId).not.toBe(app.spanContext().traceId)
    const direct = seen.map((message) => JSON.parse(message) as Record<string, unknown>)
    const withMeta = direct.find((message) => message.uri === 'docs://direct')
    expect((withMeta?._meta as { traceparent?: string }).traceparent).toMatch(
      new RegExp(`^00-${app.spanContext().traceId}-[0-9a-f]{16}-01$`),
    )
    await watcher.quit()
    await raw.quit()
  })
})
