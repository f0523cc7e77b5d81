// One server for every runtime test: plain JSON Schemas, a tool that flips another (to drive a listen stream).
// Runs unchanged in Node, Bun, Deno and workerd; only the entry files differ.
import { createFetchHandler, defineServer, defineTool, jsonSchema } from '../../../dist/index.js'

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  inputSchema: jsonSchema({
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  }),
  outputSchema: jsonSchema({ type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] }),
  handler: ({ a, b }) => ({ sum: a + b }),
})

const extra = defineTool({ name: 'extra', description: 'Appears and disappears', handler: () => 'extra' })

export const server = defineServer({
  name: 'runtime-probe',
  version: '1.0.0',
  tools: [
    add,
    extra,
    defineTool({
      name: 'toggle',
      description: 'Enables or disables the extra tool',
      handler: () => {
        const visible = server.tools.enabled().some((tool) => tool.name === 'extra')
        if (visible) server.tools.disable('extra')
        else server.tools.enable('extra')
        return visible ? 'disabled' : 'enabled'
      },
    }),
    defineTool({
      name: 'validator',
      description: 'Names the JSON Schema validator in use',
      handler: () => server.schemaValidator,
    }),
  ],
})

export const handler = createFetchHandler(server)
