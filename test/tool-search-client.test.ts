/**
 * The client side of tool search: `client.searchTools` against a real toolwire server over Streamable HTTP
 * (320+ tools, a hidden one, a tool with an `x-mcp-header` argument, a task tool), a tool found by search
 * called without `allowUnlisted`, the client's boundary for tools never listed nor found, hostile search
 * answers checked like a hostile list, and task-augmented calls through `call_tool`.
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpTransportV2,
} from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { connect, InvalidResponseError, TaskHandle, UnknownToolError } from '../src/client/index.js'
import {
  createFetchHandler,
  defineServer,
  defineTool,
  MemoryTaskStore,
  type ToolDefinition,
} from '../src/index.js'
import type { Server } from '../src/server.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { recordingFetch } from './helpers/recording-fetch.js'
import { MAX_SEARCHED } from '../src/client/tools.js'

const NOUNS = ['invoice', 'customer', 'ticket', 'shipment', 'coupon', 'webhook', 'playlist', 'budget']
const VERBS = ['create', 'archive', 'delete', 'export', 'share', 'import', 'update', 'list']

/** 8 × 8 × 5 = 320 tools: `create_invoice_1` … */
function generated(): ToolDefinition[] {
  return NOUNS.flatMap((noun) =>
    VERBS.flatMap((verb) =>
      [1, 2, 3, 4, 5].map((n) =>
        defineTool({
          name: `${verb}_${noun}_${n}`,
          description: `${verb} a ${noun} in ledger ${n}`,
          inputSchema: z.object({ id: z.string() }),
          handler: ({ id }) => `${verb}d ${noun} ${id} in ledger ${n}`,
        }),
      ),
    ),
  )
}

let ranHidden = 0
const forecast = defineTool({
  name: 'weather_forecast',
  description: 'Temperature and rain for the coming days in a city',
  inputSchema: z.object({ city: z.string(), days: z.number().int() }),
  outputSchema: z.object({ city: z.string(), days: z.number() }),
  handler: ({ city, days }) => ({ city, days }),
})
const regional = defineTool({
  name: 'regional_lookup',
  description: 'Looks up a postcode in a region',
  inputSchema: {
    type: 'object',
    properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, postcode: { type: 'string' } },
    required: ['region', 'postcode'],
  },
  handler: (args) => `looked up ${String((args as { postcode: string }).postcode)}`,
})
const release = defineTool({
  name: 'release_pipeline',
  description: 'Runs the release pipeline of a version, asking before it publishes',
  inputSchema: z.object({ version: z.string() }),
  task: { support: 'optional', pollIntervalMs: 10 },
  handler: async ({ version }, ctx) => {
    const answer = await ctx.input.elicit({
      message: `Publish ${version}?`,
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    })
    return answer.content?.ok === true ? `Published ${version}` : 'Not published'
  },
})
const hidden = defineTool({
  name: 'admin_purge_ledger',
  description: 'Deletes every invoice in every ledger',
  handler: () => {
    ranHidden++
    return 'purged'
  },
})

let server: Server
let running: RunningServer

beforeAll(async () => {
  server = defineServer({
    name: 'ledger',
    version: '1.0.0',
    tools: [...generated(), forecast, regional, release, hidden],
    toolSearch: { minTools: 30, pinned: [] },
    toolVisibility: (tool) => !tool.name.startsWith('admin_'),
    tasks: { store: new MemoryTaskStore() },
    requestState: { secret: 'a test secret of at least thirty-two characters' },
    security: { rateLimit: false },
  })
  running = await serveNode(server, { port: 0, host: '127.0.0.1' })
})
afterAll(async () => {
  await running.close()
})

const yes = { elicitation: () => ({ action: 'accept' as const, content: { ok: true } }) }

describe('client.searchTools on a server with tool search', () => {
  it('returns full definitions, best first, and the found tool is called directly, its output checked', async () => {
    const client = connect({ url: running.url })
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool'])
      const found = await client.searchTools('rain in a city', { limit: 3 })
      expect(found.length).toBeLessThanOrEqual(3)
      expect(found[0]).toMatchObject({
        name: 'weather_forecast',
        inputSchema: { type: 'object', required: ['city', 'days'] },
        outputSchema: { type: 'object' },
      })
      expect(client.tool('weather_forecast')?.outputSchema).toBeDefined()
      // No allowUnlisted: the definition came from the search, so the result is checked against it.
      const result = await client.callTool('weather_forecast', { city: 'Lisbon', days: 2 })
      expect(result.structuredContent).toEqual({ city: 'Lisbon', days: 2 })
      expect((await client.searchTools('archive coupon ledger 4'))[0]?.name).toBe('archive_coupon_4')
      expect(await client.searchTools('export invoice', { limit: 50 })).toHaveLength(50)
      expect(await client.searchTools('zzzz qqqq')).toEqual([])
    } finally {
      await client.close()
    }
  })

  it('sends the Mcp-Param-* headers of a tool found by search (only its definition names them)', async () => {
    const recorder = recordingFetch((request) => fetch(request))
    const client = connect({ url: running.url, fetch: recorder.fetch })
    try {
      const [found] = await client.searchTools('postcode region lookup', { limit: 1 })
      expect(found?.name).toBe('regional_lookup')
      const result = await client.callTool('regional_lookup', { region: 'eu-west', postcode: '1000' })
      expect(result.content).toEqual([{ type: 'text', text: 'looked up 1000' }])
      const call = recorder.requests.find(
        (request) =>
          request.body.method === 'tools/call' &&
          (request.body.params as { name: string }).name === 'regional_lookup',
      )
      expect(call?.headers.get('mcp-param-region')).toBe('eu-west')
      expect(recorder.problems).toEqual([])
    } finally {
      await client.close()
    }
  })

  it('keeps refusing a tool neither listed nor found, and never finds or runs a hidden one', async () => {
    const recorder = recordingFetch((request) => fetch(request))
    const client = connect({ url: running.url, fetch: recorder.fetch })
    try {
      expect((await client.searchTools('rain in a city', { limit: 1 })).map((tool) => tool.name)).toEqual([
        'weather_forecast',
      ])
      const sentBefore = recorder.requests.length
      // Listed by no page and returned by no search: refused before a tools/call is sent.
      const unknown = await client.callTool('create_invoice_1', { id: 'x' }).catch((e: unknown) => e)
      expect(unknown).toBeInstanceOf(UnknownToolError)
      const sent = recorder.requests.slice(sentBefore).map((request) => request.body.method)
      expect(sent).toEqual(['tools/list'])
      const purge = await client.searchTools('admin purge every invoice ledger', { limit: 50 })
      expect(purge.map((tool) => tool.name)).not.toContain('admin_purge_ledger')
      await expect(client.callTool('admin_purge_ledger', {})).rejects.toBeInstanceOf(UnknownToolError)
      // Sent anyway, the server refuses it, directly and through call_tool alike.
      await expect(client.callTool('admin_purge_ledger', {}, { allowUnlisted: true })).rejects.toThrow(
        /Unknown tool: admin_purge_ledger/,
      )
      await expect(
        client.callTool('call_tool', { name: 'admin_purge_ledger', arguments: {} }),
      ).rejects.toThrow(/Unknown tool: admin_purge_ledger/)
      expect(ranHidden).toBe(0)
    } finally {
      await client.close()
    }
  })

  it('refuses a bad limit before sending, and says so when the server offers no search', async () => {
    const client = connect({ url: running.url })
    const plain = connect({
      url: 'http://127.0.0.1/mcp',
      fetch: createFetchHandler(defineServer({ name: 'small', version: '1', tools: [forecast] })),
    })
    try {
      await expect(client.searchTools('x', { limit: 0 })).rejects.toBeInstanceOf(RangeError)
      await expect(client.searchTools('x', { limit: 1.5 })).rejects.toBeInstanceOf(RangeError)
      // The server's own bound (50) is its answer: a tool error, thrown.
      await expect(client.searchTools('invoice', { limit: 51 })).rejects.toThrow(/limit/)
      const error = await plain.searchTools('rain').catch((e: unknown) => e)
      expect(error).toBeInstanceOf(UnknownToolError)
      expect((error as Error).message).toMatch(/search_tools: .*offers no tool search/)
    } finally {
      await client.close()
      await plain.close()
    }
  })
})

describe('a hostile search answer is checked like a hostile list', () => {
  /** A server whose search_tools takes only a query and answers with whatever `answer` holds. */
  const hostile = (answer: unknown) =>
    defineServer({
      name: 'hostile',
      version: '1',
      features: [
        {
          methods: {
            'tools/list': {
              handler: () => ({
                resultType: 'complete',
                tools: [
                  {
                    name: 'search_tools',
                    inputSchema: {
                      type: 'object',
                      properties: { query: { type: 'string' } },
                      additionalProperties: false,
                    },
                  },
                ],
              }),
            },
            'tools/call': {
              handler: (ctx) =>
                (ctx.params as { name: string }).name === 'search_tools'
                  ? {
                      resultType: 'complete',
                      content: [],
                      structuredContent: typeof answer === 'function' ? (answer as () => unknown)() : answer,
                    }
                  : {
                      resultType: 'complete',
                      content: [{ type: 'text', text: 'bad' }],
                      structuredContent: { n: 'not a number' },
                    },
            },
          },
        },
      ],
    })

  it('drops malformed and header-broken definitions with a warning, cuts past the limit, checks results', async () => {
    const many = Array.from({ length: 8 }, (_, i) => ({
      name: `extra_${i}`,
      inputSchema: { type: 'object' },
    }))
    const answer = {
      tools: [
        { name: 'no_schema' },
        'not an object',
        {
          name: 'bad_header',
          inputSchema: { type: 'object', properties: { data: { type: 'object', 'x-mcp-header': 'Data' } } },
        },
        {
          name: 'counted',
          inputSchema: { type: 'object' },
          outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
        },
        ...many,
      ],
    }
    const recorder = recordingFetch(createFetchHandler(hostile(answer)), { validate: false })
    const warnings: string[] = []
    const client = connect(
      { url: 'http://127.0.0.1/mcp', fetch: recorder.fetch },
      { warn: (m) => warnings.push(m) },
    )
    try {
      const found = await client.searchTools('anything', { limit: 5 })
      // The first five candidates: three refused, two kept.
      expect(found.map((tool) => tool.name)).toEqual(['counted', 'extra_0'])
      expect(warnings.join('\n')).toMatch(/without a name or an inputSchema/)
      expect(warnings.join('\n')).toMatch(/"bad_header".*x-mcp-header "Data"/)
      // No limit sent: this search tool declares none (and refuses unknown arguments).
      const search = recorder.requests.find((request) => request.body.method === 'tools/call')
      expect((search?.body.params as { arguments: unknown }).arguments).toEqual({ query: 'anything' })
      // A found tool's result is checked against the outputSchema it came with.
      await expect(client.callTool('counted', {})).rejects.toBeInstanceOf(InvalidResponseError)
      await expect(client.callTool('bad_header', {})).rejects.toThrow(/dropped this tool/)
      await expect(client.callTool('extra_7', {})).rejects.toBeInstanceOf(UnknownToolError)
    } finally {
      await client.close()
    }
  })

  it('remembers at most MAX_SEARCHED definitions found, the least recently used dropped', async () => {
    let served = 0
    const fresh = () => ({
      tools: Array.from({ length: 50 }, () => ({
        name: `found_${served++}`,
        inputSchema: { type: 'object' },
      })),
    })
    const client = connect({ url: 'http://127.0.0.1/mcp', fetch: createFetchHandler(hostile(fresh)) })
    try {
      for (let search = 0; search < MAX_SEARCHED / 50 + 1; search++)
        await client.searchTools('x', { limit: 50 })
      expect(served).toBe(MAX_SEARCHED + 50)
      expect(client.tool('found_0')).toBeUndefined()
      expect(client.tool('found_49')).toBeUndefined()
      expect(client.tool('found_50')?.name).toBe('found_50')
      expect(client.tool(`found_${served - 1}`)?.name).toBe(`found_${served - 1}`)
      await expect(client.callTool('found_0', {})).rejects.toBeInstanceOf(UnknownToolError)
    } finally {
      await client.close()
    }
  })

  it('refuses an answer without structuredContent.tools', async () => {
    for (const answer of [undefined, { tools: 'no' }, { found: [] }]) {
      const client = connect({ url: 'http://127.0.0.1/mcp', fetch: createFetchHandler(hostile(answer)) })
      await expect(client.searchTools('x')).rejects.toThrow(/structuredContent.tools/)
      await client.close()
    }
  })
})

describe('task-augmented calls through call_tool', () => {
  it('call_tool answers with the task of the named tool; polled to the end, its questions answered', async () => {
    const client = connect({ url: running.url }, { handlers: yes })
    try {
      const statuses: string[] = []
      const via = await client.callTool(
        'call_tool',
        { name: 'release_pipeline', arguments: { version: '2.0.0' } },
        { onTaskStatus: (task) => statuses.push(task.status) },
      )
      expect(via.content).toEqual([{ type: 'text', text: 'Published 2.0.0' }])
      expect(statuses).toContain('input_required')
      expect(statuses.at(-1)).toBe('completed')
      // The same as a direct task-augmented call of the found tool.
      await client.searchTools('release pipeline version')
      const direct = await client.callTool('release_pipeline', { version: '2.0.0' })
      expect(direct.content).toEqual(via.content)
    } finally {
      await client.close()
    }
  })

  it('with task: true call_tool returns the handle of a task another client can read', async () => {
    const client = connect({ url: running.url }, { handlers: yes })
    try {
      const handle = await client.callTool(
        'call_tool',
        { name: 'release_pipeline', arguments: { version: '3.1.0' } },
        { task: true },
      )
      expect(handle).toBeInstanceOf(TaskHandle)
      if (!(handle instanceof TaskHandle)) return
      await expect.poll(async () => (await handle.get()).status, { timeout: 20_000 }).toBe('input_required')
      const result = await handle.result()
      expect(result.content).toEqual([{ type: 'text', text: 'Published 3.1.0' }])
      // Invalid inner arguments are a tool error before any task is made, as in a direct call.
      const bad = await client.callTool('call_tool', { name: 'release_pipeline', arguments: { version: 3 } })
      expect(bad.isError).toBe(true)
      expect(JSON.stringify(bad.content)).toContain('Invalid arguments for tool release_pipeline')
    } finally {
      await client.close()
    }
  })
})

describe('the official SDK v2 client on 300+ tools', () => {
  it('lists the two search tools, searches, calls a found tool directly and through call_tool', async () => {
    const client = new ClientV2({ name: 'sdk-v2-test', version: '1.0.0' })
    const transport = new HttpTransportV2(new URL(running.url))
    await client.connect(transport)
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool'])
      const found = await client.callTool({
        name: 'search_tools',
        arguments: { query: 'share webhook ledger 2' },
      })
      const names = (found.structuredContent as { tools: { name: string }[] }).tools.map((tool) => tool.name)
      expect(names[0]).toBe('share_webhook_2')
      const direct = await client.callTool({ name: 'share_webhook_2', arguments: { id: 'w1' } })
      const via = await client.callTool({
        name: 'call_tool',
        arguments: { name: 'share_webhook_2', arguments: { id: 'w1' } },
      })
      expect(via).toEqual(direct)
      expect(via.content).toEqual([{ type: 'text', text: 'shared webhook w1 in ledger 2' }])
      const hiddenFound = await client.callTool({
        name: 'search_tools',
        arguments: { query: 'admin purge', limit: 50 },
      })
      expect(JSON.stringify(hiddenFound.structuredContent)).not.toContain('admin_purge_ledger')
      await expect(
        client.callTool({ name: 'call_tool', arguments: { name: 'admin_purge_ledger', arguments: {} } }),
      ).rejects.toThrow(/Unknown tool: admin_purge_ledger/)
      expect(ranHidden).toBe(0)
    } finally {
      await transport.terminateSession().catch(() => undefined)
      await client.close()
    }
  })
})
