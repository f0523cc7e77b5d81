/**
 * How a handler moves its call into a task (tasks extension, io.modelcontextprotocol/tasks). Handlers are
 * replayed like multi-round-trip requests, so `start()` may end the synchronous round: the server then
 * answers with the task handle and runs the handler again inside the task, where `start()` just resolves.
 */

/** A handler's view of the task its call runs in. */
export interface TaskControl {
  /** The task this run belongs to; undefined while the call is still answered synchronously. */
  readonly id: string | undefined
  /** Continues this call as a task (a no-op inside a task, or when the client cannot take one). */
  start(): Promise<void>
}

/** Thrown by `start()` in the synchronous round: the tools/call answer becomes a task handle. */
export class StartTask {
  readonly reason = 'the handler asked to continue as a task'
}

/** Calls that can never become tasks. */
export const NO_TASK: TaskControl = { id: undefined, start: () => Promise.resolve() }

/**
 * Thrown by a handler whose call is answered by a task that stands for one running elsewhere (a proxy's
 * upstream task): the tools/call answer is `result`, the `CreateTaskResult`, as it is.
 */
export class RelayedTask {
  constructor(readonly result: Record<string, unknown>) {}
}
