// A Cloudflare Worker: everything at module scope is pure definition (no timer, no I/O), as Workers require.
// Deploy with wrangler (main = "worker.ts"); the tests run it in workerd through Miniflare
// (test/peers/worker-example.ts).
import { createFetchHandler, defineServer, defineTool, jsonSchema } from 'toolwire'

const server = defineServer({
  name: 'worker',
  version: '1.0.0',
  tools: [
    defineTool({
      name: 'add',
      inputSchema: jsonSchema<{ a: number; b: number }>({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      }),
      handler: ({ a, b }) => String(a + b),
    }),
    // Workers forbid code generation, so toolwire validates with @cfworker/json-schema there, by itself.
    defineTool({ name: 'validator', handler: () => server.schemaValidator }),
  ],
})

export default {
  fetch: createFetchHandler(server, {
    clientAddress: (request) => request.headers.get('cf-connecting-ip') ?? undefined,
  }),
}
