/**
 * `--otel` of the CLI, as users run it: `toolwire serve --otel` exports to a real OTLP/HTTP receiver (a
 * node:http server here, taking the exporter's JSON encoding, OTEL_EXPORTER_OTLP_PROTOCOL=http/json) the
 * spans and metrics of the OpenTelemetry semantic conventions for MCP, with the served module's own span
 * nested under the server span; `toolwire bridge --otel console` prints spans on stderr and keeps stdout to
 * the URL line; without the SDK installed the flag fails in one line. Needs `npm run build`.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect } from '../src/client/index.js'
import { CLI, ROOT, testServer } from './helpers/paths.js'

/** OTLP/JSON as the exporters send it (opentelemetry-proto, JSON mapping). */
interface OtlpValue {
  stringValue?: string
  intValue?: string | number
  doubleValue?: number
}
interface OtlpAttribute {
  key: string
  value: OtlpValue
}
interface OtlpSpan {
  name: string
  kind: number
  traceId: string
  spanId: string
  parentSpanId?: string
  attributes: OtlpAttribute[]
}
interface OtlpTraces {
  resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { spans: OtlpSpan[] }[] }[]
}
interface OtlpMetrics {
  resourceMetrics: {
    scopeMetrics: {
      metrics: { name: string; histogram?: { dataPoints: { attributes: OtlpAttribute[] }[] } }[]
    }[]
  }[]
}

const SPAN_KIND_SERVER = 2

/** A collector's OTLP/HTTP endpoint: every body POSTed to /v1/traces and /v1/metrics, parsed. */
class OtlpReceiver {
  readonly traces: OtlpTraces[] = []
  readonly metrics: OtlpMetrics[] = []
  readonly #waiters = new Set<() => void>()
  readonly server: HttpServer = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => (body += chunk))
    request.on('end', () => {
      const parsed = JSON.parse(body) as unknown
      if (request.url === '/v1/traces') this.traces.push(parsed as OtlpTraces)
      if (request.url === '/v1/metrics') this.metrics.push(parsed as OtlpMetrics)
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
      for (const wake of this.#waiters) wake()
    })
  })

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
  }

  spans(): { span: OtlpSpan; resource: OtlpAttribute[] }[] {
    return this.traces.flatMap((body) =>
      body.resourceSpans.flatMap((resource) =>
        resource.scopeSpans.flatMap((scope) =>
          scope.spans.map((span) => ({ span, resource: resource.resource.attributes })),
        ),
      ),
    )
  }

  metricNames(): string[] {
    return this.metrics.flatMap((body) =>
      body.resourceMetrics.flatMap((resource) =>
        resource.scopeMetrics.flatMap((scope) => scope.metrics.map((metric) => metric.name)),
      ),
    )
  }

  /** Resolves when `done()` holds after a delivery, or fails after a generous deadline. */
  until(what: string, done: () => boolean): Promise<void> {
    if (done()) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(check)
        reject(new Error(`the receiver never got ${what}`))
      }, 30_000)
      const check = (): void => {
        if (!done()) return
        clearTimeout(timer)
        this.#waiters.delete(check)
        resolve()
      }
      this.#waiters.add(check)
    })
  }
}

const attribute = (attributes: readonly OtlpAttribute[], key: string): string | number | undefined => {
  const value = attributes.find((entry) => entry.key === key)?.value
  return value?.stringValue ?? (value?.intValue === undefined ? value?.doubleValue : Number(value.intValue))
}

interface Started {
  readonly child: ChildProcess
  readonly firstLine: string
  readonly stdout: () => string
  readonly stderr: () => string
}

/** Starts `toolwire …` and resolves with the first line it prints on stdout (it listens by then). */
function start(args: readonly string[], env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`toolwire did not start: ${stderr}`)), 30_000)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`toolwire exited (${code}): ${stderr}`))
    })
    createInterface({ input: child.stdout! }).once('line', (firstLine) => {
      clearTimeout(timer)
      child.removeAllListeners('exit')
      resolve({ child, firstLine, stdout: () => stdout, stderr: () => stderr })
    })
  })
}

function stop(started: Started | undefined): Promise<number | null> {
  if (!started) return Promise.resolve(null)
  const { child } = started
  if (child.exitCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code))
    child.kill('SIGTERM')
  })
}

const receiver = new OtlpReceiver()
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve))
})
afterAll(async () => {
  await new Promise((resolve) => receiver.server.close(resolve))
})

describe('toolwire serve --otel', () => {
  let served: Started | undefined
  afterAll(async () => {
    await stop(served)
  })

  it('exports the server spans and the duration histogram over OTLP/HTTP, configured by OTEL_* variables', async () => {
    served = await start(['serve', testServer('otel-served.mjs'), '--http', '127.0.0.1:0', '--otel'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'calc-under-test',
      OTEL_BSP_SCHEDULE_DELAY: '20',
    })
    const url = /on (http:\S+)$/.exec(served.firstLine)?.[1]
    expect(url, served.firstLine).toBeDefined()
    const client = connect({ url: url! })
    const result = await client.callTool('add', { a: 2, b: 3 })
    expect((result.content[0] as { text: string }).text).toBe('5')
    await client.close()

    const named = (name: string, kind?: number) =>
      receiver.spans().find(({ span }) => span.name === name && (kind === undefined || span.kind === kind))
    await receiver.until('the tools/call span and the handler span', () =>
      Boolean(named('tools/call add', SPAN_KIND_SERVER) && named('add numbers')),
    )
    const server = named('tools/call add', SPAN_KIND_SERVER)!
    expect(attribute(server.resource, 'service.name')).toBe('calc-under-test')
    expect(attribute(server.span.attributes, 'mcp.method.name')).toBe('tools/call')
    expect(attribute(server.span.attributes, 'gen_ai.tool.name')).toBe('add')
    expect(attribute(server.span.attributes, 'gen_ai.operation.name')).toBe('execute_tool')
    expect(attribute(server.span.attributes, 'mcp.protocol.version')).toBe('2026-07-28')
    expect(attribute(server.span.attributes, 'network.transport')).toBe('tcp')
    // The module's own span, made with the global tracer, nests under the server span.
    const handler = named('add numbers')!
    expect(handler.span.traceId).toBe(server.span.traceId)
    expect(handler.span.parentSpanId).toBe(server.span.spanId)

    // The SDK's shutdown on SIGTERM flushes the metrics (the export interval is a minute by default).
    expect(await stop(served)).toBe(0)
    await receiver.until('mcp.server.operation.duration', () =>
      receiver.metricNames().includes('mcp.server.operation.duration'),
    )
  }, 60_000)
})

describe('toolwire bridge --otel console', () => {
  let bridge: Started | undefined
  afterAll(async () => {
    await stop(bridge)
  })

  it('prints the downstream and upstream spans on stderr, one trace; stdout keeps only the URL line', async () => {
    bridge = await start(
      [
        'bridge',
        '--http',
        '127.0.0.1:0',
        '--otel',
        'console',
        '--',
        process.execPath,
        testServer('otel-served.mjs'),
      ],
      { OTEL_BSP_SCHEDULE_DELAY: '20' },
    )
    expect(bridge.firstLine).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    const client = connect({ url: bridge.firstLine })
    await client.callTool('add', { a: 1, b: 2 })
    await client.close()
    // console.dir's rendering of the SDK's span objects; kind is the API's SpanKind: 1 SERVER, 2 CLIENT.
    const printed = (): { trace: string; parent: string | undefined; id: string; kind: string }[] =>
      [
        ...bridge!
          .stderr()
          .matchAll(
            /traceId: '(\w+)',\s+parentSpanContext: (?:undefined|\{[^}]*?spanId: '(\w+)'[^}]*\}),\s+traceState: \w+,\s+name: 'tools\/call add',\s+id: '(\w+)',\s+kind: (\d)/g,
          ),
      ].map((m) => ({ trace: m[1]!, parent: m[2], id: m[3]!, kind: m[4]! }))
    const deadline = Date.now() + 30_000
    while (printed().length < 2) {
      if (Date.now() > deadline) throw new Error(`no spans on stderr: ${bridge.stderr()}`)
      await new Promise((resolve) => bridge!.child.stderr!.once('data', resolve))
    }
    const server = printed().find((span) => span.kind === '1')
    const upstream = printed().find((span) => span.kind === '2')
    expect(server).toBeDefined()
    expect(upstream?.trace).toBe(server?.trace)
    expect(upstream?.parent).toBe(server?.id)
    expect(bridge.stdout().trim()).toBe(bridge.firstLine)
  }, 60_000)
})

describe('--otel without the SDK installed', () => {
  it('fails in one line naming what to install', async () => {
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [
          '--import',
          join(ROOT, 'test', 'fixtures', 'module-watch.mjs'),
          CLI,
          'serve',
          testServer('otel-served.mjs'),
          '--otel',
        ],
        {
          cwd: ROOT,
          timeout: 60_000,
          env: { ...process.env, MODULE_WATCH_BLOCK: '@opentelemetry/sdk-node' },
        },
        (error, _stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stderr }),
      )
    })
    expect(code).toBe(2)
    expect(stderr.trim().split('\n')).toEqual([
      'toolwire: --otel needs the OpenTelemetry Node SDK, an optional dependency: npm install @opentelemetry/sdk-node @opentelemetry/api',
    ])
  })
})
