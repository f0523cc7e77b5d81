/**
 * `mcp.server.session.duration` and `mcp.client.session.duration` (semantic-conventions, gen-ai/mcp.md
 * §Metrics) with the real SDK's metric reader: a 2025-era HTTP session ended with DELETE, a 2025-era stdio
 * session ended with its input, and a 2026-07-28 `subscriptions/listen` stream, the nearest thing that
 * revision has to a session; on the client, a 2025-era session from `initialize` to `close()`.
 */
import { PassThrough } from 'node:stream'
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect } from '../src/client/index.js'
import { serveNode, type RunningServer } from '../src/transports/http/node.js'
import { serveStdio } from '../src/transports/stdio/index.js'
import { createTelemetryServer, registerOtelGlobals } from './fixtures/telemetry-server.js'

class TestReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve()
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve()
  }
}

const SESSION = 'mcp.server.session.duration'
const reader = new TestReader()
const server = createTelemetryServer({ meterProvider: new MeterProvider({ readers: [reader] }) })
let running: RunningServer

beforeAll(async () => {
  registerOtelGlobals()
  running = await serveNode(server, { host: '127.0.0.1', port: 0 })
})
afterAll(async () => {
  await running.close()
})

async function sessionPoints(from = reader, name = SESSION): Promise<DataPoint<Histogram>[]> {
  const { resourceMetrics }: { resourceMetrics: ResourceMetrics } = await from.collect()
  const metric = resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .find((candidate) => candidate.descriptor.name === name)
  if (!metric) return []
  expect(metric.descriptor.unit).toBe('s')
  return metric.dataPoints as DataPoint<Histogram>[]
}

/** The session points whose attributes are exactly `attributes`, waited for (generous deadline). */
async function pointWith(attributes: Record<string, string>): Promise<DataPoint<Histogram>> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const found = (await sessionPoints()).find(
      (point) => JSON.stringify(point.attributes) === JSON.stringify(attributes),
    )
    if (found) return found
    if (Date.now() > deadline) throw new Error(`no ${SESSION} point with ${JSON.stringify(attributes)}`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

describe('mcp.server.session.duration', () => {
  it('a 2025-era HTTP session, ended with DELETE: version, transport, no error.type', async () => {
    const opened = Date.now()
    const client = connect({ url: running.url }, { protocolVersion: '2025-11-25' })
    await client.callTool('add', { a: 1, b: 2 })
    await client.close() // DELETE
    const lived = (Date.now() - opened) / 1000
    const point = await pointWith({
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    })
    expect(point.value.count).toBe(1)
    // Measured from the initialize, so within the time the test held the session open.
    expect(point.value.sum).toBeGreaterThanOrEqual(0)
    expect(point.value.sum).toBeLessThanOrEqual(lived + 0.001)
  })

  it('a 2025-era stdio session, ended with its input', async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    const lines: string[] = []
    output.setEncoding('utf8').on('data', (chunk: string) => lines.push(...chunk.split('\n').filter(Boolean)))
    const connection = serveStdio(server, { input, output })
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'session-test', version: '1.0.0' },
      },
    }
    input.write(`${JSON.stringify(initialize)}\n`)
    input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)
    input.end()
    await connection.closed
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ id: 1, result: { protocolVersion: '2025-06-18' } })
    const point = await pointWith({ 'mcp.protocol.version': '2025-06-18', 'network.transport': 'pipe' })
    expect(point.value.count).toBe(1)
  })

  it('a 2026-07-28 listen stream the client closes: a session without error.type', async () => {
    const client = connect({ url: running.url })
    const subscription = await client.subscribe({ toolsListChanged: true })
    await subscription.close()
    const point = await pointWith({
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    })
    expect(point.value.count).toBe(1)
    await client.close()
  })
})

describe('mcp.client.session.duration', () => {
  it('a 2025-era session, from initialize to close(): version and where the server is', async () => {
    const clientReader = new TestReader()
    const telemetry = { meterProvider: new MeterProvider({ readers: [clientReader] }) }
    const opened = Date.now()
    const legacy = connect({ url: running.url }, { protocolVersion: '2025-11-25', telemetry })
    await legacy.callTool('add', { a: 1, b: 2 })
    await legacy.close()
    await legacy.close() // recorded once
    const lived = (Date.now() - opened) / 1000
    const points = await sessionPoints(clientReader, 'mcp.client.session.duration')
    expect(points.map((point) => point.attributes)).toEqual([
      {
        'mcp.protocol.version': '2025-11-25',
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'server.address': '127.0.0.1',
        'server.port': Number(new URL(running.url).port),
      },
    ])
    expect(points[0]?.value.count).toBe(1)
    expect(points[0]?.value.sum).toBeLessThanOrEqual(lived + 0.001)
  })

  it('a 2026-07-28 client has no session to record', async () => {
    const clientReader = new TestReader()
    const modern = connect(
      { url: running.url },
      { telemetry: { meterProvider: new MeterProvider({ readers: [clientReader] }) } },
    )
    await modern.callTool('add', { a: 1, b: 2 })
    await modern.close()
    expect(await sessionPoints(clientReader, 'mcp.client.session.duration')).toEqual([])
    // The operation histogram is there: the reader works.
    expect(await sessionPoints(clientReader, 'mcp.client.operation.duration')).not.toEqual([])
  })
})
