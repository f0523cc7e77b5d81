/**
 * server/tools §Embedded Resources: servers that embed resources in tool results SHOULD offer the resources
 * capability. A tool definition has no field that declares such content, so the server warns, once, at the
 * first embedded resource a tool returns while it offers no resources.
 */
import { describe, expect, it } from 'vitest'
import { createFetchHandler, defineResource, defineServer, defineTool, toolResult } from '../src/index.js'
import { post, resultOf } from './helpers/http.js'
import { memoryLogger } from './helpers/live.js'

const embeds = defineTool({
  name: 'embeds',
  handler: () =>
    toolResult({
      content: [{ type: 'resource', resource: { uri: 'notes://a', mimeType: 'text/plain', text: 'hi' } }],
    }),
})
const plain = defineTool({ name: 'plain', handler: () => 'text only' })

describe('embedded resources from a server without resources', () => {
  it('warns once, naming the tool, and still answers every call', async () => {
    const logger = memoryLogger()
    const fetcher = createFetchHandler(
      defineServer({ name: 'e', version: '1', tools: [embeds, plain], logger }),
    )
    expect(
      resultOf(await post(fetcher, 'tools/call', { name: 'plain', arguments: {} })).isError,
    ).toBeUndefined()
    expect(logger.lines.filter((line) => line.includes('embedded resource'))).toEqual([])
    for (let i = 0; i < 3; i++) {
      const result = resultOf(await post(fetcher, 'tools/call', { name: 'embeds', arguments: {} }))
      expect(result.content).toEqual([
        { type: 'resource', resource: { uri: 'notes://a', mimeType: 'text/plain', text: 'hi' } },
      ])
    }
    const warnings = logger.lines.filter((line) => line.includes('embedded resource'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(
      /^Tool embeds returned an embedded resource, but this server offers no resources/,
    )
  })

  it('says nothing when the server offers resources', async () => {
    const logger = memoryLogger()
    const server = defineServer({
      name: 'e',
      version: '1',
      tools: [embeds],
      resources: [defineResource({ uri: 'notes://a', name: 'a', read: () => 'hi' })],
      logger,
    })
    const fetcher = createFetchHandler(server)
    expect(
      resultOf(await post(fetcher, 'tools/call', { name: 'embeds', arguments: {} })).content,
    ).toHaveLength(1)
    expect(logger.lines.filter((line) => line.includes('embedded resource'))).toEqual([])
  })
})
