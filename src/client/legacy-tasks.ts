/**
 * Tasks as the 2025-11-25 revision has them (2025-11-25 basic/utilities/tasks), for 2025-era servers whose
 * tools declare `execution.taskSupport: 'required'` (a `tools/call` without a `task` is then -32601,
 * §Tool-Level Negotiation). The call is sent with a `task` param; the server answers with a
 * `CreateTaskResult`; the client polls `tasks/get` and fetches the tool's result with `tasks/result`, which
 * also carries the server's questions while the task is `input_required` (§Input Required Status). When the
 * call's budget runs out or the caller gives up, `tasks/cancel` stops the task (§Cancelling Tasks).
 */
import { isRecord } from '../wire/jsonrpc.js'
import type { ServerCapabilities, Tool } from '../wire/types.js'
import { CANCEL_WAIT_MS, type CallBudget } from './budget.js'
import { InvalidResponseError, ProtocolError, RequestCancelledError } from './errors.js'
import type { LegacyServer } from './legacy.js'
import type { CallOptions } from './session.js'
import { parseTask, type TaskState } from './tasks.js'

/** The revision that introduced tasks; earlier ones have none. */
const TASKS_REVISION = '2025-11-25'

/** `execution.taskSupport` of a listed tool (2025-11-25 schema ToolExecution), if any. */
export function taskSupportOf(tool: Tool | undefined): string | undefined {
  const execution = (tool as { execution?: unknown } | undefined)?.execution
  return isRecord(execution) && typeof execution.taskSupport === 'string' ? execution.taskSupport : undefined
}

/**
 * Whether a call of this tool must be task-augmented: the tool requires it, and the server runs tool calls
 * as tasks (§Capabilities: `tasks.requests.tools.call`).
 */
export function needsLegacyTask(server: LegacyServer | undefined, tool: Tool | undefined): boolean {
  if (server?.version !== TASKS_REVISION || taskSupportOf(tool) !== 'required') return false
  return runsToolCallsAsTasks(server.capabilities)
}

/** Whether a 2025-11-25 server's capabilities say it runs tool calls as tasks (`tasks.requests.tools.call`). */
export function runsToolCallsAsTasks(capabilities: ServerCapabilities): boolean {
  const tasks = (capabilities as Record<string, unknown>).tasks
  const requests = isRecord(tasks) ? tasks.requests : undefined
  return isRecord(requests) && isRecord(requests.tools) && isRecord(requests.tools.call)
}

/** Whether a `tools/call` result is a 2025-11-25 `CreateTaskResult`. */
export function isCreateTaskResult(result: Record<string, unknown>): boolean {
  return isRecord(result.task) && !Array.isArray(result.content)
}

/** What the wait needs from the client. */
export interface LegacyTaskHost {
  request(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions,
  ): Promise<Record<string, unknown>>
}

export interface LegacyTaskOptions {
  readonly signal?: AbortSignal | undefined
  readonly onStatus?: ((task: TaskState) => void) | undefined
}

/** A 2025-11-25 Task as the 2026-07-28 extension's TaskState (`ttl` → `ttlMs`, `pollInterval` → `pollIntervalMs`). */
export function legacyTaskState(value: unknown, what: string): TaskState {
  if (!isRecord(value)) throw new InvalidResponseError(`${what}: not a task`)
  const { ttl, pollInterval, ...rest } = value
  return parseTask(
    {
      ...rest,
      ttlMs: typeof ttl === 'number' ? ttl : null,
      ...(typeof pollInterval === 'number' && { pollIntervalMs: pollInterval }),
    },
    what,
  )
}

const sleep = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new RequestCancelledError(signal.reason))
    const timer = setTimeout(() => (signal?.removeEventListener('abort', stop), resolve()), ms)
    const stop = (): void => (clearTimeout(timer), reject(new RequestCancelledError(signal?.reason)))
    signal?.addEventListener('abort', stop, { once: true })
  })

/** Follows a task the server created for a call (`created`, as it stands) to its end; resolves to the tool's result. */
export async function awaitLegacyTask(
  host: LegacyTaskHost,
  created: TaskState,
  budget: CallBudget,
  options: LegacyTaskOptions,
): Promise<Record<string, unknown>> {
  const signal = options.signal
  let last = created
  const taskId = last.taskId
  const within = (extra: CallOptions = {}): CallOptions => ({ ...extra, budget, ...(signal && { signal }) })
  options.onStatus?.(last)
  try {
    // Poll while the task works; input_required and the ends are all served by tasks/result.
    while (last.status === 'working') {
      await sleep(budget.poll(last.pollIntervalMs ?? 1000), signal)
      const task = legacyTaskState(await host.request('tasks/get', { taskId }, within()), 'tasks/get')
      if (task.status !== last.status || task.statusMessage !== last.statusMessage) options.onStatus?.(task)
      last = task
    }
    if (last.status === 'cancelled')
      throw new RequestCancelledError(last.statusMessage ?? `task ${taskId} was cancelled`)
    // tasks/result blocks until the task ends (§Result Retrieval): it may take the rest of the call's time.
    const result = await host.request('tasks/result', { taskId }, within({ timeoutMs: budget.remainingMs() }))
    if (last.status !== 'completed') {
      const { statusMessage: _waiting, ...rest } = last
      options.onStatus?.({ ...rest, status: 'completed' })
    }
    return result
  } catch (thrown) {
    const error = budget.explain(thrown)
    // A failed task's own error comes from tasks/result; anything else means the client stops waiting.
    const settled = error instanceof ProtocolError || last.status === 'cancelled'
    if (!settled)
      await host.request('tasks/cancel', { taskId }, { timeoutMs: CANCEL_WAIT_MS }).catch(() => undefined)
    throw error
  }
}
