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
import { TERMINAL } from './store.js'
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

export function taskMethods(engine: TaskEngine): Record<string, MethodSpec> {
  const store = engine.store
  return {
    'tasks/get': {
      nameParam: 'taskId',
      handler: async (ctx) => {
        const taskId = taskIdOf(ctx, engine)
        const task = await store.get(taskId, taskOwner(ctx))
        if (!task) throw unknownTask(taskId)
        return detailedTask(task)
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
        const current = await store.get(taskId, owner)
        if (!current) throw unknownTask(taskId)
        if (current.status !== 'input_required')
          throw invalidParams(`Task ${taskId} is not waiting for input (status: ${current.status})`, {
            taskId,
            status: current.status,
          })
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
