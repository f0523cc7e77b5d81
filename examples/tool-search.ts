// Tool search: a server with hundreds of tools lists a few, and the model finds the rest by searching.
import assert from 'node:assert/strict'
import { z } from 'zod'
import { createFetchHandler, defineServer, defineTool } from 'toolwire'
import { connect } from 'toolwire/client'

const nouns = ['invoice', 'customer', 'ticket', 'shipment', 'coupon', 'webhook', 'playlist', 'budget']
const verbs = ['create', 'archive', 'delete', 'export', 'share']
const crud = nouns.flatMap((noun) =>
  verbs.map((verb) =>
    defineTool({
      name: `${noun}_${verb}`,
      description: `${verb} a ${noun} by id`,
      inputSchema: z.object({ id: z.string() }),
      handler: ({ id }) => `${verb}d ${noun} ${id}`,
    }),
  ),
)
const forecast = defineTool({
  name: 'weather_forecast',
  description: 'Temperature and rain for the coming days in a city',
  inputSchema: z.object({ city: z.string(), days: z.number().int().min(1).max(14) }),
  handler: ({ city, days }) => `${city}: sunny for ${days} days`,
})
const help = defineTool({ name: 'help', description: 'What this server can do', handler: () => 'Ask away.' })

const server = defineServer({
  name: 'back-office',
  version: '1.0.0',
  tools: [help, forecast, ...crud], // 42 tools
  // More than 30 tools for a caller: list `help`, `search_tools` and `call_tool` instead.
  toolSearch: { minTools: 30, pinned: ['help'] },
})

const client = connect({ url: 'http://test/mcp', fetch: createFetchHandler(server) })
const listed = await client.request('tools/list', {})
assert.deepEqual(
  (listed.tools as { name: string }[]).map((tool) => tool.name),
  ['help', 'search_tools', 'call_tool'],
)

// search_tools: full definitions (inputSchema included) of the best matches, best first.
const found = await client.callTool('search_tools', { query: 'rain tomorrow in Lisbon', limit: 3 })
const { tools } = found.structuredContent as { tools: { name: string; inputSchema: object }[] }
assert.equal(tools[0]?.name, 'weather_forecast')

// call_tool: runs the named tool exactly as a direct tools/call would (checks, limits and errors alike).
const via = await client.callTool('call_tool', {
  name: 'weather_forecast',
  arguments: { city: 'Lisbon', days: 2 },
})
assert.deepEqual(via.content, [{ type: 'text', text: 'Lisbon: sunny for 2 days' }])
const bad = await client.callTool('call_tool', { name: 'weather_forecast', arguments: { city: 'Lisbon' } })
assert.equal(bad.isError, true) // the same message a direct call with these arguments gets

// toolwire's client: searchTools checks the definitions found, and callTool then calls one directly.
const [best] = await client.searchTools('coupon archive', { limit: 3 })
assert.equal(best?.name, 'coupon_archive')
const archived = await client.callTool('coupon_archive', { id: 'SPRING' }) // no allowUnlisted needed
assert.deepEqual(archived.content, [{ type: 'text', text: 'archived coupon SPRING' }])
await client.close()
console.log('tool-search: ok')
