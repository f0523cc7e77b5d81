// A server for end-to-end tests, loaded by `toolwire serve` from the built package.
import { defineServer, defineTool, ToolError } from '../../dist/index.js'
import { McpError } from '../../dist/wire/index.js'

const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('aborted'))
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => {
      clearTimeout(timer)
      reject(new Error('aborted'))
    })
  })

let cancelled = 0

export default defineServer({
  name: 'core-test-server',
  version: '1.2.3',
  pageSize: 2,
  tools: [
    defineTool({
      name: 'echo',
      description: 'Echoes text after an optional delay',
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string' }, delayMs: { type: 'integer', minimum: 0, maximum: 10000 } },
        required: ['text'],
        additionalProperties: false,
      },
      handler: async ({ text, delayMs }, ctx) => {
        if (delayMs) await sleep(delayMs, ctx.signal)
        return String(text)
      },
    }),
    defineTool({
      name: 'block',
      description: 'Waits until cancelled; reports how many calls were cancelled before',
      handler: async (_args, ctx) => {
        process.stderr.write('block started\n') // tests wait for this before they cancel
        try {
          await sleep(60_000, ctx.signal)
        } catch {
          cancelled++
          process.stderr.write(`block cancelled (${cancelled})\n`)
        }
        return 'unreachable'
      },
    }),
    defineTool({
      name: 'cancelled_count',
      description: 'How many block calls were cancelled',
      handler: () => ({ cancelled }),
    }),
    defineTool({
      name: 'progress',
      description: 'Reports progress then answers',
      handler: async (_args, ctx) => {
        for (let i = 1; i <= 3; i++) {
          ctx.progress(i, 3)
          await sleep(5)
        }
        ctx.log.info('done', 'progress')
        return 'ok'
      },
    }),
    defineTool({
      name: 'needs_sampling',
      description: 'Refuses clients without the sampling capability',
      handler: (_args, ctx) => {
        if (!ctx.meta.clientCapabilities.sampling) {
          throw new McpError(-32021, 'This tool needs sampling', { requiredCapabilities: { sampling: {} } })
        }
        return 'sampled'
      },
    }),
    defineTool({
      name: 'fail',
      description: 'Fails deliberately',
      handler: () => {
        throw new ToolError('deliberate failure')
      },
    }),
  ],
})
