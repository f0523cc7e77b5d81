/**
 * OpenTelemetry with the real SDK (in-memory span exporter, a metric reader, the async-hooks context manager,
 * the W3C propagators): one trace from the client across real HTTP and stdio into the server, the attributes
 * of the MCP semantic conventions (semantic-conventions, gen-ai/mcp.md §Client, §Server, §Metrics) for a call,
 * a protocol error, a tool error and a 2025-era session, handler spans nested under the server span, and no
 * argument values in any attribute.
 */
import { type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import {
  type Span as ApiSpan,
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api'
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { connect, ProtocolError } from '../src/client/index.js'
import { connectStdio } from '../src/client/stdio-entry.js'
import { defineServer, defineTool, jsonSchema } from '../src/index.js'
import { serveNode, type RunningServer } from '../src/transports/http/node.js'
import {
  createTelemetryServer,
  registerOtelGlobals,
  SECRET_ARGUMENT,
  type SpanLine,
} from './fixtures/telemetry-server.js'
import { ROOT } from './helpers/paths.js'

class TestReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve()
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve()
  }
}

const exporter = new InMemorySpanExporter()
const reader = new TestReader()
let running: RunningServer

beforeAll(async () => {
  registerOtelGlobals()
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  )
  const meterProvider = new MeterProvider({ readers: [reader] })
  // The server uses the global tracer provider and a meter provider passed in the option.
  running = await serveNode(createTelemetryServer({ meterProvider }), { host: '127.0.0.1', port: 0 })
})
afterAll(async () => {
  await running.close()
})
beforeEach(() => exporter.reset())

const app = trace.getTracer('application')

/** Runs `work` inside an application span, as an instrumented application would call the client. */
async function inAppSpan<T>(work: () => Promise<T>): Promise<{ value: T; parent: ApiSpan }> {
  return app.startActiveSpan('application work', async (parent) => {
    try {
      return { value: await work(), parent }
    } finally {
      parent.end()
    }
  })
}

const finished = (): ReadableSpan[] => exporter.getFinishedSpans()
const one = (name: string, kind: SpanKind): ReadableSpan => {
  const found = finished().filter((span) => span.name === name && span.kind === kind)
  expect(found, `${name} (${SpanKind[kind]})`).toHaveLength(1)
  return found[0]!
}
const allAttributeText = (spans: readonly { attributes: Record<string, unknown> }[]): string =>
  JSON.stringify(spans.map((span) => span.attributes))

describe('over HTTP', () => {
  it('one trace from the client span through the server span to a span the handler makes', async () => {
    const client = connect({ url: running.url }, { telemetry: true })
    const { value, parent } = await inAppSpan(() =>
      context.with(
        propagation.setBaggage(context.active(), propagation.createBaggage({ tenant: { value: 'acme' } })),
        () => client.callTool('add', { a: 2, b: 3, note: SECRET_ARGUMENT }),
      ),
    )
    expect((value.content[0] as { text: string }).text).toBe('5 tenant=acme')
    const clientSpan = one('tools/call add', SpanKind.CLIENT)
    const serverSpan = one('tools/call add', SpanKind.SERVER)
    const handlerSpan = one('inside the handler', SpanKind.INTERNAL)
    const traceId = parent.spanContext().traceId
    expect(clientSpan.spanContext().traceId).toBe(traceId)
    expect(clientSpan.parentSpanContext?.spanId).toBe(parent.spanContext().spanId)
    expect(serverSpan.spanContext().traceId).toBe(traceId)
    expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId)
    expect(serverSpan.parentSpanContext?.isRemote).toBe(true)
    expect(handlerSpan.parentSpanContext?.spanId).toBe(serverSpan.spanContext().spanId)

    const port = Number(new URL(running.url).port)
    expect(clientSpan.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'add',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'tcp',
      'server.address': '127.0.0.1',
      'server.port': port,
    })
    expect(clientSpan.attributes['jsonrpc.request.id']).toMatch(/^\d+$/)
    expect(serverSpan.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'add',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'tcp',
      'jsonrpc.request.id': clientSpan.attributes['jsonrpc.request.id'],
      'network.protocol.name': 'http',
      'client.address': '127.0.0.1',
    })
    for (const span of [clientSpan, serverSpan]) {
      expect(span.status.code).toBe(SpanStatusCode.UNSET)
      expect(span.attributes['error.type']).toBeUndefined()
    }
    // No argument value, result or token in any attribute (secrets stay out by default).
    const text = allAttributeText(finished())
    expect(text).not.toContain(SECRET_ARGUMENT)
    expect(text).not.toContain('tenant=acme')
    await client.close()
  })

  it('links the rounds of an input_required exchange: the client span of each retry links the round before', async () => {
    const asking = defineServer({
      name: 'otel-rounds',
      version: '1.0.0',
      telemetry: true,
      tools: [
        defineTool({
          name: 'confirm',
          handler: async (_args, ctx) => {
            const first = await ctx.input.elicit({
              message: 'Sure?',
              requestedSchema: { type: 'object', properties: {} },
            })
            const second = await ctx.input.elicit({
              message: 'Really?',
              requestedSchema: { type: 'object', properties: {} },
            })
            return `${first.action} ${second.action}`
          },
        }),
      ],
    })
    const serving = await serveNode(asking, { host: '127.0.0.1', port: 0 })
    const client = connect(
      { url: serving.url },
      { telemetry: true, handlers: { elicitation: () => ({ action: 'accept', content: {} }) } },
    )
    try {
      const { value, parent } = await inAppSpan(() => client.callTool('confirm', {}))
      expect((value.content[0] as { text: string }).text).toBe('accept accept')
      const of = (kind: SpanKind): ReadableSpan[] =>
        finished()
          .filter((span) => span.name === 'tools/call confirm' && span.kind === kind)
          .sort((a, b) => (a.startTime[0] - b.startTime[0]) * 1e9 + (a.startTime[1] - b.startTime[1]))
      // The first request and two retries, each answering one more question: a client span each, linked to
      // the round before, and a server span under each.
      const clients = of(SpanKind.CLIENT)
      const servers = of(SpanKind.SERVER)
      expect(clients).toHaveLength(3)
      expect(servers).toHaveLength(3)
      expect(clients[0]!.links).toEqual([])
      for (let round = 1; round < 3; round++)
        expect(clients[round]!.links.map((link) => link.context.spanId)).toEqual([
          clients[round - 1]!.spanContext().spanId,
        ])
      for (const [round, server] of servers.entries()) {
        expect(server.spanContext().traceId).toBe(parent.spanContext().traceId)
        expect(server.parentSpanContext?.spanId).toBe(clients[round]!.spanContext().spanId)
      }
    } finally {
      await client.close()
      await serving.close()
    }
  })

  it('names requests without a target by their method', async () => {
    const client = connect({ url: running.url }, { telemetry: true })
    await client.listTools()
    const server = one('tools/list', SpanKind.SERVER)
    expect(server.attributes['gen_ai.operation.name']).toBeUndefined()
    expect(server.parentSpanContext?.spanId).toBe(one('tools/list', SpanKind.CLIENT).spanContext().spanId)
    await client.close()
  })

  it('prompts by name (gen_ai.prompt.name); resources by URI as an attribute, not in the span name', async () => {
    const client = connect({ url: running.url }, { telemetry: true })
    await client.getPrompt('review')
    await client.readResource('docs://readme')
    for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
      const prompt = one('prompts/get review', kind)
      expect(prompt.attributes['gen_ai.prompt.name']).toBe('review')
      expect(prompt.attributes['gen_ai.operation.name']).toBeUndefined()
      expect(one('resources/read', kind).attributes['mcp.resource.uri']).toBe('docs://readme')
    }
    await client.close()
  })

  it("a protocol error: error.type and rpc.response.status_code are the JSON-RPC code; -32602 is the caller's, so the server span keeps status unset", async () => {
    const client = connect({ url: running.url }, { telemetry: true })
    const error = await client.callTool('missing', {}, { allowUnlisted: true }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProtocolError)
    const code = String((error as ProtocolError).code)
    expect(code).toBe('-32602')
    // The client named the tool itself; the server names no tool it does not define (`_OTHER`).
    const clientSpan = one('tools/call missing', SpanKind.CLIENT)
    const serverSpan = one('tools/call', SpanKind.SERVER)
    expect(serverSpan.attributes['gen_ai.tool.name']).toBe('_OTHER')
    for (const span of [clientSpan, serverSpan]) {
      expect(span.attributes['error.type']).toBe(code)
      expect(span.attributes['rpc.response.status_code']).toBe(code)
    }
    expect(clientSpan.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: (error as ProtocolError).message,
    })
    expect(serverSpan.status.code).toBe(SpanStatusCode.UNSET)
    await client.close()
  })

  it('a tool error: error.type tool_error, no JSON-RPC code, status ERROR', async () => {
    const client = connect({ url: running.url }, { telemetry: true })
    const result = await client.callTool('fail')
    expect(result.isError).toBe(true)
    for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
      const span = one('tools/call fail', kind)
      expect(span.attributes['error.type']).toBe('tool_error')
      expect(span.attributes['rpc.response.status_code']).toBeUndefined()
      expect(span.status.code).toBe(SpanStatusCode.ERROR)
      // The tool's error text is data of the result, not a status description.
      expect(span.status.message).toBeUndefined()
    }
    await client.close()
  })

  it('a 2025-era session: the negotiated version and the session id, and the trace still continues', async () => {
    const client = connect({ url: running.url }, { telemetry: true, protocolVersion: '2025-11-25' })
    const { parent } = await inAppSpan(() => client.callTool('add', { a: 1, b: 1 }))
    const serverSpan = one('tools/call add', SpanKind.SERVER)
    const clientSpan = one('tools/call add', SpanKind.CLIENT)
    expect(serverSpan.attributes['mcp.protocol.version']).toBe('2025-11-25')
    expect(serverSpan.attributes['mcp.session.id']).toMatch(/\S/)
    expect(clientSpan.attributes['mcp.protocol.version']).toBe('2025-11-25')
    expect(serverSpan.spanContext().traceId).toBe(parent.spanContext().traceId)
    expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId)
    expect(one('inside the handler', SpanKind.INTERNAL).parentSpanContext?.spanId).toBe(
      serverSpan.spanContext().spanId,
    )
    // The handshake is traced too, and the sealed Mcp-Session-Id token is never recorded.
    expect(one('initialize', SpanKind.SERVER).attributes['mcp.protocol.version']).toBe('2025-11-25')
    const sessionId = serverSpan.attributes['mcp.session.id'] as string
    expect(sessionId.length).toBeLessThan(64)
    await client.close()
  })

  it('records mcp.server.operation.duration and mcp.client.operation.duration with the conventions attributes', async () => {
    const clientReader = new TestReader()
    const clientMeters = new MeterProvider({ readers: [clientReader] })
    const client = connect({ url: running.url }, { telemetry: { meterProvider: clientMeters } })
    await client.callTool('add', { a: 1, b: 2 })
    await client.callTool('fail')
    const server = await histogramPoints(reader, 'mcp.server.operation.duration')
    const calls = server.filter((point) => point.attributes['gen_ai.tool.name'] === 'add')
    expect(calls.length).toBeGreaterThan(0)
    expect(calls[0]!.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.operation.name': 'execute_tool',
      'network.transport': 'tcp',
    })
    // High-cardinality attributes stay on spans.
    for (const point of server) {
      expect(point.attributes['jsonrpc.request.id']).toBeUndefined()
      expect(point.attributes['mcp.session.id']).toBeUndefined()
    }
    const failed = server.find((point) => point.attributes['gen_ai.tool.name'] === 'fail')
    expect(failed?.attributes['error.type']).toBe('tool_error')
    const clientPoints = await histogramPoints(clientReader, 'mcp.client.operation.duration')
    const clientCall = clientPoints.find((point) => point.attributes['gen_ai.tool.name'] === 'add')
    expect(clientCall?.attributes).toMatchObject({
      'server.address': '127.0.0.1',
      'mcp.method.name': 'tools/call',
    })
    expect(clientCall?.value.count).toBe(1)
    await client.close()
    await clientMeters.shutdown()
  })
})

describe('refusals', () => {
  it('toolwire.server.refusals counts refusals by guard: auth, rate_limit, validation, timeout, output', async () => {
    const refusalReader = new TestReader()
    const meterProvider = new MeterProvider({ readers: [refusalReader] })
    const guarded = defineServer({
      name: 'guarded',
      version: '1.0.0',
      telemetry: { meterProvider },
      security: {
        auth: {
          authenticate: (request) =>
            request.header('authorization') === 'Bearer let-me-in'
              ? { ok: true }
              : { ok: false, status: 401, headers: {}, body: '{"error":"unauthorized"}' },
        },
        rateLimit: { toolCalls: false, tools: { once: { points: 1, durationMs: 3_600_000 } } },
        output: { maxBytes: 1000, oversized: 'refuse' },
      },
      tools: [
        defineTool({
          name: 'once',
          inputSchema: jsonSchema<{ n: number }>({
            type: 'object',
            properties: { n: { type: 'number' } },
            required: ['n'],
          }),
          handler: ({ n }) => String(n),
        }),
        defineTool({ name: 'big', handler: () => 'x'.repeat(5000) }),
        defineTool({
          name: 'stalls',
          timeoutMs: 50,
          // Waits until the deadline aborts it: the refusal is the timeout's, whenever it fires.
          handler: (_args, ctx) =>
            new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'))),
        }),
      ],
    })
    const served = await serveNode(guarded, { host: '127.0.0.1', port: 0 })
    try {
      const refused = connect({ url: served.url }, { telemetry: true })
      await expect(refused.listTools()).rejects.toThrow()
      await refused.close()
      const client = connect(
        { url: served.url, headers: { authorization: 'Bearer let-me-in' } },
        { telemetry: true },
      )
      expect((await client.callTool('once', { n: 'x' } as never)).isError).toBe(true) // validation
      expect((await client.callTool('once', { n: 1 })).isError).toBeFalsy()
      expect((await client.callTool('once', { n: 2 })).isError).toBe(true) // rate limit
      expect((await client.callTool('stalls')).isError).toBe(true) // timeout
      expect((await client.callTool('big')).isError).toBe(true) // output
      await client.close()
      const { resourceMetrics } = await refusalReader.collect()
      const metric = resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .find((candidate) => candidate.descriptor.name === 'toolwire.server.refusals')
      const counts = Object.fromEntries(
        (metric?.dataPoints ?? []).map((point) => [
          `${String(point.attributes['toolwire.guard'])} ${String(point.attributes['gen_ai.tool.name'] ?? '')}`.trim(),
          point.value,
        ]),
      )
      expect(counts).toEqual({
        auth: 1,
        'validation once': 1,
        'rate_limit once': 1,
        'timeout stalls': 1,
        'output big': 1,
      })
      // The span of a refused call names its guard too.
      expect(one('tools/call stalls', SpanKind.SERVER).attributes['toolwire.guard']).toBe('timeout')
    } finally {
      await served.close()
      await meterProvider.shutdown()
    }
  })
})

describe('context', () => {
  it('the trace context in _meta is the parent; the span current on arrival is linked', async () => {
    const server = createTelemetryServer(true)
    const remote = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' }
    const request = {
      jsonrpc: '2.0' as const,
      id: 'call-7',
      method: 'tools/call',
      params: {
        name: 'add',
        arguments: { a: 1, b: 2 },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          traceparent: `00-${remote.traceId}-${remote.spanId}-01`,
          baggage: 'tenant=globex',
        },
      },
    }
    const exchange = { transport: 'memory' as const, signal: new AbortController().signal, notify: () => {} }
    const { value: reply, parent: ambient } = await inAppSpan(() => server.handle(request, exchange))
    expect(reply?.body).toContain('3 tenant=globex')
    const span = one('tools/call add', SpanKind.SERVER)
    expect(span.spanContext().traceId).toBe(remote.traceId)
    expect(span.parentSpanContext?.spanId).toBe(remote.spanId)
    expect(span.links.map((link) => link.context.spanId)).toEqual([ambient.spanContext().spanId])
    expect(span.attributes['jsonrpc.request.id']).toBe('call-7')
    expect(span.attributes['network.transport']).toBeUndefined()
  })
})

async function histogramPoints(from: MetricReader, name: string): Promise<DataPoint<Histogram>[]> {
  const { resourceMetrics }: { resourceMetrics: ResourceMetrics } = await from.collect()
  const metrics = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics)
  const metric = metrics.find((candidate) => candidate.descriptor.name === name)
  expect(metric, name).toBeDefined()
  expect(metric!.descriptor.unit).toBe('s')
  return metric!.dataPoints as DataPoint<Histogram>[]
}

describe('over stdio', () => {
  const spans: SpanLine[] = []
  let waiters: (() => void)[] = []
  const spanNamed = async (name: string, count: number): Promise<SpanLine[]> => {
    for (;;) {
      const found = spans.filter((span) => span.name === name)
      if (found.length >= count) return found
      await new Promise<void>((resolve) => waiters.push(resolve))
    }
  }

  for (const era of ['2026-07-28', '2025-11-25'] as const) {
    it(`the server continues the client's trace (${era})`, async () => {
      spans.length = 0
      const client = connectStdio(
        {
          command: process.execPath,
          args: ['--import=tsx', join(ROOT, 'test', 'fixtures', 'telemetry-server.ts')],
          stderr: 'pipe',
        },
        { telemetry: true, protocolVersion: era },
      )
      const child = (client.transport as unknown as { process: ChildProcess }).process
      let pending = ''
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
        pending += chunk
        let index: number
        while ((index = pending.indexOf('\n')) !== -1) {
          const line = pending.slice(0, index)
          pending = pending.slice(index + 1)
          if (line.startsWith('SPAN ')) spans.push(JSON.parse(line.slice(5)) as SpanLine)
        }
        const wake = waiters
        waiters = []
        for (const resolve of wake) resolve()
      })
      try {
        const { parent } = await inAppSpan(() =>
          client.callTool('add', { a: 4, b: 5, note: SECRET_ARGUMENT }),
        )
        const clientSpan = one('tools/call add', SpanKind.CLIENT)
        expect(clientSpan.attributes['network.transport']).toBe('pipe')
        expect(clientSpan.attributes['server.address']).toBeUndefined()
        const [serverSpan] = await spanNamed('tools/call add', 1)
        const [handlerSpan] = await spanNamed('inside the handler', 1)
        expect(serverSpan!.kind).toBe(SpanKind.SERVER)
        expect(serverSpan!.traceId).toBe(parent.spanContext().traceId)
        expect(serverSpan!.parentSpanId).toBe(clientSpan.spanContext().spanId)
        expect(handlerSpan!.parentSpanId).toBe(serverSpan!.spanId)
        expect(serverSpan!.attributes).toMatchObject({
          'mcp.method.name': 'tools/call',
          'gen_ai.tool.name': 'add',
          'mcp.protocol.version': era,
          'network.transport': 'pipe',
          'jsonrpc.request.id': clientSpan.attributes['jsonrpc.request.id'],
        })
        expect(allAttributeText(spans)).not.toContain(SECRET_ARGUMENT)
      } finally {
        await client.close()
      }
    })
  }
})
