/**
 * Spans of task runs (extensions/tasks): a task's handler runs after the `tools/call` that created it has
 * answered, maybe on another instance, and again after each `tasks/update` that answers its questions. The
 * creating request's span context is stored with the task (`TaskRecord.trace`, W3C `traceparent` and
 * friends, as MCP carries them in `_meta`: semantic-conventions, gen-ai/mcp.md §Context propagation); each
 * run is an INTERNAL span whose parent is that context, so every run of a task lands in the trace of the
 * call that made it, on whichever instance it runs, and links the span current when the run started (a
 * `tasks/update` that resumed it, say). The handler runs inside the run's span.
 */
import type { Link } from '../wire/otel-api.js'
import {
  ATTR,
  metaGetter,
  metaSetter,
  operationAttributes,
  operationTarget,
  TOOL_ERROR,
} from '../wire/telemetry.js'
import type { ServerTelemetry } from './telemetry.js'

/** Not in the MCP conventions, so in toolwire's own namespace. */
export const ATTR_TASK_ID = 'toolwire.task.id'

/** How a run ended, as the engine records it in the store. */
export type TaskRunEnd =
  | { readonly status: 'completed'; readonly isError: boolean }
  | { readonly status: 'input_required' | 'again' }
  | { readonly status: 'failed'; readonly code: number; readonly message: string }

export class TaskTelemetry {
  readonly #server: ServerTelemetry

  constructor(server: ServerTelemetry) {
    this.#server = server
  }

  /** The current span's context (the creating request's), to store with the task; undefined when untraced. */
  async capture(): Promise<Record<string, string> | undefined> {
    const tracing = await this.#server.tracing()
    if (!tracing) return undefined
    const carrier: Record<string, unknown> = {}
    tracing.propagator.inject(tracing.api.context.active(), carrier, metaSetter)
    const trace: Record<string, string> = {}
    for (const [key, value] of Object.entries(carrier)) if (typeof value === 'string') trace[key] = value
    return Object.keys(trace).length > 0 ? trace : undefined
  }

  /** Runs one run of task `taskId` (tool `tool`) inside its span; `work` reports how the run ended. */
  async run<T>(
    task: {
      readonly taskId: string
      readonly tool: string
      readonly trace?: Record<string, string> | undefined
    },
    work: () => Promise<{ value: T; end: TaskRunEnd }>,
  ): Promise<T> {
    const tracing = await this.#server.tracing()
    if (!tracing) return (await work()).value
    const { api, tracer, propagator } = tracing
    const ambient = api.context.active()
    const parent = task.trace ? propagator.extract(api.ROOT_CONTEXT, task.trace, metaGetter) : ambient
    const ambientSpan = api.trace.getSpanContext(ambient)
    const parentSpan = api.trace.getSpanContext(parent)
    const links: Link[] =
      ambientSpan && ambientSpan.spanId !== parentSpan?.spanId ? [{ context: ambientSpan }] : []
    const target = operationTarget('tools/call', { name: task.tool })
    const span = tracer.startSpan(
      `task ${task.tool}`,
      {
        kind: api.SpanKind.INTERNAL,
        attributes: { ...operationAttributes('tools/call', target), [ATTR_TASK_ID]: task.taskId },
        links,
      },
      parent,
    )
    try {
      const { value, end } = await api.context.with(api.trace.setSpan(parent, span), work)
      span.setAttribute('toolwire.task.status', end.status)
      if (end.status === 'failed') {
        span.setAttribute(ATTR.errorType, String(end.code))
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: end.message })
      } else if (end.status === 'completed' && end.isError) {
        span.setAttribute(ATTR.errorType, TOOL_ERROR)
        span.setStatus({ code: api.SpanStatusCode.ERROR })
      }
      return value
    } catch (error) {
      span.setAttribute(ATTR.errorType, error instanceof Error ? error.name : 'unknown')
      span.setStatus({ code: api.SpanStatusCode.ERROR })
      throw error
    } finally {
      span.end()
    }
  }
}
