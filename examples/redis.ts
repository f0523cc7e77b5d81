// Two instances of one service sharing state through Redis (REDIS_URL): a handle made through one is used
// through the other, and a tool list change announced on one reaches a listener on the other.
import assert from 'node:assert/strict'
import { z } from 'zod'
import { defineHandles, defineServer, defineTool } from 'toolwire'
import { connect } from 'toolwire/client'
import { serveNode } from 'toolwire/node'
import { RedisChangeBus, RedisHandleStore, RedisRateLimitStore } from 'toolwire/redis'

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const secret = process.env.STATE_SECRET ?? 'an example secret of at least 32 characters'

/** One instance, as each process of the service would build it. */
async function instance() {
  // #region instance
  const changes = await RedisChangeBus.connect({ url })
  const handleStore = await RedisHandleStore.connect({ url })
  const rateLimitStore = await RedisRateLimitStore.connect({ url })
  const baskets = defineHandles<{ items: string[] }>({
    kind: 'basket',
    createTool: 'basket_create',
    store: handleStore,
  })
  const tools = [
    defineTool({
      name: 'basket_create',
      outputSchema: z.object({ basket_id: z.string() }),
      handler: async (_args, ctx) => ({ basket_id: await baskets.create(ctx, { items: [] }) }),
    }),
    defineTool({
      name: 'basket_add',
      inputSchema: z.object({ basket_id: z.string(), item: z.string() }),
      handler: async ({ basket_id, item }, ctx) =>
        (await baskets.update(ctx, basket_id, (b) => ({ items: [...b.items, item] }))).items.join(', '),
    }),
  ]
  const server = defineServer({
    name: 'shop',
    version: '1.0.0',
    tools,
    changes, // list changes and resource updates reach listen streams on every instance
    requestState: { secret }, // any instance can finish a multi-round call
    security: { rateLimit: { store: rateLimitStore } }, // one budget per caller across instances
  })
  // #endregion instance
  const running = await serveNode(server, { port: 0 })
  const close = async (): Promise<void> => {
    await running.close()
    await Promise.all([changes.close(), handleStore.close(), rateLimitStore.close()])
  }
  return { server, url: running.url, close }
}

const a = await instance()
const b = await instance()
const clientA = connect({ url: a.url })
const clientB = connect({ url: b.url })

const created = await clientA.callTool('basket_create', {})
const { basket_id } = created.structuredContent as { basket_id: string }
const added = await clientB.callTool('basket_add', { basket_id, item: 'tea' }) // the other instance
assert.deepEqual(added.content, [{ type: 'text', text: 'tea' }])

// #region listen
let changed: (names: string[]) => void = () => {}
const names = new Promise<string[]>((resolve) => (changed = resolve))
// subscribe() resolves once instance B acknowledged the listen stream.
const subscription = await clientB.subscribe(
  { toolsListChanged: true },
  { onToolsChanged: (tools) => changed(tools.map((tool) => tool.name)) },
)
a.server.tools.disable('basket_add') // on instance A; each instance keeps its own registry
// B's listener hears of A's change and refetches the list from B (which still has both tools).
assert.deepEqual(await names, ['basket_create', 'basket_add'])
// #endregion listen
await subscription.close()

await Promise.all([clientA.close(), clientB.close()])
await Promise.all([a.close(), b.close()])
console.log('redis: ok')
