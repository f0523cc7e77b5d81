/**
 * The client side of the tasks extension (io.modelcontextprotocol/tasks): a handle on a task the server
 * created for a tools/call. It polls tasks/get at the server's suggested interval, backing off while nothing
 * changes, answers `input_required` with the client's input handlers through tasks/update, and resolves to
 * the tool's result once the task completes.
 */
import { ErrorCode } from '../wire/errors.js'
import { isRecord } from '../wire/jsonrpc.js'
import type { CallToolResult } from '../wire/types.js'
import { BudgetExceededError, CANCEL_WAIT_MS, type CallBudget } from './budget.js'
import { InvalidResponseError, protocolError, RequestCancelledError, RequestTimeoutError } from './errors.js'

/**
 * The tasks extension's identifier, as capabilities name it.
 *
 * @example
 * ```ts
 * const client = connect({ url }, { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } })
 * ```
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'

/** A task as tasks/get reports it (extensions/tasks §Tasks). */
export interface TaskState {
  readonly taskId: string
  readonly status: TaskStatus
  readonly statusMessage?: string
  readonly createdAt: string
  readonly lastUpdatedAt: string
  readonly ttlMs: number | null
  readonly pollIntervalMs?: number
  readonly inputRequests?: Record<string, unknown>
  readonly result?: CallToolResult
  readonly error?: { code: number; message: string; data?: unknown }
}

/** What a handle needs from its client. */
export interface TaskHost {
  request(
    method: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
    budget?: CallBudget,
  ): Promise<Record<string, unknown>>
  /** A fresh budget for a wait that did not come with its call's (a handle used later). */
  budget(): CallBudget
  /** Answers input requests with the client's handlers. */
  answer(inputRequests: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>>
  /** Checks a completed task's result like a direct call's (output schema, tool errors). */
  finish(result: CallToolResult): CallToolResult
  /**
   * Set when the server is 2025-era: its tasks (2025-11-25 basic/utilities/tasks) name `ttl` and
   * `pollInterval`, have no tasks/update, and ask their questions on a tasks/result request.
   */
  readonly legacy?: LegacyTaskSupport
}

/** How a handle follows a 2025-11-25 task (legacy-tasks.ts, through the client). */
export interface LegacyTaskSupport {
  /** A tasks/get answer as a TaskState. */
  state(value: Record<string, unknown>): TaskState
  /** Polls to the end and fetches the result with tasks/result, whose questions the client's handlers answer. */
  wait(created: TaskState, budget: CallBudget, options: WaitOptions): Promise<Record<string, unknown>>
}

export interface WaitOptions {
  readonly signal?: AbortSignal
  /** Called whenever the status (or its message) changes. */
  readonly onStatus?: (task: TaskState) => void
  /** Longest pause between polls while nothing changes (default 30 s, or the server's interval if longer). */
  readonly maxPollIntervalMs?: number
  /**
   * What the wait may spend (time, polls, input rounds): `callTool` passes its call's budget; otherwise the
   * client's limits with `maxTotalTimeoutMs` (default 10 × `timeoutMs`) from now.
   */
  readonly budget?: CallBudget
}

const STATUSES = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled'])
const TERMINAL = new Set(['completed', 'failed', 'cancelled'])

export function parseTask(value: Record<string, unknown>, what: string): TaskState {
  if (typeof value.taskId !== 'string' || typeof value.status !== 'string' || !STATUSES.has(value.status))
    throw new InvalidResponseError(`${what}: not a task (taskId and a known status are required)`)
  return value as unknown as TaskState
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new RequestCancelledError(signal.reason))
    const timer = setTimeout(() => (signal.removeEventListener('abort', stop), resolve()), ms)
    const stop = (): void => (clearTimeout(timer), reject(new RequestCancelledError(signal.reason)))
    signal.addEventListener('abort', stop, { once: true })
  })

/**
 * A task the server runs for a call (`callTool(…, { task: true })`): poll it, wait for its result, or cancel it.
 *
 * @example
 * ```ts
 * const call = await client.callTool('render_report', { year: 2026 }, { task: true })
 * if (call instanceof TaskHandle) {
 *   console.log((await call.get()).status) // 'working'
 *   const result = await call.result()
 * }
 * ```
 */
export class TaskHandle {
  readonly #host: TaskHost
  /** What the creating call returned. */
  readonly created: TaskState

  constructor(host: TaskHost, created: TaskState) {
    this.#host = host
    this.created = created
  }

  get id(): string {
    return this.created.taskId
  }

  async get(signal?: AbortSignal, budget?: CallBudget): Promise<TaskState> {
    const answer = await this.#host.request('tasks/get', { taskId: this.id }, signal, budget)
    return this.#host.legacy ? this.#host.legacy.state(answer) : parseTask(answer, 'tasks/get')
  }

  /** Asks the server to stop; cancellation is cooperative, so poll to see it settle. */
  async cancel(signal?: AbortSignal): Promise<void> {
    await this.#host.request('tasks/cancel', { taskId: this.id }, signal)
  }

  /**
   * Answers the task's open questions. A 2025-era server's task has no tasks/update: its questions come on
   * tasks/result, and `result()` answers them with the client's handlers.
   */
  async update(
    inputResponses: Record<string, unknown>,
    signal?: AbortSignal,
    budget?: CallBudget,
  ): Promise<void> {
    if (this.#host.legacy)
      throw new TypeError(
        `task ${this.id}: a 2025-11-25 server takes answers on tasks/result, not tasks/update`,
      )
    await this.#host.request('tasks/update', { taskId: this.id, inputResponses }, signal, budget)
  }

  /**
   * Polls until the task ends: its result when completed; a ProtocolError when failed or cancelled. The
   * wait draws from one budget: it ends with a RequestTimeoutError when the call's time is spent, or a
   * BudgetExceededError past `maxPolls` or the input limits, and then asks the server to cancel the task.
   */
  async result(options: WaitOptions = {}): Promise<CallToolResult> {
    const budget = options.budget ?? this.#host.budget()
    // A 2025-11-25 wait explains its errors and cancels the task itself (legacy-tasks.ts).
    if (this.#host.legacy) return this.#legacyResult(budget, options)
    try {
      return await this.#wait(budget, options)
    } catch (thrown) {
      const error = budget.explain(thrown)
      // The caller stops waiting: the server need not go on working for nobody (extensions/tasks §Cancelling Tasks).
      if (error instanceof BudgetExceededError || error instanceof RequestTimeoutError)
        await this.cancel(AbortSignal.timeout(CANCEL_WAIT_MS)).catch(() => undefined)
      throw error
    }
  }

  async #legacyResult(budget: CallBudget, options: WaitOptions): Promise<CallToolResult> {
    const result = await (this.#host.legacy as LegacyTaskSupport).wait(this.created, budget, options)
    if (!Array.isArray(result.content))
      throw new InvalidResponseError(`task ${this.id}: tasks/result is not a tool result`)
    return this.#host.finish(result as unknown as CallToolResult)
  }

  async #wait(budget: CallBudget, options: WaitOptions): Promise<CallToolResult> {
    const signal = options.signal ?? new AbortController().signal
    const answered = new Set<string>()
    let last = this.created
    let delay = last.pollIntervalMs ?? 1000
    options.onStatus?.(last)
    for (;;) {
      const suggested = last.pollIntervalMs ?? 1000
      // The budget sets a floor under the server's interval (a hostile pollIntervalMs of 0 would spin) and
      // counts the polls.
      await sleep(budget.poll(delay), signal)
      const task = await this.get(signal, budget)
      const changed = task.status !== last.status || task.lastUpdatedAt !== last.lastUpdatedAt
      if (task.status !== last.status || task.statusMessage !== last.statusMessage) options.onStatus?.(task)
      // Back off while nothing moves; the server's interval is the floor (extensions/tasks §Polling).
      const ceiling = Math.max(options.maxPollIntervalMs ?? 30_000, task.pollIntervalMs ?? suggested)
      delay = changed ? (task.pollIntervalMs ?? suggested) : Math.min(Math.ceil(delay * 1.5), ceiling)
      last = task
      if (TERMINAL.has(task.status)) return this.#settle(task)
      if (task.status === 'input_required' && isRecord(task.inputRequests)) {
        // Each question is answered once, even if a poll still shows it (§Updating Tasks).
        const open = Object.fromEntries(
          Object.entries(task.inputRequests).filter(([key]) => !answered.has(key)),
        )
        if (Object.keys(open).length === 0) continue
        // Questions asked through a task count like input_required rounds of a direct call.
        budget.inputRound(Object.keys(open).length)
        const responses = await this.#host.answer(open, signal)
        await this.update(responses, signal, budget)
        for (const key of Object.keys(open)) answered.add(key)
        delay = 0
      }
    }
  }

  #settle(task: TaskState): CallToolResult {
    if (task.status === 'completed') {
      if (!isRecord(task.result) || !Array.isArray(task.result.content))
        throw new InvalidResponseError(`task ${this.id}: completed without a tool result`)
      return this.#host.finish(task.result)
    }
    if (task.status === 'failed') {
      const error = task.error
      throw protocolError(
        error?.code ?? ErrorCode.InternalError,
        error?.message ?? `task ${this.id} failed`,
        error?.data,
      )
    }
    throw new RequestCancelledError(task.statusMessage ?? `task ${this.id} was cancelled`)
  }
}
