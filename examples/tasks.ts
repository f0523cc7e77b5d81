// A long-running tool as a task: the client gets a task, polls it, answers its question, reads the result.
import assert from 'node:assert/strict'
import { setTimeout as delay } from 'node:timers/promises'
import { z } from 'zod'
import { defineServer, defineTool, MemoryTaskStore } from 'toolwire'
import { connect, TaskHandle } from 'toolwire/client'
import { serveNode } from 'toolwire/node'

/** Stands in for real work (a CI pipeline, a batch job); stops when the task is cancelled. */
const runPipeline = (version: string, options: { signal: AbortSignal }): Promise<void> =>
  delay(50 + version.length, undefined, options)

// #region server
const release = defineTool({
  name: 'release',
  inputSchema: z.object({ version: z.string() }),
  task: { support: 'optional', ttlMs: 86_400_000, pollIntervalMs: 100 }, // or just 'optional' | 'required'
  handler: async ({ version }, ctx) => {
    await runPipeline(version, { signal: ctx.signal }) // aborted by tasks/cancel
    const answer = await ctx.input.elicit({
      message: `Publish ${version}?`,
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    })
    return answer.content?.ok ? `Published ${version}` : 'Not published'
  },
})
const server = defineServer({
  name: 'ci',
  version: '1.0.0',
  tools: [release],
  // SqliteTaskStore (toolwire/sqlite) survives restarts; RedisTaskStore (toolwire/redis) spans instances.
  tasks: { store: new MemoryTaskStore(), maxLivePerPrincipal: 20 },
  requestState: { secret: process.env.STATE_SECRET ?? 'an example secret of at least 32 characters' },
})
// #endregion server

const running = await serveNode(server, { port: 0 })
const statuses: string[] = []
// #region client
const client = connect(
  { url: running.url },
  { handlers: { elicitation: async () => ({ action: 'accept', content: { ok: true } }) } },
)
// callTool polls the task at the server's pollIntervalMs and resolves to its final result.
const result = await client.callTool(
  'release',
  { version: '1.2.0' },
  { onTaskStatus: (task) => statuses.push(task.status) },
)
// #endregion client
assert.deepEqual(result.content, [{ type: 'text', text: 'Published 1.2.0' }])
assert.ok(statuses.includes('input_required'), `statuses seen: ${statuses.join(', ')}`)
assert.equal(statuses.at(-1), 'completed')

// { task: true } hands back the task itself, to come back to later (client.task(taskId)).
const handle = await client.callTool('release', { version: '2.0.0' }, { task: true })
assert.ok(handle instanceof TaskHandle) // a plain result when the server did not make a task
await handle.cancel()
assert.equal((await handle.get()).status, 'cancelled')
await client.close()
await running.close()
console.log('tasks: ok')
