// A server module for `toolwire serve --otel` (test/cli-otel.test.ts): it leaves `telemetry` unset, so the
// CLI's flag turns it on, and its tool makes a span of its own through the global tracer the SDK registered.
// Run as a program, it serves stdio (an upstream for `toolwire bridge --otel`).
import { pathToFileURL } from 'node:url'
import { trace } from '@opentelemetry/api'
import { defineServer, defineTool, jsonSchema } from '../../dist/index.js'
import { serveStdio } from '../../dist/transports/stdio/index.js'

export const server = defineServer({
  name: 'otel-served',
  version: '1.0.0',
  tools: [
    defineTool({
      name: 'add',
      description: 'Adds two numbers inside a span of its own',
      inputSchema: jsonSchema({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      }),
      handler: ({ a, b }) =>
        trace.getTracer('otel-served').startActiveSpan('add numbers', (span) => {
          span.end()
          return String(a + b)
        }),
    }),
  ],
})

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  serveStdio(server)
}
