/**
 * `defineProxy({ toolSearch })`: the upstream's tools exist only once they are listed, so pinned names are
 * checked against what the upstream offers (a name it does not offer is refused) and the proxy lists the pinned
 * tools beside `search_tools` and `call_tool`. Upstream: a toolwire server with 40 tools over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { connect } from '../src/client/index.js'
import { defineServer, defineTool, ToolDefinitionError } from '../src/index.js'
import { defineProxy } from '../src/proxy/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'

const SECRET = 'proxy-tool-search-secret-0123456789abcdef'

describe('defineProxy with toolSearch', () => {
  let upstream: RunningServer
  beforeAll(async () => {
    const tools = Array.from({ length: 40 }, (_, index) =>
      defineTool({
        name: `tool_${index}`,
        description: index === 7 ? 'Reports the weather of a city' : `Tool number ${index}`,
        inputSchema: z.object({ city: z.string() }),
        handler: ({ city }) => `tool_${index}: ${city}`,
      }),
    )
    upstream = await serveNode(defineServer({ name: 'many', version: '1.0.0', tools }), { port: 0 })
  })
  afterAll(async () => {
    await upstream?.close()
  })

  it('lists the pinned tool and the two search tools, finds and calls through search', async () => {
    const proxy = await defineProxy({
      target: { url: upstream.url },
      requestState: { secret: SECRET },
      toolSearch: { minTools: 10, pinned: ['tool_0'] },
    })
    const running = await serveNode(proxy, { port: 0 })
    const client = connect({ url: running.url }, { warn: () => {} })
    try {
      const listed = (await client.listTools()).tools.map((tool) => tool.name).sort()
      expect(listed).toEqual(['call_tool', 'search_tools', 'tool_0'])
      const found = await client.searchTools('weather city', { limit: 3 })
      expect(found[0]?.name).toBe('tool_7')
      const direct = await client.callTool('tool_7', { city: 'Oslo' })
      expect(JSON.stringify(direct)).toContain('tool_7: Oslo')
      const result = await client.callTool('call_tool', { name: 'tool_7', arguments: { city: 'Oslo' } })
      expect(JSON.stringify(result)).toContain('tool_7: Oslo')
    } finally {
      await client.close()
      await running.close()
    }
  })

  it('refuses a pinned name the upstream does not offer', async () => {
    const refused = defineProxy({
      target: { url: upstream.url },
      requestState: { secret: SECRET },
      toolSearch: { pinned: ['no_such_tool'] },
    })
    await expect(refused).rejects.toThrow(ToolDefinitionError)
    await expect(refused).rejects.toThrow(
      /toolSearch\.pinned names "no_such_tool", which the upstream does not offer/,
    )
  })
})
