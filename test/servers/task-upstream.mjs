// A stdio upstream whose tool runs as a task, for the proxy task tests (`node task-upstream.mjs`): `wait`
// runs until cancelled, `crash` exits the process (its tasks go with it).
import { defineServer, defineTool } from '../../dist/index.js'
import { serveStdio } from '../../dist/transports/stdio/index.js'

serveStdio(
  defineServer({
    name: 'task-upstream',
    version: '1.0.0',
    tools: [
      defineTool({
        name: 'wait',
        description: 'Runs as a task until cancelled',
        task: { support: 'optional', pollIntervalMs: 100 },
        handler: (_args, ctx) =>
          new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('cancelled'))),
      }),
      defineTool({
        name: 'crash',
        description: 'Exits the process while the call is in flight',
        handler: () => {
          setImmediate(() => process.exit(3))
          return new Promise(() => {})
        },
      }),
    ],
  }),
)
