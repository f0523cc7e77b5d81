// A server for the 2025-era tests, loaded by `toolwire serve` from the built package: logging, a tool
// that waits until cancelled, sampling and roots asked from the client, and a resource to subscribe to.
import { defineResource, defineServer, defineTool } from '../../dist/index.js'

let aborted = 0
let version = 0

const server = defineServer({
  name: 'legacy-test-server',
  version: '1.0.0',
  instructions: 'Test server for 2025-era clients.',
  requestState: { secret: 'legacy-test-server-secret-0123456789' },
  tools: [
    defineTool({
      name: 'log_three',
      description: 'Logs three messages at debug, info and error',
      handler: (_args, ctx) => {
        ctx.log.debug('one')
        ctx.log.info('two')
        ctx.log.error('three')
        return 'logged'
      },
    }),
    defineTool({
      name: 'wait_for_cancel',
      description: 'Reports progress 0 once it runs, then waits until cancelled',
      handler: (_args, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            aborted++
            reject(new Error('aborted'))
          })
          ctx.progress(0)
        }),
    }),
    defineTool({
      name: 'aborted_count',
      description: 'Calls that were cancelled',
      handler: () => String(aborted),
    }),
    defineTool({
      name: 'ask_model',
      description: 'Asks the client to sample, then lists its roots',
      handler: async (_args, ctx) => {
        const reply = await ctx.input.sample({
          messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }],
          maxTokens: 10,
        })
        const roots = await ctx.input.listRoots()
        return `${reply.content.type === 'text' ? reply.content.text : '?'} / ${roots.map((r) => r.uri).join(',')}`
      },
    }),
    defineTool({
      name: 'touch',
      description: 'Changes test://counter and adds a tool',
      handler: () => {
        version++
        server.resourceUpdated('test://counter')
        if (!server.tools.get('extra')) server.tools.add(defineTool({ name: 'extra', handler: () => 'x' }))
        return String(version)
      },
    }),
  ],
  resources: [defineResource({ uri: 'test://counter', name: 'counter', read: () => String(version) })],
})

export default server
