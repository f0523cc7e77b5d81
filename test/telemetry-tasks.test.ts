/**
 * Task runs in the trace of the call that created them, with the real SDK, on a real redis-server and on a
 * shared SQLite file: a task created on one instance asks a question, the answer reaches another instance,
 * which replays the handler.
 * Both runs are `task <tool>` spans under the creating `tools/call` span (its context travels in the stored
 * task), the second links the `tasks/update` that resumed it, and the handler's own spans nest under each run.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { context, SpanKind, trace } from '@opentelemetry/api'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFetchHandler, defineServer, defineTool, type Server, type TaskStore } from '../src/index.js'
import { SqliteTaskStore } from '../src/handles/sqlite.js'
import { RedisTaskStore } from '../src/stores/redis/index.js'
import { registerOtelGlobals } from './fixtures/telemetry-server.js'
import { resultOf, type Fetcher } from './helpers/http.js'
import { redisAvailable, requireRedis, type RedisProcess, startRedis } from './helpers/redis.js'
import { taskRequest, waitForStatus } from './helpers/tasks.js'

const run = redisAvailable || requireRedis
if (!run) console.warn('redis-server not found: Redis tests skipped (CI installs it)')

const exporter = new InMemorySpanExporter()
beforeAll(() => {
  registerOtelGlobals()
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  )
})

/** The scenario, on instances whose task stores `connectStore` opens (one per instance, one shared backend). */
function acrossInstances(connectStore: () => Promise<TaskStore>): void {
  const stores: TaskStore[] = []
  const servers: Server[] = []

  async function instance(label: string): Promise<Fetcher> {
    const store = await connectStore()
    stores.push(store)
    const server = defineServer({
      name: `jobs-${label}`,
      version: '1',
      telemetry: true,
      tasks: { store, watchIntervalMs: 50 },
      requestState: { secret: 'shared-by-every-instance' },
      tools: [
        defineTool({
          name: 'deploy',
          task: 'optional',
          handler: async (_args, ctx) => {
            trace.getTracer('handler').startActiveSpan(`deploy work on ${label}`, (span) => span.end())
            const answer = await ctx.input.elicit(
              {
                message: 'Deploy?',
                requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
              },
              'go',
            )
            return `deployed: ${String(answer.content?.ok)} by ${label}`
          },
        }),
      ],
    })
    servers.push(server)
    return createFetchHandler(server)
  }

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()))
    await Promise.all(stores.map((store) => store.close?.()))
  })

  it('both runs are children of the creating call; the second links the tasks/update that resumed it', async () => {
    const a = await instance('a')
    const b = await instance('b')
    const app = trace.getTracer('application').startSpan('create the task')
    const created = await context.with(trace.setSpan(context.active(), app), () =>
      taskRequest(a, 'tools/call', { name: 'deploy', arguments: {} }),
    )
    app.end()
    const taskId = String(resultOf(created).taskId)
    await waitForStatus(b, taskId, 'input_required')
    const answering = trace.getTracer('application').startSpan('answer the task')
    await context.with(trace.setSpan(context.active(), answering), () =>
      taskRequest(b, 'tasks/update', {
        taskId,
        inputResponses: { go: { action: 'accept', content: { ok: true } } },
      }),
    )
    answering.end()
    const done = await waitForStatus(a, taskId, 'completed')
    expect(JSON.stringify(done.result)).toContain('deployed: true by b')

    const traceId = app.spanContext().traceId
    const spans = exporter.getFinishedSpans()
    const inTrace = spans.filter((span) => span.spanContext().traceId === traceId)
    const creating = inTrace.filter(
      (span) => span.name === 'tools/call deploy' && span.kind === SpanKind.SERVER,
    )
    expect(creating).toHaveLength(1)
    const runs = inTrace.filter((span) => span.name === 'task deploy')
    expect(runs.map((span) => span.attributes['toolwire.task.status'])).toEqual([
      'input_required',
      'completed',
    ])
    for (const span of runs) {
      expect(span.kind).toBe(SpanKind.INTERNAL)
      expect(span.parentSpanContext?.spanId).toBe(creating[0]!.spanContext().spanId)
      expect(span.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'deploy',
        'gen_ai.operation.name': 'execute_tool',
        'toolwire.task.id': taskId,
      })
      expect(span.status.code).toBe(0)
    }
    const [first, second] = runs as [ReadableSpan, ReadableSpan]
    // The first run started inside the creating call itself: nothing else to link.
    expect(first.links).toEqual([])
    // The second was started by the tasks/update on instance b, in the answering application's trace.
    const update = spans.find(
      (span) =>
        span.name === 'tasks/update' &&
        span.kind === SpanKind.SERVER &&
        span.spanContext().traceId === answering.spanContext().traceId,
    )
    expect(update).toBeDefined()
    expect(second.links.map((link) => link.context.spanId)).toEqual([update!.spanContext().spanId])
    // Each run's handler spans nest under that run, on whichever instance it ran.
    const work = (name: string) => inTrace.filter((span) => span.name === name)
    expect(work('deploy work on a').map((span) => span.parentSpanContext?.spanId)).toEqual([
      first.spanContext().spanId,
    ])
    expect(work('deploy work on b').map((span) => span.parentSpanContext?.spanId)).toEqual([
      second.spanContext().spanId,
    ])
  })
}

describe.runIf(run)('task runs with telemetry, across instances sharing Redis', () => {
  let redis: RedisProcess
  beforeAll(async () => {
    redis = await startRedis()
  })
  afterAll(async () => {
    await redis?.stop()
  })
  acrossInstances(() => RedisTaskStore.connect({ url: redis.url, prefix: 'otel-tasks' }))
})

describe('task runs with telemetry, across instances sharing a SQLite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-otel-tasks-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  acrossInstances(() => Promise.resolve(new SqliteTaskStore(join(dir, 'tasks.db'))))
})
