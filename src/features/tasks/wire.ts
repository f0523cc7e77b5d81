/** The tasks extension's wire shapes (extensions/tasks §Tasks, §Polymorphic Results). */
import type { TaskRecord } from './store.js'

/**
 * The tasks extension's identifier, as capabilities name it.
 *
 * @example
 * ```ts
 * const tasksOn = TASKS_EXTENSION in (server.capabilities.extensions ?? {})
 * ```
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

/** The `Task` fields every task-shaped answer carries; timestamps as ISO 8601. */
function taskFields(task: TaskRecord): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    taskId: task.taskId,
    status: task.status,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  }
  if (task.statusMessage !== undefined) fields.statusMessage = task.statusMessage
  return fields
}

/** `CreateTaskResult`: flat `Result & Task`, marked `resultType: "task"`. */
export function createTaskResult(task: TaskRecord): Record<string, unknown> {
  return { resultType: 'task', ...taskFields(task) }
}

/**
 * `DetailedTask` (tasks/get): the status-specific payload inlined — `inputRequests` while waiting, `result`
 * once completed, `error` once failed (extensions/tasks §Tasks, derived shapes).
 */
export function detailedTask(task: TaskRecord): Record<string, unknown> {
  const detailed: Record<string, unknown> = { resultType: 'complete', ...taskFields(task) }
  if (task.status === 'input_required' && task.inputRequests) detailed.inputRequests = task.inputRequests
  if (task.status === 'completed' && task.result) detailed.result = task.result
  if (task.status === 'failed' && task.error) detailed.error = task.error
  return detailed
}
