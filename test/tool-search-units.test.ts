/** Tool search work on 10,000 tools, counted rather than timed (bench/tool-search.ts gives the timing). */
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { connect } from '../src/client/index.js'
import { createFetchHandler, defineServer, defineTool } from '../src/index.js'
import { tokenize } from '../src/features/tools/bm25.js'

describe('tool search index', () => {
  it('splits names on _ - . and camelCase', () => {
    expect(tokenize('get_user-by.id')).toEqual(['get', 'user', 'by', 'id'])
    expect(tokenize('getUserById HTTPServer v2')).toEqual([
      'get',
      'user',
      'by',
      'id',
      'http',
      'server',
      'v',
      '2',
    ])
  })

  it('builds the index once across 100 searches of 10,000 tools, and once more after a change', async () => {
    const tools = Array.from({ length: 10_000 }, (_, index) =>
      defineTool({
        name: `tool_${index}_${['alpha', 'beta', 'gamma', 'delta'][index % 4]}`,
        description: `Handles item number ${index} of group ${index % 97}.`,
        handler: () => index,
      }),
    )
    const server = defineServer({ name: 'huge', version: '1.0.0', tools, toolSearch: true })
    const client = connect({ url: 'http://localhost/mcp', fetch: createFetchHandler(server) })
    try {
      expect(server.toolSearch?.builds).toBe(0) // built on the first search, not at definition
      for (let round = 0; round < 100; round++) {
        const found = await client.callTool('search_tools', { query: `tool ${round * 97} gamma`, limit: 5 })
        const names = (found.structuredContent as { tools: { name: string }[] }).tools.map(
          (tool) => tool.name,
        )
        expect(names[0]).toBe(`tool_${round * 97}_${['alpha', 'beta', 'gamma', 'delta'][(round * 97) % 4]}`)
      }
      expect(server.toolSearch?.builds).toBe(1)
      server.tools.disable('tool_0_alpha')
      const after = await client.callTool('search_tools', { query: 'tool 0 alpha', limit: 50 })
      const names = (after.structuredContent as { tools: { name: string }[] }).tools.map((tool) => tool.name)
      expect(names).not.toContain('tool_0_alpha')
      expect(server.toolSearch?.builds).toBe(2)
    } finally {
      await client.close()
    }
  })

  it('refuses a query past its bound as a tool error', async () => {
    const tools = Array.from({ length: 40 }, (_, i) => defineTool({ name: `t${i}`, handler: () => i }))
    const server = defineServer({ name: 's', version: '1.0.0', tools, toolSearch: true })
    const client = connect({ url: 'http://localhost/mcp', fetch: createFetchHandler(server) })
    try {
      const long = await client.callTool('search_tools', { query: 'x'.repeat(1001) })
      expect(long.isError).toBe(true)
      expect(server.toolSearch?.builds).toBe(0)
    } finally {
      await client.close()
    }
  })

  it('call_tool goes through input rounds and per-tool rate limits as a direct call does', async () => {
    const filler = Array.from({ length: 40 }, (_, i) => defineTool({ name: `t${i}`, handler: () => i }))
    const deploy = defineTool({
      name: 'deploy',
      inputSchema: z.object({ env: z.string() }),
      handler: async ({ env }, ctx) => {
        const answer = await ctx.input.elicit({
          message: `Deploy to ${env}?`,
          requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
        })
        return answer.action === 'accept' ? `Deploying to ${env}` : 'Cancelled'
      },
    })
    const server = defineServer({
      name: 's',
      version: '1.0.0',
      tools: [...filler, deploy],
      toolSearch: true,
      security: { rateLimit: { tools: { t1: { points: 1, durationMs: 60_000 } } } },
    })
    const asked: string[] = []
    const client = connect(
      { url: 'http://localhost/mcp', fetch: createFetchHandler(server) },
      {
        handlers: {
          elicitation: (params) => {
            asked.push(params.message)
            return Promise.resolve({ action: 'accept', content: { ok: true } })
          },
        },
      },
    )
    try {
      const via = await client.callTool('call_tool', { name: 'deploy', arguments: { env: 'staging' } })
      expect(via.content).toEqual([{ type: 'text', text: 'Deploying to staging' }])
      expect(asked).toEqual(['Deploy to staging?'])
      // The first call of t1 spends its budget through call_tool; the direct call is refused alike, and so
      // is a second call through call_tool.
      expect((await client.callTool('call_tool', { name: 't1' })).content).toEqual([
        { type: 'text', text: '1' },
      ])
      const direct = await client.callTool('t1', {}, { allowUnlisted: true })
      const again = await client.callTool('call_tool', { name: 't1', arguments: {} })
      expect(direct.isError).toBe(true)
      expect(JSON.stringify(direct.content)).toContain('Rate limit for tool t1 reached')
      expect(again).toEqual(direct)
    } finally {
      await client.close()
    }
  })
})
