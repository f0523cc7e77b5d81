// A whole MCP server in one module: `toolwire serve` runs its default export.
import { z } from 'zod'
import { defineServer, defineTool } from 'toolwire'

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  annotations: { readOnlyHint: true },
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  outputSchema: z.object({ sum: z.number() }),
  handler: ({ a, b }) => ({ sum: a + b }), // typed from inputSchema; checked against outputSchema
})

export default defineServer({ name: 'calc', version: '1.0.0', tools: [add] })
