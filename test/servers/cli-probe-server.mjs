// A server for the CLI tests, loaded by `toolwire serve --stdio`: shows its environment, asks for roots
// and for a sample, and offers one binary resource.
import { defineResource, defineServer, defineTool, jsonSchema } from '../../dist/index.js'

export default defineServer({
  name: 'cli-probe',
  version: '1.0.0',
  tools: [
    defineTool({
      name: 'env',
      description: 'Tells the value of an environment variable',
      inputSchema: jsonSchema({
        type: 'object',
        properties: { name: { type: 'string' } },
        required: ['name'],
      }),
      handler: ({ name }) => `${name}=${process.env[name] ?? '(unset)'}`,
    }),
    defineTool({
      name: 'roots',
      description: 'Lists the roots the client offers',
      handler: async (_args, ctx) => (await ctx.input.listRoots()).map((root) => root.uri).join('\n'),
    }),
    defineTool({
      name: 'haiku',
      description: 'Asks the model for a haiku',
      handler: async (_args, ctx) => {
        const answer = await ctx.input.sample({
          messages: [{ role: 'user', content: { type: 'text', text: 'A haiku, please' } }],
          maxTokens: 50,
        })
        return `${answer.model}: ${answer.content.text}`
      },
    }),
  ],
  resources: [
    defineResource({
      uri: 'probe://pixel',
      name: 'pixel',
      mimeType: 'image/png',
      read: () => ({
        blob: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
        mimeType: 'image/png',
      }),
    }),
  ],
})
