/**
 * Tasks that run elsewhere: a proxy's upstream answered a tools/call with a task, and the downstream caller
 * gets a task of this server's own that stands for it (extensions/tasks §Tasks). tasks/get, tasks/update and
 * tasks/cancel on it are relayed to the upstream task; its status, questions, result and failure come back
 * cleaned and checked like any output of the tool.
 *
 * Why a record in the task store rather than the upstream id sealed into the downstream id: the store already
 * files every task under the whole principal's owner key (another principal's id reads exactly like an
 * unknown one), forgets it when its `ttlMs` passes, and counts each principal's live and stored tasks, so the
 * task limits bound how many upstream tasks one caller can make the proxy track. A sealed id could be checked
 * but never counted, and would keep working after the caller's last look. The downstream id is a fresh random
 * UUID: all the downstream can send is that id, and only its creator's owner key finds the record that holds
 * the upstream id, so no upstream task is reachable but the ones a caller was given.
 */
import type { RequestContext } from '../../protocol/context.js'
import { missingCapabilityFor } from '../../protocol/mrtr/responses.js'
import { parseRequestMeta } from '../../protocol/request-meta.js'
import {
  isAnswerError,
  McpError,
  missingCapability,
  upstreamError,
  upstreamUnavailable,
} from '../../wire/errors.js'
import type { ClientCapabilities, InputRequest } from '../../wire/types.js'
import type { TaskEngine } from './engine.js'
import { TERMINAL, type TaskRecord, type TaskStatus, type TaskTransition } from './store.js'
import { createTaskResult } from './wire.js'

/** Which upstream task a relayed task stands for: `via` names the upstream (a gateway member), `taskId` its id there. */
export interface UpstreamTaskRef {
  readonly via: string
  readonly taskId: string
}

/** What the upstream says of its task now, every string already cleaned by the relay. */
export interface RelayedState {
  readonly status: TaskStatus
  readonly statusMessage?: string
  readonly inputRequests?: Record<string, InputRequest>
  /** The tool result once completed, still to be checked against the tool's output contract. */
  readonly result?: Record<string, unknown>
  readonly error?: { code: number; message: string; data?: unknown }
}

/** The upstream side, implemented by the proxy. Each call runs for the downstream request `ctx`. */
export interface TaskRelay {
  /**
   * Whether this server reaches the upstream `ref.via` names. A task another server made (one sharing the
   * store, with another upstream, or another instance's own stdio process) is none of this one's business:
   * it reads as unknown here, and is left as it is.
   */
  knows(ref: UpstreamTaskRef): boolean
  /** The task as the upstream has it now; undefined when the upstream no longer knows it (it restarted). */
  get(ref: UpstreamTaskRef, ctx: RequestContext): Promise<RelayedState | undefined>
  update(ref: UpstreamTaskRef, inputResponses: Record<string, unknown>, ctx: RequestContext): Promise<void>
  /** Asks the upstream to cancel; false when it no longer knows the task. */
  cancel(ref: UpstreamTaskRef, ctx: RequestContext): Promise<boolean>
}

/** The task the upstream answered a call with, as created. */
export interface CreatedUpstreamTask {
  readonly taskId: string
  readonly ttlMs: number | null
  readonly pollIntervalMs?: number
  readonly statusMessage?: string
}

/** How long a relayed task is kept when the upstream gives no ttl (the default of a task tool). */
const DEFAULT_TTL_MS = 3_600_000
const DEFAULT_POLL_MS = 1000

const positiveInteger = (value: unknown): value is number => Number.isInteger(value) && (value as number) > 0

/** Checks a finished tool result the way the server checks its own tools' results. */
export type FinishResult = (tool: string, result: Record<string, unknown>) => Promise<Record<string, unknown>>

export class RelayedTasks {
  readonly #relay: TaskRelay
  readonly #engine: TaskEngine
  readonly #finish: FinishResult

  constructor(relay: TaskRelay, engine: TaskEngine, finish: FinishResult) {
    this.#relay = relay
    this.#engine = engine
    this.#finish = finish
  }

  /**
   * Stores a task standing for the upstream's and returns its `CreateTaskResult`. A caller past its task
   * limits gets the same 429 as for a local task; the proxy then cancels the upstream task.
   */
  async adopt(
    ctx: RequestContext,
    tool: string,
    created: CreatedUpstreamTask,
    via: string,
  ): Promise<Record<string, unknown>> {
    const now = Date.now()
    const record: TaskRecord = {
      taskId: crypto.randomUUID(),
      owner: ctx.ownerKey,
      // Never run here, so only who owns it is kept: no scopes, claims or address.
      identity: { principal: ctx.principal },
      tool,
      arguments: {},
      // The creating request's capabilities decide which upstream questions its caller may be asked.
      meta: ctx.meta.raw,
      status: 'working',
      ...(created.statusMessage !== undefined && { statusMessage: created.statusMessage }),
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: positiveInteger(created.ttlMs) ? created.ttlMs : DEFAULT_TTL_MS,
      pollIntervalMs: positiveInteger(created.pollIntervalMs) ? created.pollIntervalMs : DEFAULT_POLL_MS,
      answers: {},
      upstream: { via, taskId: created.taskId },
    }
    const outcome = await this.#engine.store.create(record, this.#engine.limits)
    if (outcome !== 'created') throw this.#engine.refusal(outcome, record.pollIntervalMs, record.ttlMs)
    return createTaskResult(record)
  }

  /** Whether this server can relay `task` (see `TaskRelay.knows`). */
  reaches(task: TaskRecord): boolean {
    return task.upstream !== undefined && this.#relay.knows(task.upstream)
  }

  /** The task as the upstream has it now, stored; a finished one is answered from the store alone. */
  async refresh(task: TaskRecord, ctx: RequestContext): Promise<TaskRecord> {
    const ref = task.upstream
    if (!ref || TERMINAL.has(task.status)) return task
    const state = await this.#masked(task, () => this.#relay.get(ref, ctx))
    const change = await this.#changeFor(task, state, ctx)
    if (!change) return task
    return (await this.#engine.store.transition(task.taskId, task.owner, change)) ?? task
  }

  /** Relays the answers to the questions still open (others are ignored, as for a local task). */
  async update(
    task: TaskRecord,
    inputResponses: Record<string, unknown>,
    ctx: RequestContext,
  ): Promise<void> {
    const ref = task.upstream
    const open = task.inputRequests ?? {}
    const answers = Object.fromEntries(
      Object.entries(inputResponses).filter(([key]) => Object.hasOwn(open, key)),
    )
    if (!ref || Object.keys(answers).length === 0) return
    await this.#masked(task, () => this.#relay.update(ref, answers, ctx))
  }

  /** Relays the cancel, then stores what the upstream says (a task that finished first stays finished). */
  async cancel(task: TaskRecord, ctx: RequestContext): Promise<void> {
    const ref = task.upstream
    if (!ref || TERMINAL.has(task.status)) return
    const known = await this.#masked(task, () => this.#relay.cancel(ref, ctx))
    const after = known ? await this.refresh(task, ctx) : task
    if (!TERMINAL.has(after.status))
      await this.#engine.store.transition(task.taskId, task.owner, {
        from: ['working', 'input_required'],
        to: 'cancelled',
        set: { statusMessage: 'Cancelled by the client' },
      })
  }

  async #changeFor(
    task: TaskRecord,
    state: RelayedState | undefined,
    ctx: RequestContext,
  ): Promise<TaskTransition | undefined> {
    const from: TaskStatus[] = ['working', 'input_required']
    if (!state) {
      return {
        from,
        to: 'failed',
        set: failure(upstreamLost()),
      }
    }
    const message = state.statusMessage !== undefined ? { statusMessage: state.statusMessage } : {}
    switch (state.status) {
      case 'working':
        if (task.status === 'working' && sameMessage(task, state)) return undefined
        return { from, to: 'working', set: message }
      case 'input_required': {
        const inputRequests = state.inputRequests ?? {}
        const refused = this.#undeclared(task, inputRequests)
        if (refused) {
          // The same rule as a direct call: a caller that did not declare a capability gets the upstream's
          // question refused (-32021), and the upstream task is not left waiting for an answer never coming.
          await this.#relay.cancel(task.upstream as UpstreamTaskRef, ctx).catch(() => false)
          return { from, to: 'failed', set: failure(missingCapability(refused).toJSON()) }
        }
        if (
          task.status === 'input_required' &&
          JSON.stringify(task.inputRequests) === JSON.stringify(inputRequests) &&
          sameMessage(task, state)
        )
          return undefined
        return { from, to: 'input_required', set: { ...message, inputRequests } }
      }
      case 'completed':
        try {
          const result = await this.#finish(task.tool, state.result ?? {})
          return { from, to: 'completed', set: { ...message, result } }
        } catch (error) {
          if (!isAnswerError(error)) throw error
          return { from, to: 'failed', set: failure(error.toJSON()) }
        }
      case 'failed':
        return { from, to: 'failed', set: failure(state.error ?? upstreamLost()) }
      case 'cancelled':
        return { from, to: 'cancelled', set: message }
    }
  }

  /** The capability a question needs that the creating request did not declare, if any. */
  #undeclared(
    task: TaskRecord,
    inputRequests: Record<string, InputRequest>,
  ): Record<string, unknown> | undefined {
    let caps: ClientCapabilities = {}
    try {
      caps = parseRequestMeta({ _meta: task.meta }).clientCapabilities
    } catch {
      // A record without a parsable `_meta` declared nothing.
    }
    for (const request of Object.values(inputRequests)) {
      const needed = missingCapabilityFor(request, caps)
      if (needed) return needed
    }
    return undefined
  }

  /**
   * Runs a relay call; an upstream protocol error keeps its code, with the upstream's task id replaced by
   * the downstream one (the caller knows no other).
   */
  async #masked<T>(task: TaskRecord, call: () => Promise<T>): Promise<T> {
    try {
      return await call()
    } catch (error) {
      const upstreamId = task.upstream?.taskId
      // A short id could stand for any text in the message: only an id as long as a UUID's first part is swapped.
      if (!(error instanceof McpError) || upstreamId === undefined || upstreamId.length < 8) throw error
      const swap = (value: unknown): unknown => {
        if (typeof value === 'string') return value.split(upstreamId).join(task.taskId)
        if (Array.isArray(value)) return value.map(swap)
        if (typeof value !== 'object' || value === null) return value
        return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, swap(item)]))
      }
      throw upstreamError(error.code, swap(error.message) as string, swap(error.data))
    }
  }
}

/** A task the upstream no longer knows: it restarted, or the task expired there. */
const upstreamLost = (): { code: number; message: string; data?: unknown } =>
  upstreamUnavailable(
    'the upstream no longer knows this task (it restarted, or the task expired there)',
  ).toJSON()

/** Nothing new to say: the upstream's message (when it gives one) is the one stored. */
const sameMessage = (task: TaskRecord, state: RelayedState): boolean =>
  state.statusMessage === undefined || state.statusMessage === task.statusMessage

function failure(error: {
  code: number
  message: string
  data?: unknown
}): NonNullable<TaskTransition['set']> {
  return { error, statusMessage: error.message }
}
