/**
 * Stable cursors (server/utilities/pagination): every paged list continues right after the last item it sent,
 * whatever changed in between, or answers -32602 so the client starts over; nothing is skipped silently.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { connect } from '../src/client/index.js'
import {
  createFetchHandler,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineServer,
  defineTool,
  type Server,
} from '../src/index.js'
import { errorOf, type Fetcher, post, resultOf } from './helpers/http.js'
import { recordingFetch } from './helpers/recording-fetch.js'

const names = (n: number, prefix: string): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`)

/** What a test does to a list between two page requests. */
interface Editable {
  add(definition: unknown): void
  disable(key: string): void
  remove(key: string): boolean
}

/** One paged list method: its result key, its items' name prefix, and the catalog behind it. */
interface PagedList {
  method: string
  key: string
  prefix: string
  catalog: (server: Server) => Editable
  /** The catalog key of the item named `name` (a name for tools and prompts, a URI for resources). */
  keyOf: (name: string) => string
}

const LISTS: PagedList[] = [
  { method: 'tools/list', key: 'tools', prefix: 't', catalog: (s) => s.tools, keyOf: (n) => n },
  { method: 'prompts/list', key: 'prompts', prefix: 'p', catalog: (s) => s.prompts, keyOf: (n) => n },
  {
    method: 'resources/list',
    key: 'resources',
    prefix: 'r',
    catalog: (s) => s.resources,
    keyOf: (n) => `x://${n}`,
  },
  {
    method: 'resources/templates/list',
    key: 'resourceTemplates',
    prefix: 'u',
    catalog: (s) => s.resourceTemplates,
    keyOf: (n) => `x://${n}/{id}`,
  },
]

/** A definition of `list`'s kind named `name`. */
function again(list: PagedList, name: string): unknown {
  switch (list.prefix) {
    case 't':
      return defineTool({ name, handler: () => name })
    case 'p':
      return definePrompt({ name, handler: () => name })
    case 'r':
      return defineResource({ uri: list.keyOf(name), name, read: () => name })
    default:
      return defineResourceTemplate({ uriTemplate: list.keyOf(name), name, read: () => name })
  }
}

/** A server with `count` items in each of the four lists, named by prefix (`t0`, `p0`, `r0`, `u0` …). */
function serverWith(count: number, pageSize: number, rename = (name: string) => name): Server {
  const items = (list: PagedList) => names(count, list.prefix).map((name) => again(list, rename(name)))
  const [tools, prompts, resources, templates] = LISTS.map(items) as [never[], never[], never[], never[]]
  return defineServer({
    name: 'pages',
    version: '1.0.0',
    pageSize,
    tools,
    prompts,
    resources: [...resources, ...templates],
  })
}

async function page(
  fetcher: Fetcher,
  list: PagedList,
  cursor?: string,
): Promise<{ names: string[]; next: string | undefined }> {
  const result = resultOf(await post(fetcher, list.method, cursor === undefined ? {} : { cursor }))
  return {
    names: (result[list.key] as { name: string }[]).map((item) => item.name),
    next: result.nextCursor as string | undefined,
  }
}

describe.each(LISTS)('$method cursors', (list) => {
  const p = list.prefix

  it('continues after the last item sent when an earlier item is disabled or removed', async () => {
    const server = serverWith(9, 3)
    const fetcher = createFetchHandler(server)
    const first = await page(fetcher, list)
    expect(first.names).toEqual([`${p}0`, `${p}1`, `${p}2`])
    list.catalog(server).disable(list.keyOf(`${p}0`))
    list.catalog(server).remove(list.keyOf(`${p}1`))
    const second = await page(fetcher, list, first.next)
    expect(second.names).toEqual([`${p}3`, `${p}4`, `${p}5`]) // an offset cursor would have skipped p3 and p4
    const third = await page(fetcher, list, second.next)
    expect(third).toEqual({ names: [`${p}6`, `${p}7`, `${p}8`], next: undefined })
  })

  it('continues after a disabled cursor item, lists an added item at the end, and ends cleanly', async () => {
    const server = serverWith(6, 3)
    const fetcher = createFetchHandler(server)
    const first = await page(fetcher, list)
    list.catalog(server).disable(list.keyOf(`${p}2`))
    list.catalog(server).disable(list.keyOf(`${p}3`))
    const second = await page(fetcher, list, first.next)
    expect(second).toEqual({ names: [`${p}4`, `${p}5`], next: undefined })
    // The last page's items all disappear: the cursor still resolves, to an empty final page.
    const again = await page(fetcher, list)
    list.catalog(server).disable(list.keyOf(`${p}4`))
    list.catalog(server).disable(list.keyOf(`${p}5`))
    expect(await page(fetcher, list, again.next)).toEqual({ names: [], next: undefined })
  })

  it('continues after the cursor item even when it was removed, or removed and added again', async () => {
    const server = serverWith(9, 3)
    const fetcher = createFetchHandler(server)
    const first = await page(fetcher, list)
    list.catalog(server).remove(list.keyOf(`${p}2`))
    const second = await page(fetcher, list, first.next)
    expect(second.names).toEqual([`${p}3`, `${p}4`, `${p}5`])
    list.catalog(server).remove(list.keyOf(`${p}5`))
    list.catalog(server).add(again(list, `${p}5`)) // now last in the list
    expect((await page(fetcher, list, second.next)).names).toEqual([`${p}6`, `${p}7`, `${p}8`])
  })

  it('answers -32602 for a cursor from a differently configured server', async () => {
    const first = await page(createFetchHandler(serverWith(9, 3)), list)
    const renamed = serverWith(9, 3, (name) => `other_${name}`) // another item under the cursor's number
    const smaller = serverWith(2, 3) // never numbered that far
    for (const server of [renamed, smaller]) {
      const error = errorOf(await post(createFetchHandler(server), list.method, { cursor: first.next }))
      expect(error.code).toBe(-32602)
      expect(error.message).toMatch(/list again from the start/)
    }
  })

  it('reads the same cursor the same way on another instance with the same definitions', async () => {
    const first = await page(createFetchHandler(serverWith(7, 3)), list)
    const other = await page(createFetchHandler(serverWith(7, 3)), list, first.next)
    expect(other.names).toEqual([`${p}3`, `${p}4`, `${p}5`])
  })
})

describe('cursors under any sequence of edits', () => {
  type Edit = { kind: 'disable' | 'enable' | 'remove' | 'add'; tool: string }
  const edit: fc.Arbitrary<Edit> = fc.record({
    kind: fc.constantFrom('disable', 'enable', 'remove', 'add'),
    tool: fc.nat({ max: 24 }).map((i) => `t${i}`),
  })

  it('never skips or repeats a tool that stayed listed from the first page to the last', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(edit, { maxLength: 4 }), { maxLength: 12 }), async (rounds) => {
        const server = defineServer({
          name: 'edits',
          version: '1.0.0',
          pageSize: 4,
          tools: names(20, 't').map((name) => defineTool({ name, handler: () => name })),
        })
        const fetcher = createFetchHandler(server)
        const present = new Set(names(20, 't'))
        const untouched = new Set(present)
        const apply = ({ kind, tool }: Edit): void => {
          untouched.delete(tool) // edited while paging: may legitimately be missing or listed twice
          if (kind === 'add') {
            if (!present.has(tool)) server.tools.add(defineTool({ name: tool, handler: () => tool }))
            present.add(tool)
          } else if (present.has(tool)) {
            if (kind === 'disable') server.tools.disable(tool)
            else if (kind === 'enable') server.tools.enable(tool)
            else if (server.tools.remove(tool)) present.delete(tool)
          }
        }
        const seen: string[] = []
        let cursor: string | undefined
        let round = 0
        for (;;) {
          const answer = await post(fetcher, 'tools/list', cursor === undefined ? {} : { cursor })
          if (answer.response && 'error' in answer.response) {
            expect(errorOf(answer).code).toBe(-32602) // the cursor's tool was removed: the client restarts
            return
          }
          const result = resultOf(answer)
          seen.push(...(result.tools as { name: string }[]).map((t) => t.name))
          cursor = result.nextCursor as string | undefined
          if (cursor === undefined) break
          for (const change of rounds[round++] ?? []) apply(change)
        }
        for (const tool of untouched)
          expect(
            seen.filter((name) => name === tool),
            tool,
          ).toHaveLength(1)
      }),
      { numRuns: 100, seed: 20260728 },
    )
  }, 120_000) // a hundred listings: generous for a busy machine
})

describe('toolwire client', () => {
  it('lists every tool when one is disabled between its page requests', async () => {
    const server = serverWith(7, 2)
    const handler = createFetchHandler(server)
    let lists = 0
    const recorder = recordingFetch(async (request) => {
      const response = await handler(request)
      if (request.headers.get('mcp-method') === 'tools/list' && ++lists === 1) server.tools.disable('t0')
      return response
    })
    const client = connect({ url: 'http://127.0.0.1/mcp', fetch: recorder.fetch })
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6'])
    expect(recorder.problems).toEqual([])
  })

  it('lists every tool when the last tool of a page is removed between its page requests', async () => {
    const server = serverWith(7, 2)
    const handler = createFetchHandler(server)
    let lists = 0
    const recorder = recordingFetch(async (request) => {
      const response = await handler(request)
      if (request.headers.get('mcp-method') === 'tools/list' && ++lists === 1) server.tools.remove('t1')
      return response
    })
    const client = connect({ url: 'http://127.0.0.1/mcp', fetch: recorder.fetch })
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6'])
    expect(recorder.problems).toEqual([])
  })

  it('starts over once when the server was redeployed with other tools between its page requests', async () => {
    const before = createFetchHandler(serverWith(7, 2))
    const after = createFetchHandler(serverWith(7, 2, (name) => `new_${name}`))
    const cursors: (string | null)[] = []
    const recorder = recordingFetch(async (request) => {
      const body = JSON.parse(await request.clone().text()) as { method: string; params: { cursor?: string } }
      if (body.method === 'tools/list') cursors.push(body.params.cursor ?? null)
      return (cursors.length <= 1 ? before : after)(request)
    })
    const client = connect({ url: 'http://127.0.0.1/mcp', fetch: recorder.fetch })
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(names(7, 'new_t'))
    expect(cursors.filter((c) => c === null)).toHaveLength(2) // the first page, then the restart
    expect(recorder.problems).toEqual([])
  })
})
