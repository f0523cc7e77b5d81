/**
 * Telemetry cardinality with the real OpenTelemetry SDK (in-memory span exporter, a metric reader) over real
 * HTTP: tool and prompt names a caller makes up never become span names or metric series (they are
 * `_OTHER`, as an unknown HTTP method is), an authenticated caller's made-up name is kept on the span only,
 * cut to 128 characters, an anonymous caller's not at all; -32602 leaves the server span's status unset;
 * `client.port` and `network.protocol.version` are on the server span.
 */
import { randomBytes } from 'node:crypto'
import { request } from 'node:http'
import { MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { SpanStatusCode } from '@opentelemetry/api'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { definePrompt, defineServer, defineTool, type Server } from '../src/index.js'
import { serveNode, type RunningServer } from '../src/transports/http/node.js'
import { meta, standardHeaders } from './helpers/http.js'

class TestReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve()
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve()
  }
}

const TOKEN = 'alice-token'
const exporter = new InMemorySpanExporter()
const reader = new TestReader()
let server: Server
let running: RunningServer

beforeAll(async () => {
  server = defineServer({
    name: 'cardinality',
    version: '1.0.0',
    telemetry: {
      tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
      meterProvider: new MeterProvider({ readers: [reader] }),
    },
    security: {
      rateLimit: false,
      // A bearer token names alice; without one the caller is anonymous (known by address only).
      auth: {
        authenticate: (req) =>
          req.header('authorization') === `Bearer ${TOKEN}`
            ? { ok: true, auth: { subject: 'alice', scopes: [] } }
            : { ok: true },
      },
    },
    tools: [
      defineTool({ name: 'echo', description: 'Says hi', handler: () => 'hi' }),
      defineTool({ name: 'ping', description: 'Says pong', handler: () => 'pong' }),
    ],
    prompts: [definePrompt({ name: 'review', handler: () => 'Review it.' })],
  })
  running = await serveNode(server, { host: '127.0.0.1', port: 0 })
})
afterAll(() => running.close())
beforeEach(() => exporter.reset())

interface Posted {
  readonly body: Record<string, unknown>
  /** The port the request left from: the server's `client.port`. */
  readonly localPort: number
}

/** One POST over its own connection, so the port it came from is known. */
function post(method: string, params: Record<string, unknown>, token?: string): Promise<Posted> {
  const url = new URL(running.url)
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta() } })
  const headers: Record<string, string> = { ...standardHeaders(method, params), host: url.host }
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  // A header value may not hold every character a name may: the body alone names the tool then.
  if (headers['mcp-name'] !== undefined && !/^[\x21-\x7e]*$/.test(headers['mcp-name']))
    delete headers['mcp-name']
  return new Promise((resolve, reject) => {
    let localPort = 0
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers, agent: false },
      (res) => {
        let text = ''
        res.on('data', (chunk: Buffer) => (text += chunk.toString()))
        res.on('end', () => resolve({ body: JSON.parse(text) as Record<string, unknown>, localPort }))
      },
    )
    req.on('socket', (socket) => socket.once('connect', () => (localPort = socket.localPort ?? 0)))
    req.on('error', reject)
    req.end(body)
  })
}

/** A name no server defines: random, 1 to 1000 characters. */
const madeUp = (): string => {
  const length = 1 + (randomBytes(2).readUInt16BE() % 1000)
  return `x${randomBytes(length).toString('base64url')}`.slice(0, length)
}

async function durationPoints(): Promise<{ attributes: Record<string, unknown> }[]> {
  const { resourceMetrics } = (await reader.collect()) as { resourceMetrics: ResourceMetrics }
  const metric = resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .find((m) => m.descriptor.name === 'mcp.server.operation.duration')
  return (metric?.dataPoints ?? []) as { attributes: Record<string, unknown> }[]
}

const serverSpans = (): ReadableSpan[] => exporter.getFinishedSpans()

describe('names a caller makes up', () => {
  it('500 unknown tool names add one metric series (_OTHER) and never appear in a span name', async () => {
    const names = Array.from({ length: 500 }, madeUp)
    for (const name of ['echo', 'ping']) {
      const { body } = await post('tools/call', { name, arguments: {} })
      expect(body.result).toBeDefined()
    }
    for (let index = 0; index < names.length; index += 25) {
      const answers = await Promise.all(
        names.slice(index, index + 25).map((name) => post('tools/call', { name, arguments: {} })),
      )
      for (const { body } of answers) expect((body.error as { code: number }).code).toBe(-32602)
    }
    const calls = (await durationPoints()).filter((p) => p.attributes['mcp.method.name'] === 'tools/call')
    const toolNames = new Set(calls.map((p) => p.attributes['gen_ai.tool.name']))
    expect(toolNames).toEqual(new Set(['echo', 'ping', '_OTHER']))
    // Defined tools' series (one each) + one for every unknown name together (with its error.type).
    expect(calls.length).toBeLessThanOrEqual(2 + 1)
    const spans = serverSpans()
    expect(spans).toHaveLength(502)
    const spanNames = new Set(spans.map((span) => span.name))
    expect(spanNames).toEqual(new Set(['tools/call echo', 'tools/call ping', 'tools/call']))
    for (const span of spans) {
      const name = span.attributes['gen_ai.tool.name']
      expect(['echo', 'ping', '_OTHER']).toContain(name)
    }
  })

  it("records no anonymous caller's unknown name, anywhere", async () => {
    const name = `anonymous-${madeUp()}`
    await post('tools/call', { name, arguments: {} })
    const [span] = serverSpans()
    expect(span?.attributes['toolwire.tool.name_original']).toBeUndefined()
    expect(JSON.stringify(span?.attributes)).not.toContain('anonymous-')
    expect(span?.name).toBe('tools/call')
  })

  it("keeps an authenticated caller's unknown name on the span only, cut to 128 characters", async () => {
    const long = `alice-${'n'.repeat(900)}`
    await post('tools/call', { name: long, arguments: {} }, TOKEN)
    await post('prompts/get', { name: 'no-such-prompt' }, TOKEN)
    const [tool, prompt] = serverSpans()
    expect(tool?.name).toBe('tools/call')
    expect(tool?.attributes['gen_ai.tool.name']).toBe('_OTHER')
    expect(tool?.attributes['toolwire.tool.name_original']).toBe(long.slice(0, 128))
    expect(prompt?.name).toBe('prompts/get')
    expect(prompt?.attributes['gen_ai.prompt.name']).toBe('_OTHER')
    expect(prompt?.attributes['toolwire.prompt.name_original']).toBe('no-such-prompt')
    const points = await durationPoints()
    expect(JSON.stringify(points.map((p) => p.attributes))).not.toContain('alice-')
    expect(JSON.stringify(points.map((p) => p.attributes))).not.toContain('no-such-prompt')
  })

  it('a tool added at runtime is a name the server defines from then on', async () => {
    await post('tools/call', { name: 'later', arguments: {} })
    server.tools.add(defineTool({ name: 'later', description: 'Added later', handler: () => 'now' }))
    await post('tools/call', { name: 'later', arguments: {} })
    server.tools.remove('later')
    await post('tools/call', { name: 'later', arguments: {} })
    expect(serverSpans().map((span) => span.name)).toEqual(['tools/call', 'tools/call later', 'tools/call'])
  })
})

describe('the server span, as the MCP conventions read', () => {
  it('-32602 for an unknown tool records its code but leaves the status unset', async () => {
    await post('tools/call', { name: 'nope', arguments: {} })
    const [span] = serverSpans()
    expect(span?.attributes['error.type']).toBe('-32602')
    expect(span?.attributes['rpc.response.status_code']).toBe('-32602')
    expect(span?.status.code).toBe(SpanStatusCode.UNSET)
  })

  it('client.port and network.protocol.version', async () => {
    const { localPort } = await post('tools/call', { name: 'echo', arguments: {} })
    const [span] = serverSpans()
    expect(localPort).toBeGreaterThan(0)
    expect(span?.attributes['client.address']).toBe('127.0.0.1')
    expect(span?.attributes['client.port']).toBe(localPort)
    expect(span?.attributes['network.protocol.version']).toBe('1.1')
    expect(span?.status.code).toBe(SpanStatusCode.UNSET)
  })
})
