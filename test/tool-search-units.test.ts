/** Tool search work on 10,000 tools, counted rather than timed (bench/tool-search.ts gives the timing). */
import { describe, expect, it } from 'vitest'
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
})
