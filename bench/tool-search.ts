/**
 * `npm run bench:tool-search`: milliseconds per search on a server with 10,000 tools, in process (the
 * published entry points, no HTTP): the whole call as `client.searchTools` makes it (request, ranking,
 * encoding, the client's checks of the definitions found), the raw `search_tools` call, and the cost of
 * building the index, on the first search and again after a change of the tool set. A timing figure only;
 * test/tool-search-units.test.ts checks the work by counting (one index build across 100 searches).
 */
import { connect } from 'toolwire/client'
import { createFetchHandler, defineServer, defineTool } from 'toolwire'

const TOOLS = 10_000
const SEARCHES = 1_000
/** The bound on one whole search call over 10,000 tools. */
const TARGET_MS = 5
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
const query = (index: number): string => `${WORDS[index % WORDS.length]} ${index} group`

await client.listTools()
let started = performance.now()
await client.searchTools('invoice customer')
const first = performance.now() - started

started = performance.now()
for (let index = 0; index < SEARCHES; index++) await client.searchTools(query(index), { limit: 10 })
const whole = (performance.now() - started) / SEARCHES

started = performance.now()
for (let index = 0; index < SEARCHES; index++)
  await client.callTool('search_tools', { query: query(index), limit: 10 })
const raw = (performance.now() - started) / SEARCHES

// A change of the tool set: the next search builds the index again, warm this time.
server.tools.add(defineTool({ name: 'one_more', handler: () => 'x' }))
started = performance.now()
await client.searchTools('invoice customer')
const rebuilt = performance.now() - started
await client.close()

const row = (label: string, ms: number, digits = 3): void =>
  console.log(`tool search on ${TOOLS} tools: ${label} ${ms.toFixed(digits)} ms`)
row('first search (builds the index)', first, 1)
row('search after a change (rebuilds the index)', rebuilt, 1)
row(`client.searchTools, whole call, per search over ${SEARCHES}`, whole)
row(`callTool('search_tools'), per search over ${SEARCHES}`, raw)
console.log(`target: under ${TARGET_MS} ms per whole call: ${whole < TARGET_MS ? 'met' : 'NOT met'}`)
console.log(`index builds: ${server.toolSearch?.builds}`)
