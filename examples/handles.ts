// State handles: a tool creates a basket and returns its handle; other tools take the handle back.
import assert from 'node:assert/strict'
import { z } from 'zod'
import { createFetchHandler, defineHandles, defineServer, defineTool } from 'toolwire'
import { connect } from 'toolwire/client'

// #region handles
const baskets = defineHandles<{ items: string[] }>({
  kind: 'basket',
  createTool: 'basket_create',
  ttlMs: 30 * 60_000, // idle lifetime; every use restarts it
  // store: new SqliteHandleStore('state.db') from 'toolwire/sqlite' survives restarts; default: in memory
})
const create = defineTool({
  name: 'basket_create',
  description: baskets.describe('Creates a basket.'), // appends the retention policy
  handler: async (_args, ctx) => ({ basket_id: await baskets.create(ctx, { items: [] }) }),
  outputSchema: z.object({ basket_id: z.string() }),
})
const add = defineTool({
  name: 'basket_add',
  inputSchema: z.object({ basket_id: z.string(), item: z.string() }),
  handler: async ({ basket_id, item }, ctx) => {
    const basket = await baskets.update(ctx, basket_id, (b) => ({ items: [...b.items, item] }))
    return `${basket.items.length} item(s)`
  },
})
// elsewhere: await baskets.get(ctx, id), baskets.delete(ctx, id)
// #endregion handles

const server = defineServer({ name: 'shop', version: '1.0.0', tools: [create, add] })
const fetch = createFetchHandler(server, { clientAddress: () => '127.0.0.1' })
const client = connect({ url: 'http://test/mcp', fetch })
const created = await client.callTool('basket_create', {})
const { basket_id } = created.structuredContent as { basket_id: string }
assert.match(basket_id, /^[0-9a-f-]{36}$/)
assert.deepEqual((await client.callTool('basket_add', { basket_id, item: 'tea' })).content, [
  { type: 'text', text: '1 item(s)' },
])
// An unknown (or someone else's) handle is a tool error that names the tool to call for a new one.
const unknown = await client.callTool('basket_add', { basket_id: crypto.randomUUID(), item: 'tea' })
assert.equal(unknown.isError, true)
assert.match(JSON.stringify(unknown.content), /basket_create/)
await client.close()
console.log('handles: ok')
