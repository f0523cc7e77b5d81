// Input rounds: a tool asks the user before it acts; the client's elicitation handler answers.
import assert from 'node:assert/strict'
import { z } from 'zod'
import { defineServer, defineTool } from 'toolwire'
import { connect } from 'toolwire/client'
import { serveNode } from 'toolwire/node'

// #region server
const deploy = defineTool({
  name: 'deploy',
  inputSchema: z.object({ env: z.string() }),
  handler: async ({ env }, ctx) => {
    const answer = await ctx.input.elicit({
      message: `Deploy to ${env}?`,
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    })
    return answer.action === 'accept' && answer.content?.ok ? `Deploying to ${env}` : 'Cancelled'
  },
})
const server = defineServer({
  name: 'ops',
  version: '1.0.0',
  tools: [deploy],
  // Shared by every instance, so any of them can finish a call another one started.
  requestState: {
    secret: process.env.STATE_SECRET ?? 'an example secret of at least 32 characters',
    ttlMs: 600_000,
  },
})
// #endregion server

const running = await serveNode(server, { port: 0 })
const asked: string[] = []
// #region client
const client = connect(
  { url: running.url },
  {
    handlers: {
      elicitation: async (params) => {
        asked.push(params.message)
        return { action: 'accept', content: { ok: true } }
      },
    },
  },
)
const result = await client.callTool('deploy', { env: 'staging' })
// #endregion client
assert.deepEqual(asked, ['Deploy to staging?'])
assert.deepEqual(result.content, [{ type: 'text', text: 'Deploying to staging' }])
await client.close()
await running.close()
console.log('input: ok')
