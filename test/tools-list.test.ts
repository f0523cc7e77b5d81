/** server/discover and tools/list: cache hints, determinism, pagination, bad cursors, runtime changes. */
import { describe, expect, it } from 'vitest'
import { createFetchHandler, defineServer, defineTool } from '../src/index.js'
import { errorOf, post, resultOf } from './helpers/http.js'

const tools = Array.from({ length: 7 }, (_, i) =>
  defineTool({ name: `tool_${i}`, description: `Tool ${i}`, handler: () => String(i) }),
)
const server = defineServer({
  name: 'lists',
  version: '2.0.0',
  instructions: 'Use tool_0 first.',
  pageSize: 3,
  cache: { ttlMs: 1234, scope: 'public' },
  tools,
})
const fetcher = createFetchHandler(server)

async function allPages(): Promise<{ names: string[]; pages: Record<string, unknown>[] }> {
  const pages: Record<string, unknown>[] = []
  let cursor: string | undefined
  do {
    const result = resultOf(await post(fetcher, 'tools/list', cursor === undefined ? {} : { cursor }))
    pages.push(result)
    cursor = result.nextCursor as string | undefined
  } while (cursor !== undefined)
  return { names: pages.flatMap((p) => (p.tools as { name: string }[]).map((t) => t.name)), pages }
}

describe('server/discover', () => {
  it('describes versions, capabilities, identity and cache hints', async () => {
    const result = resultOf(await post(fetcher, 'server/discover'))
    expect(result).toMatchObject({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: { listChanged: true } },
      instructions: 'Use tool_0 first.',
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'lists', version: '2.0.0' } },
    })
    expect(Number.isInteger(result.ttlMs)).toBe(true)
  })
})

describe('tools/list pagination', () => {
  it('pages in definition order with the same cache hints on every page', async () => {
    const { names, pages } = await allPages()
    expect(names).toEqual(tools.map((t) => t.config.name))
    expect(pages.map((p) => (p.tools as unknown[]).length)).toEqual([3, 3, 1])
    for (const page of pages)
      expect(page).toMatchObject({ ttlMs: 1234, cacheScope: 'public', resultType: 'complete' })
    expect(pages[2]?.nextCursor).toBeUndefined()
  })

  it('is deterministic across requests', async () => {
    expect((await allPages()).names).toEqual((await allPages()).names)
  })

  it('answers -32602 for cursors it did not mint', async () => {
    for (const cursor of [
      '',
      'garbage',
      '!!!',
      btoa('tw1:1'),
      btoa('tw2:1'),
      btoa('tw2:!:t'),
      btoa('tw2:9:tool_9'),
      42,
      null,
    ]) {
      const answer = await post(fetcher, 'tools/list', { cursor })
      expect(errorOf(answer).code, String(cursor)).toBe(-32602)
    }
  })

  it('reflects runtime changes and bumps the version', async () => {
    const local = defineServer({
      name: 'dyn',
      version: '1',
      tools: [defineTool({ name: 'a', handler: () => 'a' })],
    })
    const f = createFetchHandler(local)
    const names = async () =>
      (resultOf(await post(f, 'tools/list')).tools as { name: string }[]).map((t) => t.name)
    let changes = 0
    local.tools.onChange(() => changes++)
    local.tools.add(defineTool({ name: 'b', handler: () => 'b' }))
    expect(await names()).toEqual(['a', 'b'])
    local.tools.disable('a')
    expect(await names()).toEqual(['b'])
    expect(errorOf(await post(f, 'tools/call', { name: 'a', arguments: {} })).code).toBe(-32602)
    local.tools.enable('a')
    expect(local.tools.remove('b')).toBe(true)
    expect(await names()).toEqual(['a'])
    expect(changes).toBe(4)
  })
})
