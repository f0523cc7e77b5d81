/**
 * `npm run bench:tool-search`: milliseconds per `search_tools` call on a server with 10,000 tools, in
 * process (the published entry points, no HTTP), and the one-off cost of building the index. A timing figure
 * only; test/tool-search-units.test.ts checks the work by counting (one index build across 100 searches).
 */
import { connect } from 'toolwire/client'
import { createFetchHandler, defineServer, defineTool } from 'toolwire'

const TOOLS = 10_000
const SEARCHES = 1_000
const WORDS = ['invoice', 'customer', 'ticket', 'calendar', 'repository', 'payment', 'shipment', 'report']

const tools = Array.from({ length: TOOLS }, (_, index) =>
  defineTool({
    name: `${WORDS[index % WORDS.length]}_${index}_${WORDS[(index * 7) % WORDS.length]}`,
    description: `Handles ${WORDS[(index * 3) % WORDS.length]} number ${index} in group ${index % 97}.`,
    handler: () => index,
  }),
)
// No request limit: one client sends every search.
const server = defineServer({
  name: 'bench',
  version: '1.0.0',
  tools,
  toolSearch: true,
  security: { rateLimit: false },
})
const client = connect({ url: 'http://localhost/mcp', fetch: createFetchHandler(server) })
const search = (query: string): Promise<unknown> => client.callTool('search_tools', { query, limit: 10 })

let started = performance.now()
await search('invoice customer')
const first = performance.now() - started
started = performance.now()
for (let index = 0; index < SEARCHES; index++) await search(`${WORDS[index % WORDS.length]} ${index} group`)
const each = (performance.now() - started) / SEARCHES
await client.close()
console.log(`tool search on ${TOOLS} tools: first search (builds the index) ${first.toFixed(1)} ms`)
console.log(`tool search on ${TOOLS} tools: ${each.toFixed(3)} ms per search over ${SEARCHES} searches`)
console.log(`index builds: ${server.toolSearch?.builds}`)
