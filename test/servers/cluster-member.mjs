// One member of the cluster test: `toolwire serve` calls this factory with the Redis-backed pieces it
// opened (--redis, --secret-env), so every instance shares changes, handles, rate limits and the secret.
import { defineHandles, defineServer, defineTool, jsonSchema } from '../../dist/index.js'

export default function clusterMember(member) {
  const counters = defineHandles({ kind: 'counter', createTool: 'counter_create', store: member.handleStore })
  const counterId = { type: 'string', description: 'A counter handle' }
  const tools = [
    defineTool({
      name: 'whoami',
      description: 'Names the instance that answered',
      handler: () => ({ content: [{ type: 'text', text: String(process.pid) }] }),
    }),
    defineTool({
      name: 'counter_create',
      description: counters.describe('Creates a counter at zero.'),
      handler: async (_args, ctx) => await counters.create(ctx, { n: 0 }),
    }),
    defineTool({
      name: 'counter_add',
      description: 'Adds one to a counter and returns the new value.',
      inputSchema: jsonSchema({ type: 'object', properties: { id: counterId }, required: ['id'] }),
      handler: async ({ id }, ctx) => String((await counters.update(ctx, id, (c) => ({ n: c.n + 1 }))).n),
    }),
    defineTool({
      name: 'ask_name',
      description: 'Asks the user for their name, then greets them',
      handler: async (_args, ctx) => {
        const answer = await ctx.input.elicit({
          message: 'Your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        })
        return answer.action === 'accept'
          ? `Hello, ${answer.content?.name}! (from ${process.pid})`
          : 'No name'
      },
    }),
    defineTool({
      name: 'announce_change',
      description: 'Tells every listener on every instance that the tool list changed',
      handler: () => {
        server.changes.publish({ type: 'tools/list_changed' })
        return 'announced'
      },
    }),
    defineTool({
      name: 'shout',
      description: 'Logs a warning and an error naming the instance, then answers with its pid',
      handler: (_args, ctx) => {
        ctx.log.warning(`warning from ${process.pid}`)
        ctx.log.error(`error from ${process.pid}`)
        return String(process.pid)
      },
    }),
    defineTool({
      name: 'limited',
      description: 'At most five calls a minute per caller',
      handler: () => 'ok',
    }),
  ]
  const server = defineServer({
    name: 'cluster-member',
    version: '1.0.0',
    tools,
    ...(member?.changes && { changes: member.changes }),
    ...(member?.sessionStore && { legacy: { stateStore: member.sessionStore } }),
    requestState: { secret: member?.requestStateSecret },
    security: {
      rateLimit: {
        ...(member?.rateLimitStore && { store: member.rateLimitStore }),
        tools: { limited: { points: 5, durationMs: 60_000 } },
      },
    },
  })
  return server
}
