/** `toolwire task get|cancel <target> <taskId>`: look at or stop a task a long-running tool started. */
import type { Command } from 'commander'
import type { TaskState } from '../../client/index.js'
import { UsageError } from '../client/target.js'
import { type CommonFlags, say, withClient } from './client.js'

/** One line per status change, e.g. `task 1f0c…: input_required (Approve?)`. */
export function taskStatusLine(task: TaskState): string {
  return `task ${task.taskId}: ${task.status}${task.statusMessage ? ` (${task.statusMessage})` : ''}`
}

function taskIdOf(rest: string[]): string {
  const [taskId, ...extra] = rest
  if (!taskId) throw new UsageError('give the task id')
  if (extra.length > 0) throw new UsageError(`unexpected operands: ${extra.join(' ')}`)
  return taskId
}

export function registerTaskCommands(program: Command, common: (command: Command) => Command): void {
  const task = program.command('task').description('look at or cancel a task started by a long-running tool')
  common(
    task
      .command('get')
      .description(
        'show a task: toolwire task get <url> <taskId>  or  toolwire task get <taskId> -- <command>',
      )
      .argument('[operands...]', 'URL and task id'),
  ).action(async (operands: string[], flags: CommonFlags) =>
    withClient(operands, flags, async (client, target) => {
      const state = await client.task(taskIdOf(target.rest)).get()
      if (flags.json) {
        console.log(JSON.stringify(state, null, 2))
        return 0
      }
      console.log(taskStatusLine(state))
      console.log(`created ${state.createdAt}, updated ${state.lastUpdatedAt}`)
      if (state.inputRequests) console.log(`waiting for: ${Object.keys(state.inputRequests).join(', ')}`)
      if (state.result) console.log(JSON.stringify(state.result, null, 2))
      if (state.error) console.log(`error ${state.error.code}: ${state.error.message}`)
      return state.status === 'failed' ? 1 : 0
    }),
  )
  common(
    task
      .command('cancel')
      .description('ask the server to cancel a task: toolwire task cancel <url> <taskId>')
      .argument('[operands...]', 'URL and task id'),
  ).action(async (operands: string[], flags: CommonFlags) =>
    withClient(operands, flags, async (client, target) => {
      const taskId = taskIdOf(target.rest)
      await client.task(taskId).cancel()
      say(`Cancellation of task ${taskId} requested.`)
      return 0
    }),
  )
}
