/**
 * A proxy and a gateway with telemetry on: the upstream call each downstream call makes is a CLIENT span
 * under the downstream SERVER span, and the upstream server continues the same trace from `_meta`
 * (semantic-conventions, gen-ai/mcp.md §Context propagation). Real HTTP on both hops, the real SDK.
 */
import { context, trace, SpanKind } from '@opentelemetry/api'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { connect } from '../src/client/index.js'
import { defineGateway, defineProxy, type ProxyServer, type GatewayServer } from '../src/proxy/index.js'
import { serveNode, type RunningServer } from '../src/transports/http/node.js'
import { createTelemetryServer, registerOtelGlobals } from './fixtures/telemetry-server.js'

const exporter = new InMemorySpanExporter()
const servers: { close(): Promise<void> }[] = []
let upstream: RunningServer

beforeAll(async () => {
  registerOtelGlobals()
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  )
  upstream = await serveNode(createTelemetryServer(true), { host: '127.0.0.1', port: 0 })
  servers.push(upstream)
})
afterAll(async () => {
  for (const server of servers.reverse()) await server.close()
})
beforeEach(() => exporter.reset())

/** Serves `server` on a free port; closed after the file. */
async function served(server: ProxyServer | GatewayServer): Promise<string> {
  const running = await serveNode(server, { host: '127.0.0.1', port: 0 })
  servers.push(running, server)
  return running.url
}

/** Calls `tool` under an application span and returns the spans of that trace, and the root. */
async function traceOf(url: string, tool: string): Promise<{ spans: ReadableSpan[]; root: string }> {
  const client = connect({ url }, { telemetry: true })
  const root = trace.getTracer('application').startSpan('application work')
  const result = await context.with(trace.setSpan(context.active(), root), () =>
    client.callTool(tool, { a: 2, b: 3 }),
  )
  root.end()
  await client.close()
  expect((result.content[0] as { text: string }).text).toBe('5 tenant=none')
  const traceId = root.spanContext().traceId
  return {
    spans: exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId),
    root: root.spanContext().spanId,
  }
}

/**
 * Follows parent links from the root: each step is the one span whose parent is the previous (the
 * client's own `server/discover` and the `tools/list` it reads schemas from are siblings, left aside).
 */
function chain(spans: readonly ReadableSpan[], root: string): ReadableSpan[] {
  const path: ReadableSpan[] = []
  let parent = root
  for (;;) {
    const children = spans.filter(
      (span) =>
        span.parentSpanContext?.spanId === parent &&
        (span.attributes['mcp.method.name'] ?? 'tools/call') === 'tools/call',
    )
    if (children.length === 0) return path
    expect(children.map(described), `children of ${parent}`).toHaveLength(1)
    const child = children[0] as ReadableSpan
    path.push(child)
    parent = child.spanContext().spanId
  }
}

const described = (span: ReadableSpan): string => `${SpanKind[span.kind]} ${span.name}`

describe('telemetry through a proxy', () => {
  it('downstream client → proxy server → proxy upstream client → upstream server → handler, one trace', async () => {
    const proxy = await defineProxy({ target: { url: upstream.url }, telemetry: true })
    const url = await served(proxy)
    const { spans, root } = await traceOf(url, 'add')
    expect(chain(spans, root).map(described)).toEqual([
      'CLIENT tools/call add',
      'SERVER tools/call add',
      'CLIENT tools/call add',
      'SERVER tools/call add',
      'INTERNAL inside the handler',
    ])
    // The proxy's upstream span names the upstream, not the downstream address.
    const upstreamClient = chain(spans, root)[2] as ReadableSpan
    expect(upstreamClient.attributes['server.port']).toBe(Number(new URL(upstream.url).port))
  })

  it('a proxy whose upstream client sets telemetry: false makes no upstream span; the trace stops there', async () => {
    const proxy = await defineProxy({
      target: { url: upstream.url },
      telemetry: true,
      client: { telemetry: false },
    })
    const url = await served(proxy)
    const { spans, root } = await traceOf(url, 'add')
    expect(chain(spans, root).map(described)).toEqual(['CLIENT tools/call add', 'SERVER tools/call add'])
  })
})

describe('telemetry through a gateway', () => {
  it('the namespaced downstream call is the parent of the member call', async () => {
    const gateway = await defineGateway({
      members: { calc: { target: { url: upstream.url } } },
      telemetry: true,
    })
    const url = await served(gateway)
    const { spans, root } = await traceOf(url, 'calc_add')
    const path = chain(spans, root)
    expect(path.map(described)).toEqual([
      'CLIENT tools/call calc_add',
      'SERVER tools/call calc_add',
      'CLIENT tools/call add',
      'SERVER tools/call add',
      'INTERNAL inside the handler',
    ])
    expect(path[1]?.attributes['gen_ai.tool.name']).toBe('calc_add')
    expect(path[3]?.attributes['gen_ai.tool.name']).toBe('add')
  })
})
