/**
 * Upstream tasks passed through (extensions/tasks). When a downstream caller declares the tasks extension
 * and the upstream answers its call with a task, the caller gets a task of the proxy's own that stands for
 * it (features/tasks/relayed.ts says why it is a record in the proxy's task store); tasks/get, tasks/update
 * and tasks/cancel on it reach the upstream task here. What the upstream says is untrusted like any upstream
 * output: status messages, questions and errors are stripped of control characters and escape sequences,
 * and the result goes through the downstream tool's output pipeline. A 2025-era upstream's task is relayed
 * too: its questions come on a tasks/result request the proxy holds (legacy-task-questions.ts). A caller
 * without the extension keeps the plain call: the proxy waits for the task.
 */
import type { Client } from '../client/client.js'
import { runsToolCallsAsTasks } from '../client/legacy-tasks.js'
import { type TaskHandle, TASKS_EXTENSION, type TaskState } from '../client/tasks.js'
import type { TaskEngine } from '../features/tasks/engine.js'
import type { RelayedState, TaskRelay, UpstreamTaskRef } from '../features/tasks/relayed.js'
import type { RequestContext } from '../protocol/context.js'
import { RelayedTask } from '../protocol/task-control.js'
import { stripControls } from '../security/sanitize.js'
import { ErrorCode, McpError, upstreamUnavailable } from '../wire/errors.js'
import { isRecord } from '../wire/jsonrpc.js'
import type { CallToolResult, InputRequest, ServerCapabilities } from '../wire/types.js'
import { cleanStrings } from './clean.js'
import { LegacyTaskQuestions } from './legacy-task-questions.js'
import type { ProxyTarget } from './link.js'
import type { Upstream } from './upstream.js'

/** How long the proxy waits for the upstream to take back a task it could not keep (a refused one). */
const CANCEL_WAIT_MS = 5000

const INPUT_METHODS = new Set(['elicitation/create', 'sampling/createMessage', 'roots/list'])

/**
 * Whether an upstream may answer calls with tasks the proxy can pass through: a 2026-07-28 server with the
 * extension, or a 2025-11-25 server that runs tool calls as tasks.
 */
export function offersTasks(capabilities: ServerCapabilities): boolean {
  return capabilities.extensions?.[TASKS_EXTENSION] !== undefined || offersLegacyTasks(capabilities)
}

/** Whether a 2025-era upstream runs tool calls as tasks (2025-11-25 §Capabilities: `tasks.requests.tools.call`). */
export function offersLegacyTasks(capabilities: ServerCapabilities): boolean {
  return runsToolCallsAsTasks(capabilities)
}

/** Where a mirrored tool's task answers go: the downstream server's task engine, and the upstream's name. */
export interface TaskPassThrough {
  readonly engine: TaskEngine
  readonly via: string
}

/** True when this call may be answered with a relayed task: the proxy relays tasks and the caller declared them. */
export function passesTasks(tasks: TaskPassThrough | undefined, ctx: RequestContext): boolean {
  return tasks?.engine.relayed !== undefined && tasks.engine.declared(ctx)
}

/**
 * Ends a mirrored call with the downstream task standing for the upstream's `handle`. When the caller is
 * past its task limits the upstream task is cancelled (nobody could follow it) and the 429 goes downstream.
 */
export async function answerWithTask(
  tasks: TaskPassThrough,
  ctx: RequestContext,
  tool: string,
  handle: TaskHandle,
): Promise<never> {
  const relayed = tasks.engine.relayed
  if (!relayed) throw new Error('this proxy does not relay tasks')
  const created = handle.created
  let answer: Record<string, unknown>
  try {
    answer = await relayed.adopt(
      ctx,
      tool,
      {
        taskId: created.taskId,
        ttlMs: created.ttlMs,
        ...(created.pollIntervalMs !== undefined && { pollIntervalMs: created.pollIntervalMs }),
        ...(typeof created.statusMessage === 'string' && {
          statusMessage: stripControls(created.statusMessage),
        }),
      },
      tasks.via,
    )
  } catch (error) {
    await handle.cancel(AbortSignal.timeout(CANCEL_WAIT_MS)).catch(() => undefined)
    throw error
  }
  throw new RelayedTask(answer)
}

/** -32602 from the upstream's tasks methods: the task is unknown or expired there. */
const unknownThere = (error: unknown): boolean =>
  error instanceof McpError && error.code === ErrorCode.InvalidParams

const names = new WeakMap<Upstream, string>()

/**
 * How relayed tasks name `upstream` (`name`: a gateway member's, '' for a proxy). An HTTP upstream is the
 * same server for every instance sharing a task store, so its name is enough; a stdio process (or a
 * `target` function's client) belongs to this instance alone, so its name gets a random suffix: another
 * instance then reads its tasks as unknown instead of asking its own process, which never had them. So
 * does a 2025-era upstream's (`heldHere`): its tasks' questions come on a request this instance holds.
 */
export function relayName(upstream: Upstream, name: string, target: ProxyTarget, heldHere = false): string {
  let relayed = names.get(upstream)
  if (relayed === undefined) {
    const shared = typeof target !== 'function' && 'url' in target && !heldHere
    relayed = shared ? name : `${name}#${crypto.randomUUID()}`
    names.set(upstream, relayed)
  }
  return relayed
}

/** How many 2025-era upstream tasks one upstream may have held (`UpstreamSpec`). */
export interface HeldTaskBounds {
  readonly maxHeldTasks?: number | undefined
  readonly maxHeldTasksPerPrincipal?: number | undefined
}

/** Relays downstream task requests to the upstream named by each task's `via`. */
export class UpstreamTaskRelay implements TaskRelay {
  readonly #upstreams: ReadonlyMap<string, Upstream>
  /** The held questions of each 2025-era upstream's tasks (legacy-task-questions.ts), by `via`. */
  readonly #held = new Map<string, LegacyTaskQuestions>()

  /** `bounds`: each upstream's `maxHeldTasks` and `maxHeldTasksPerPrincipal` (`UpstreamSpec`), by `via`. */
  constructor(
    upstreams: ReadonlyMap<string, Upstream>,
    bounds: ReadonlyMap<string, HeldTaskBounds> = new Map(),
  ) {
    this.#upstreams = upstreams
    for (const via of upstreams.keys()) {
      const bound = bounds.get(via)
      this.#held.set(via, new LegacyTaskQuestions(bound?.maxHeldTasks, bound?.maxHeldTasksPerPrincipal))
    }
  }

  knows(ref: UpstreamTaskRef): boolean {
    return this.#upstreams.has(ref.via)
  }

  async get(ref: UpstreamTaskRef, ctx: RequestContext): Promise<RelayedState | undefined> {
    const upstream = this.#upstreams.get(ref.via)
    if (!upstream) return undefined
    let state: TaskState
    let asked: Client | undefined
    try {
      state = await upstream.useFor(ctx, (client) => {
        asked = client
        return handleOf(client, ref).get(ctx.signal)
      })
    } catch (error) {
      if (unknownThere(error)) {
        this.#questionsOf(ref).release(ref.taskId)
        return undefined
      }
      throw error
    }
    if (asked?.legacy) return this.#legacyState(ref, asked, state, upstream, ctx)
    return cleanState(state, upstream.label)
  }

  async update(
    ref: UpstreamTaskRef,
    inputResponses: Record<string, unknown>,
    ctx: RequestContext,
  ): Promise<void> {
    const upstream = this.#upstreams.get(ref.via)
    if (!upstream) return
    await upstream.useFor(ctx, async (client) => {
      // A 2025-era task's questions wait on the held tasks/result: the answers go there.
      if (client.legacy) this.#questionsOf(ref).answer(ref.taskId, inputResponses)
      else await handleOf(client, ref).update(inputResponses, ctx.signal)
    })
  }

  async cancel(ref: UpstreamTaskRef, ctx: RequestContext): Promise<boolean> {
    const upstream = this.#upstreams.get(ref.via)
    if (!upstream) return false
    try {
      await upstream.useFor(ctx, (client) => handleOf(client, ref).cancel(ctx.signal))
      return true
    } catch (error) {
      if (unknownThere(error)) return false
      throw error
    } finally {
      this.#questionsOf(ref).release(ref.taskId)
    }
  }

  #questionsOf(ref: UpstreamTaskRef): LegacyTaskQuestions {
    return this.#held.get(ref.via) as LegacyTaskQuestions
  }

  /**
   * A 2025-era upstream's task as the downstream sees it. Its questions are the held request's; until the
   * first arrives (or while `maxHeldTasks` others are held) the task reads as working. Its end is what
   * tasks/result returns: a result (a tool error too, which the 2025-11-25 revision calls `failed`)
   * completes it, a protocol error fails it.
   */
  async #legacyState(
    ref: UpstreamTaskRef,
    client: Client,
    state: TaskState,
    upstream: Upstream,
    ctx: RequestContext,
  ): Promise<RelayedState> {
    const questions = this.#questionsOf(ref)
    switch (state.status) {
      case 'input_required': {
        // Filed under the task's owner: only its owner's requests reach here (the task store checks).
        const open = questions.hold(ref.taskId, ctx.ownerKey, client, ref.taskId, state.ttlMs)
        const asking = open !== undefined && Object.keys(open).length > 0
        return cleanState(
          asking ? { ...state, inputRequests: open } : { ...state, status: 'working' },
          upstream.label,
        )
      }
      case 'completed':
      case 'failed': {
        // The task has ended: a hold whose request has not returned yet is let go, freeing its slot.
        questions.release(ref.taskId)
        const outcome = await upstream.useFor(ctx, (asked) => outcomeOf(asked, ref.taskId, ctx.signal))
        if ('error' in outcome)
          return cleanState({ ...state, status: 'failed', error: outcome.error }, upstream.label)
        return cleanState(
          { ...state, status: 'completed', result: outcome.result as unknown as CallToolResult },
          upstream.label,
        )
      }
      case 'cancelled':
        questions.release(ref.taskId)
        return cleanState(state, upstream.label)
      default:
        return cleanState(state, upstream.label)
    }
  }
}

/** A finished 2025-era task's outcome, from tasks/result (2025-11-25 §Result Retrieval). */
async function outcomeOf(
  client: Client,
  taskId: string,
  signal: AbortSignal,
): Promise<
  { result: Record<string, unknown> } | { error: { code: number; message: string; data?: unknown } }
> {
  try {
    return { result: await client.request('tasks/result', { taskId }, { signal }) }
  } catch (error) {
    if (!(error instanceof McpError)) throw error
    return {
      error: {
        code: error.code,
        message: error.message,
        ...(error.data !== undefined && { data: error.data }),
      },
    }
  }
}

const handleOf = (client: Client, ref: UpstreamTaskRef): TaskHandle => client.task(ref.taskId)

/**
 * The upstream's task as the downstream may see it: strings cleaned, questions checked. A question that is
 * not one of the three input requests, or whose key would change when cleaned (answers are relayed under
 * the upstream's keys), fails the task instead of reaching the caller.
 */
function cleanState(state: TaskState, label: string): RelayedState {
  const message =
    typeof state.statusMessage === 'string' ? { statusMessage: stripControls(state.statusMessage) } : {}
  switch (state.status) {
    case 'input_required': {
      const inputRequests: Record<string, InputRequest> = {}
      for (const [key, request] of Object.entries(state.inputRequests ?? {})) {
        const wellFormed =
          stripControls(key) === key &&
          isRecord(request) &&
          INPUT_METHODS.has(request.method as string) &&
          (request.params === undefined || isRecord(request.params))
        if (!wellFormed)
          return {
            status: 'failed',
            error: upstreamUnavailable(`${label} asked a malformed question in a task`).toJSON(),
          }
        inputRequests[key] = cleanStrings(request) as unknown as InputRequest
      }
      return { status: 'input_required', ...message, inputRequests }
    }
    case 'completed':
      return { status: 'completed', ...message, ...(isRecord(state.result) && { result: state.result }) }
    case 'failed': {
      const error = state.error
      const code = Number.isInteger(error?.code) ? (error?.code as number) : ErrorCode.InternalError
      return {
        status: 'failed',
        ...message,
        error: {
          code,
          message: stripControls(
            typeof error?.message === 'string' ? error.message : `${label}: the task failed`,
          ),
          ...(error?.data !== undefined && { data: cleanStrings(error.data) }),
        },
      }
    }
    default:
      return { status: state.status, ...message }
  }
}
