/**
 * Runs tool calls as tasks. A task's handler is replayed like a multi-round-trip request: every run starts
 * from the stored arguments and every answer given so far, so whichever instance receives the last answer
 * (tasks/update) can resume it, and nothing but the store is shared between instances.
 */
import { withDataKeys } from '../../wire/data-keys.js'
import type { CompiledTool } from '../tools/compile.js'
import type { TaskHooks } from '../tools/call.js'
import { RequestContext } from '../../protocol/context.js'
import type { ResultPayload } from '../../protocol/encode.js'
import type { AuthInfo, Exchange } from '../../protocol/exchange.js'
import { InputRequired } from '../../protocol/mrtr/inputs.js'
import type { RequestStateCodec } from '../../protocol/mrtr/state.js'
import type { ServerLogger } from '../../protocol/dispatcher.js'
import { parseRequestMeta } from '../../protocol/request-meta.js'
import { ErrorCode, isAnswerError, tooManyRequests } from '../../wire/errors.js'
import { isRecord } from '../../wire/jsonrpc.js'
import type { InputRequest } from '../../wire/types.js'
import type { CreateOutcome, TaskIdentity, TaskLimits, TaskRecord, TaskStore } from './store.js'
import type { OwnerKey, Principal } from '../../protocol/principal.js'
import { createTaskResult, TASKS_EXTENSION } from './wire.js'
import type { TaskRunEnd, TaskTelemetry } from '../../protocol/task-telemetry.js'
import { type FinishResult, RelayedTasks, type TaskRelay } from './relayed.js'

export interface TaskEngineOptions {
  readonly store: TaskStore
  /** What one principal may keep in the store: unfinished tasks, stored tasks and their bytes. */
  readonly limits: TaskLimits
  /** How often a running task checks the store for a cancel that arrived at another instance. */
  readonly watchIntervalMs: number
  readonly codec: RequestStateCodec
  readonly logger: ServerLogger
  /** Runs a tools/call in the given context (the server's tools/call, task decision included). */
  readonly call: (ctx: RequestContext) => Promise<ResultPayload>
  /** Spans of task runs in the creating call's trace (`defineServer({ telemetry })`). */
  readonly telemetry?: TaskTelemetry | undefined
  /** Checks a result made elsewhere (a relayed task's) like the server's own tools' results. */
  readonly finish?: FinishResult
}

type RunOutcome = { kind: 'again' } | { kind: 'change'; change: Parameters<TaskStore['transition']>[2] }

/** How a run ended, for its span. */
function runEnd(outcome: RunOutcome): TaskRunEnd {
  if (outcome.kind === 'again') return { status: 'again' }
  const { to, set } = outcome.change
  if (to === 'failed' && set?.error) return { status: 'failed', ...set.error }
  if (to === 'completed') return { status: 'completed', isError: set?.result?.isError === true }
  return { status: 'input_required' }
}

/** What a task is filed under: its creator's owner key, exactly as for handles and limits. */
export const taskOwner = (ctx: RequestContext): OwnerKey => ctx.ownerKey

/** What a background run must restore so that its handler sees the creator's `ctx.auth` and `ctx.principal`. */
function identityOf(ctx: RequestContext): TaskIdentity {
  const auth = ctx.auth
  const address = ctx.exchange.remoteAddress
  return {
    principal: ctx.principal,
    ...(auth && {
      auth: {
        subject: auth.subject,
        ...(auth.subjectKind !== undefined && { subjectKind: auth.subjectKind }),
        scopes: [...auth.scopes],
        ...(auth.clientId !== undefined && { clientId: auth.clientId }),
        ...(auth.expiresAt !== undefined && { expiresAt: auth.expiresAt }),
        ...(auth.claims !== undefined && { claims: auth.claims }),
      },
    }),
    ...(address !== undefined && { address }),
  }
}

/**
 * The channel of a background run: no peer to notify, aborted by tasks/cancel. It carries the creator's
 * identity (never the token), so the handler acts as the caller that created the task.
 */
class TaskExchange implements Exchange {
  readonly transport = 'memory' as const
  readonly auth: AuthInfo | undefined
  readonly remoteAddress: string | undefined
  readonly principal: Principal
  constructor(
    readonly signal: AbortSignal,
    identity: TaskIdentity,
  ) {
    this.auth = identity.auth && Object.freeze({ ...identity.auth })
    this.remoteAddress = identity.address
    this.principal = identity.principal
  }
  notify(): void {}
}

export class TaskEngine implements TaskHooks {
  readonly #options: TaskEngineOptions
  /** Runs on this instance, so a local cancel aborts at once. */
  readonly #running = new Map<string, { controller: AbortController; owner: OwnerKey }>()
  #closed = false
  #relayed: RelayedTasks | undefined

  constructor(options: TaskEngineOptions) {
    this.#options = options
  }

  get store(): TaskStore {
    return this.#options.store
  }

  get limits(): TaskLimits {
    return this.#options.limits
  }

  /** Tasks standing for an upstream's (a proxy's); undefined until `relayTo`. */
  get relayed(): RelayedTasks | undefined {
    return this.#relayed
  }

  /** Lets calls answered upstream with a task answer with a task of this server relayed to it (a proxy). */
  relayTo(relay: TaskRelay): void {
    const finish = this.#options.finish
    if (!finish) throw new Error('this task engine cannot check relayed results')
    this.#relayed = new RelayedTasks(relay, this, finish)
  }

  declared(ctx: RequestContext): boolean {
    return ctx.meta.clientCapabilities.extensions?.[TASKS_EXTENSION] !== undefined
  }

  async create(
    tool: CompiledTool,
    ctx: RequestContext,
    args: Record<string, unknown>,
    answers: Record<string, unknown>,
  ): Promise<ResultPayload> {
    const task = tool.task
    if (!task) throw new Error(`tool ${tool.name} does not run as a task`)
    const now = Date.now()
    const trace = await this.#options.telemetry?.capture()
    const record: TaskRecord = {
      taskId: crypto.randomUUID(),
      owner: taskOwner(ctx),
      identity: identityOf(ctx),
      tool: tool.name,
      arguments: args,
      meta: ctx.meta.raw,
      ...(trace && { trace }),
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: task.ttlMs,
      pollIntervalMs: task.pollIntervalMs,
      answers,
    }
    // Stored before the handle is returned, so an immediate tasks/get finds it (extensions/tasks §Tasks).
    const outcome = await this.store.create(record, this.#options.limits)
    if (outcome !== 'created') throw this.refusal(outcome, task.pollIntervalMs, task.ttlMs)
    this.resume(record.taskId, record.owner)
    return createTaskResult(record)
  }

  /**
   * 429 naming the limit. An unfinished task may finish at the next poll; stored ones leave when their
   * `ttlMs` passes, so the caller is told to come back within a minute rather than hammer the server.
   */
  refusal(outcome: Exclude<CreateOutcome, 'created'>, pollIntervalMs: number, ttlMs: number): Error {
    const { maxLive, maxStored, maxStoredBytes } = this.#options.limits
    if (outcome === 'live')
      return tooManyRequests(pollIntervalMs, `more than ${maxLive} unfinished tasks for this caller`)
    const later = Math.min(ttlMs, 60_000)
    if (outcome === 'stored')
      return tooManyRequests(
        later,
        `more than ${maxStored} stored tasks for this caller (finished ones count until they expire)`,
      )
    return tooManyRequests(
      later,
      `this caller's stored tasks would take more than ${maxStoredBytes} bytes (arguments, answers and results)`,
    )
  }

  /** Starts (or restarts, after new answers) a task's handler in the background on this instance. */
  resume(taskId: string, owner: OwnerKey): void {
    if (this.#closed || this.#running.has(taskId)) return
    const controller = new AbortController()
    this.#running.set(taskId, { controller, owner })
    void this.#run(taskId, owner, controller)
      .catch((error: unknown) =>
        this.#options.logger.error(`task ${taskId} failed`, { error: String(error) }),
      )
      .finally(() => this.#running.delete(taskId))
  }

  /** Aborts the handler if it runs here; other instances notice through the store. */
  abortLocal(taskId: string): void {
    this.#running.get(taskId)?.controller.abort(new Error('task cancelled'))
  }

  /** Stops local runs; their tasks are marked failed so that no client waits for them forever. */
  async close(): Promise<void> {
    this.#closed = true
    const running = [...this.#running.entries()]
    for (const [, run] of running) run.controller.abort(new Error('server shutting down'))
    await Promise.all(
      running.map(([taskId, run]) =>
        this.store
          .transition(taskId, run.owner, {
            from: ['working'],
            to: 'failed',
            set: {
              error: { code: ErrorCode.InternalError, message: 'The server shut down while the task ran' },
            },
          })
          .catch(() => undefined),
      ),
    )
  }

  async #run(taskId: string, owner: OwnerKey, controller: AbortController): Promise<void> {
    const store = this.store
    const task = await store.get(taskId, owner)
    // A task standing for an upstream's is relayed, never run here.
    if (!task || task.status !== 'working' || task.upstream) return
    const watch = setInterval(() => {
      store.get(taskId, owner).then(
        (current) => {
          if (!current || current.status === 'cancelled') controller.abort(new Error('task cancelled'))
        },
        () => undefined,
      )
    }, this.#options.watchIntervalMs)
    watch.unref()
    try {
      const telemetry = this.#options.telemetry
      const outcome = telemetry
        ? await telemetry.run(task, async () => {
            const value = await this.#execute(task, controller.signal)
            return { value, end: runEnd(value) }
          })
        : await this.#execute(task, controller.signal)
      if (outcome.kind === 'again') {
        // `retryLater()` inside a task: run again after the suggested polling interval.
        setTimeout(() => this.resume(taskId, owner), task.pollIntervalMs).unref()
        return
      }
      await store.transition(taskId, owner, outcome.change)
    } finally {
      clearInterval(watch)
    }
  }

  async #execute(task: TaskRecord, signal: AbortSignal): Promise<RunOutcome> {
    const params: Record<string, unknown> = {
      name: task.tool,
      // Stored as JSON, read back as plain objects: `"__proto__"` keys go on as data (wire/data-keys.ts).
      arguments: withDataKeys(task.arguments),
      inputResponses: task.answers,
      _meta: task.meta,
    }
    const ctx = new RequestContext(
      `task-${task.taskId}`,
      'tools/call',
      params,
      parseRequestMeta(params),
      new TaskExchange(signal, task.identity),
      this.#options.codec,
    )
    ctx.attachTask({ id: task.taskId, start: () => Promise.resolve() })
    try {
      const payload = await this.#options.call(ctx)
      const result = { ...(payload as Record<string, unknown>) }
      delete result.resultType
      return { kind: 'change', change: { from: ['working'], to: 'completed', set: { result } } }
    } catch (error) {
      if (error instanceof InputRequired) {
        const inputRequests = error.result.inputRequests
        if (!isRecord(inputRequests)) return { kind: 'again' }
        return {
          kind: 'change',
          change: {
            from: ['working'],
            to: 'input_required',
            set: { inputRequests: inputRequests as Record<string, InputRequest> },
          },
        }
      }
      const failure = isAnswerError(error)
        ? error.toJSON()
        : { code: ErrorCode.InternalError, message: `Internal error (ref ${this.#report(task, error)})` }
      return {
        kind: 'change',
        change: { from: ['working'], to: 'failed', set: { error: failure, statusMessage: failure.message } },
      }
    }
  }

  #report(task: TaskRecord, error: unknown): string {
    const ref = crypto.randomUUID().slice(0, 8)
    this.#options.logger.error(`task ${task.taskId} (tool ${task.tool}) failed (ref ${ref})`, {
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    })
    return ref
  }
}
