// A server without zod: plain JSON Schema 2020-12, typed with jsonSchema<T>(); checked in-process.
import assert from 'node:assert/strict'
import { createFetchHandler, defineServer, defineTool, jsonSchema, ToolError } from 'toolwire'
import { connect } from 'toolwire/client'

// #region tool
const divide = defineTool({
  name: 'divide',
  description: 'Divides a by b',
  inputSchema: jsonSchema<{ a: number; b: number }>({
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  }),
  outputSchema: jsonSchema<{ quotient: number }>({
    type: 'object',
    properties: { quotient: { type: 'number' } },
    required: ['quotient'],
  }),
  handler: ({ a, b }) => {
    if (b === 0) throw new ToolError('b must not be 0') // a tool error the model reads and can act on
    return { quotient: a / b }
  },
})
// #endregion tool

const server = defineServer({ name: 'divider', version: '1.0.0', tools: [divide] })

// Tests can talk to a server in-process: the fetch handler is the client's fetch.
const client = connect({
  url: 'http://test/mcp',
  fetch: createFetchHandler(server, { clientAddress: () => '127.0.0.1' }),
})
const ok = await client.callTool('divide', { a: 6, b: 3 })
assert.deepEqual(ok.structuredContent, { quotient: 2 })
const refused = await client.callTool('divide', { a: 1, b: 0 })
assert.equal(refused.isError, true)
assert.deepEqual(refused.content, [{ type: 'text', text: 'b must not be 0' }])
const invalid = await client.callTool('divide', { a: 'six', b: 3 }) // every violation is listed
assert.equal(invalid.isError, true)
await client.close()
console.log('json-schema: ok')
