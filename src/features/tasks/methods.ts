/**
 * tasks/get, tasks/update and tasks/cancel (extensions/tasks §Getting Tasks, §Updating Tasks, §Cancelling
 * Tasks). Each is served only to a request that declares the extension (-32021 otherwise), and an unknown,
 * expired or another principal's task id is -32602. `tasks/list` and `tasks/result` do not exist in this
 * revision of the extension, so they stay "method not found".
 */
import type { MethodSpec } from '../../protocol/dispatcher.js'
import type { RequestContext } from '../../protocol/context.js'
import { invalidParams, missingCapability, notFound } from '../../wire/errors.js'
import { isRecord } from '../../wire/jsonrpc.js'
import { taskOwner, type TaskEngine } from './engine.js'
import { TERMINAL, type TaskRecord } from './store.js'
import { detailedTask, TASKS_EXTENSION } from './wire.js'

const ACK = { resultType: 'complete' }

function taskIdOf(ctx: RequestContext, engine: TaskEngine): string {
  if (!engine.declared(ctx))
    throw missingCapability(
      { extensions: { [TASKS_EXTENSION]: {} } },
      `${ctx.method} needs the ${TASKS_EXTENSION} extension in the request's client capabilities`,
    )
  const { taskId } = ctx.params
  if (typeof taskId !== 'string' || taskId === '')
    throw invalidParams('Invalid params: taskId must be a non-empty string')
  return taskId
}

const unknownTask = (taskId: string) => notFound(`Unknown task: ${taskId}`, { taskId })

/**
 * The task filed under this caller; a task standing for an upstream's reads as unknown on a server that
 * cannot relay it to that upstream (a store shared with another server): it must never run here.
 */
async function findTask(ctx: RequestContext, engine: TaskEngine, taskId: string): Promise<TaskRecord> {
  const task = await engine.store.get(taskId, taskOwner(ctx))
  if (!task || (task.upstream && !engine.relayed?.reaches(task))) throw unknownTask(taskId)
  return task
}

export function taskMethods(engine: TaskEngine): Record<string, MethodSpec> {
  const store = engine.store
  return {
    'tasks/get': {
      nameParam: 'taskId',
      handler: async (ctx) => {
        const taskId = taskIdOf(ctx, engine)
        const task = await findTask(ctx, engine, taskId)
        const relayed = task.upstream && engine.relayed
        return detailedTask(relayed ? await relayed.refresh(task, ctx) : task)
      },
    },
    'tasks/update': {
      nameParam: 'taskId',
      handler: async (ctx) => {
        const taskId = taskIdOf(ctx, engine)
        const { inputResponses } = ctx.params
        if (!isRecord(inputResponses))
          throw invalidParams('Invalid params: inputResponses must be an object keyed by input request')
        const owner = taskOwner(ctx)
        const current = await findTask(ctx, engine, taskId)
        if (current.status !== 'input_required')
          throw invalidParams(`Task ${taskId} is not waiting for input (status: ${current.status})`, {
            taskId,
            status: current.status,
          })
        const relayed = current.upstream && engine.relayed
        if (relayed) {
          await relayed.update(current, inputResponses, ctx)
          return { ...ACK }
        }
        const outcome = await store.answer(taskId, owner, inputResponses)
        if (!outcome) throw unknownTask(taskId)
        if (outcome.resume) engine.resume(taskId, owner)
        return { ...ACK }
      },
    },
    'tasks/cancel': {
      nameParam: 'taskId',
      handler: async (ctx) => {
        const taskId = taskIdOf(ctx, engine)
        const owner = taskOwner(ctx)
        const current = await findTask(ctx, engine, taskId)
        const relayed = current.upstream && engine.relayed
        if (relayed) {
          await relayed.cancel(current, ctx)
          return { ...ACK }
        }
        const task = await store.transition(taskId, owner, {
          from: ['working', 'input_required'],
          to: 'cancelled',
          set: { statusMessage: 'Cancelled by the client' },
        })
        if (!task) throw unknownTask(taskId)
        // Idempotent: a finished task gets the same empty acknowledgement (§Cancelling Tasks).
        if (!TERMINAL.has(task.status) || task.status === 'cancelled') engine.abortLocal(taskId)
        return { ...ACK }
      },
    },
  }
}
