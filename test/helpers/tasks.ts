/** What the tasks tests share: a client that declares the tasks extension, and polling a task's status. */
import { type Answer, meta, post, resultOf, type Fetcher } from './http.js'

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: {} }
export const withTasks = meta({ 'io.modelcontextprotocol/clientCapabilities': TASKS })

/** A tasks/* request (or any other) with the tasks capability; a task id goes in `Mcp-Name` too. */
export const taskRequest = (
  fetcher: Fetcher,
  method: string,
  params: Record<string, unknown>,
  m = withTasks,
): Promise<Answer> =>
  post(fetcher, method, params, {
    meta: m,
    headers: typeof params.taskId === 'string' ? { 'mcp-name': params.taskId } : {},
  })

/** Polls tasks/get until `done` holds, with a generous deadline (never a fixed sleep). */
export async function waitForTask(
  fetcher: Fetcher,
  taskId: string,
  done: (task: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const task = resultOf(await taskRequest(fetcher, 'tasks/get', { taskId }))
    if (done(task)) return task
    if (Date.now() > deadline) throw new Error(`task ${taskId} stayed ${String(task.status)}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Polls until the task has `status`. */
export const waitForStatus = (fetcher: Fetcher, taskId: string, status: string) =>
  waitForTask(fetcher, taskId, (task) => task.status === status)
