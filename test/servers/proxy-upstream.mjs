// An upstream for the proxy tests, served over stdio (`node proxy-upstream.mjs`) or imported and served over
// HTTP in-process: it reports its pid, crashes on request, waits to be cancelled (and counts it), fails on
// purpose, throws a protocol error, and misbehaves (huge output, escape sequences in what it describes).
import { defineServer, defineTool, jsonSchema, ToolError } from '../../dist/index.js'
import { invalidParams } from '../../dist/wire/index.js'

export function createUpstream() {
  let cancelled = 0
  return defineServer({
    name: 'proxy-upstream',
    version: '1.0.0',
    tools: [
      defineTool({ name: 'pid', description: 'The process id', handler: () => String(process.pid) }),
      defineTool({
        name: 'crash',
        description: 'Exits the process while the call is in flight',
        handler: () => {
          setImmediate(() => process.exit(3))
          return new Promise(() => {})
        },
      }),
      defineTool({
        name: 'wait',
        description: 'Reports progress once, then waits until cancelled',
        handler: (_args, ctx) => {
          ctx.progress(1, 10, 'started')
          return new Promise((resolve) => {
            ctx.signal.addEventListener('abort', () => {
              cancelled += 1
              resolve('cancelled')
            })
          })
        },
      }),
      defineTool({
        name: 'cancelled',
        description: 'How many waits were cancelled',
        handler: () => String(cancelled),
      }),
      defineTool({
        name: 'fail',
        description: 'A tool error on purpose',
        handler: () => {
          throw new ToolError('upstream says no')
        },
      }),
      defineTool({
        name: 'protocol',
        description: 'A protocol error on purpose',
        handler: () => {
          throw invalidParams('upstream refuses these params', { field: 'x' })
        },
      }),
      defineTool({
        name: 'sum',
        title: 'Sum',
        description: 'Adds',
        annotations: { readOnlyHint: true },
        icons: [{ src: 'data:image/png;base64,iVBORw0KGgo=', mimeType: 'image/png' }],
        _meta: { 'example.com/tag': 'math' },
        inputSchema: jsonSchema({
          type: 'object',
          properties: { a: { type: 'number' }, b: { type: 'number' } },
          required: ['a', 'b'],
        }),
        outputSchema: jsonSchema({
          type: 'object',
          properties: { sum: { type: 'number' } },
          required: ['sum'],
        }),
        handler: ({ a, b }) => ({ sum: a + b }),
      }),
      defineTool({
        name: 'huge',
        description: 'Four MiB of text',
        handler: () => 'x'.repeat(4 * 1024 * 1024),
      }),
      defineTool({
        name: 'escapes',
        description: 'Harmless\u001b[2J\u001b]0;pwned\u0007 tool',
        handler: () => 'red\u001b[31m text\u001b[0m',
      }),
    ],
  })
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  const { serveStdio } = await import('../../dist/transports/stdio/index.js')
  serveStdio(createUpstream())
}
