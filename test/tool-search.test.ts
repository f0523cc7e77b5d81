/**
 * Tool search (`defineServer({ toolSearch })`) against real peers: the official SDK v2 and v1 clients and
 * toolwire's own client (2026-07-28) over Streamable HTTP, on a server with 300+ generated tools.
 */
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpTransportV2,
} from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { connect } from '../src/client/index.js'
import { defineServer, defineTool, ToolDefinitionError, type ToolDefinition } from '../src/index.js'
import type { Server } from '../src/server.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'

const VERBS = ['create', 'delete', 'list', 'update', 'archive', 'export', 'import', 'share']
const NOUNS = [
  'invoiceDraft',
  'customer',
  'ticket',
  'calendar-event',
  'repository',
  'pull.request',
  'dashboard',
  'spreadsheet',
  'contact',
  'shipment',
  'payment',
  'coupon',
  'playlist',
  'photo',
  'backup',
  'webhook',
  'firewall_rule',
  'dns_record',
  'kubernetes-pod',
  'email_template',
  'survey',
  'warehouse',
  'recipe',
  'flight',
  'hotelBooking',
  'podcast',
  'sensor',
  'badge',
  'lease',
  'vaccine',
  'timesheet',
  'budget',
  'course',
  'grade',
  'library_book',
  'parking_spot',
  'ferry',
  'telescope',
  'vineyard',
  'glacier',
]

/** 8 × 40 = 320 tools with varied names (camelCase, `-`, `.`, `_`) and descriptions. */
function generated(): ToolDefinition[] {
  const tools: ToolDefinition[] = []
  for (const noun of NOUNS) {
    for (const verb of VERBS) {
      const words = noun
        .replace(/[-._]/g, ' ')
        .replace(/([a-z])([A-Z])/g, '$1 $2')
        .toLowerCase()
      tools.push(
        defineTool({
          name: `${verb}_${noun}`,
          description: `${verb[0]?.toUpperCase()}${verb.slice(1)}s a ${words} record in the back office.`,
          inputSchema: z.object({ id: z.string().describe(`The ${words} identifier`) }),
          handler: ({ id }) => `${verb} ${words} ${id}`,
        }),
      )
    }
  }
  return tools
}

const forecast = defineTool({
  name: 'weather_forecast',
  title: 'Weather forecast',
  description: 'Tells the temperature and rain for the coming days in a city.',
  inputSchema: z.object({ city: z.string().describe('City name, e.g. Lisbon'), days: z.number().int() }),
  outputSchema: z.object({ city: z.string(), days: z.number() }),
  handler: ({ city, days }) => ({ city, days }),
})
const convert = defineTool({
  name: 'currencyConvert',
  description: 'Converts an amount of money between two currencies at today’s exchange rate.',
  inputSchema: z.object({ amount: z.number(), from: z.string(), to: z.string() }),
  handler: ({ amount, from, to }) => `${amount} ${from} = ${amount * 2} ${to}`,
})
const purge = defineTool({
  name: 'admin_purge_everything',
  description: 'Deletes every record in every warehouse. Weather forecast currency convert.',
  handler: () => 'purged',
})

const visibility = (tool: { name: string }): boolean => !tool.name.startsWith('admin_')

let server: Server
let running: RunningServer

beforeAll(async () => {
  server = defineServer({
    name: 'big',
    version: '1.0.0',
    tools: [...generated(), forecast, convert, purge],
    toolSearch: { minTools: 30, pinned: ['currencyConvert'] },
    toolVisibility: visibility,
  })
  running = await serveNode(server, { port: 0, host: '127.0.0.1' })
})
afterAll(async () => {
  await running.close()
})

type Listed = { name: string; inputSchema: unknown; outputSchema?: unknown; description?: string }
const structured = (result: unknown): { tools: Listed[] } =>
  (result as { structuredContent: { tools: Listed[] } }).structuredContent

describe('tool search with the official SDK v2 client', () => {
  let client: ClientV2
  let transport: HttpTransportV2
  beforeAll(async () => {
    client = new ClientV2({ name: 'sdk-v2-test', version: '1.0.0' })
    transport = new HttpTransportV2(new URL(running.url))
    await client.connect(transport)
  })
  afterAll(async () => {
    await transport.terminateSession().catch(() => undefined)
    await client.close()
  })

  it('lists the pinned tool and the two search tools only', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(['currencyConvert', 'search_tools', 'call_tool'])
  })

  it('ranks the expected tool first, with its full definition, and names the results in text', async () => {
    const cases: [string, string][] = [
      ['weather forecast for a city', 'weather_forecast'],
      ['archive hotel booking', 'archive_hotelBooking'],
      ['export kubernetes pod', 'export_kubernetes-pod'],
      ['share pull request', 'share_pull.request'],
      ['delete dns record', 'delete_dns_record'],
    ]
    for (const [query, expected] of cases) {
      const result = await client.callTool({ name: 'search_tools', arguments: { query, limit: 3 } })
      const found = structured(result).tools
      expect(found[0]?.name, query).toBe(expected)
      expect(found.length).toBeLessThanOrEqual(3)
      const text = (result.content as { type: string; text: string }[])[0]?.text ?? ''
      expect(JSON.parse(text)).toEqual(found.map((tool) => tool.name))
    }
    const weather = structured(
      await client.callTool({ name: 'search_tools', arguments: { query: 'temperature rain' } }),
    ).tools[0]
    expect(weather).toMatchObject({
      name: 'weather_forecast',
      title: 'Weather forecast',
      inputSchema: { type: 'object', required: ['city', 'days'] },
      outputSchema: { type: 'object' },
    })
  })

  it('finds by argument names and descriptions, and caps the limit at 50', async () => {
    const found = structured(await client.callTool({ name: 'search_tools', arguments: { query: 'Lisbon' } }))
    expect(found.tools[0]?.name).toBe('weather_forecast')
    const many = await client.callTool({ name: 'search_tools', arguments: { query: 'record', limit: 51 } })
    expect(many.isError).toBe(true)
    const fifty = await client.callTool({ name: 'search_tools', arguments: { query: 'record', limit: 50 } })
    expect(structured(fifty).tools).toHaveLength(50)
  })

  it('call_tool returns what a direct tools/call returns, errors included', async () => {
    const args = { city: 'Lisbon', days: 3 }
    const direct = await client.callTool({ name: 'weather_forecast', arguments: args })
    const via = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'weather_forecast', arguments: args },
    })
    expect(via).toEqual(direct)
    expect(via.structuredContent).toEqual(args)
    const bad = { city: 'Lisbon', days: 'many' }
    const directBad = await client.callTool({ name: 'weather_forecast', arguments: bad })
    const viaBad = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'weather_forecast', arguments: bad },
    })
    expect(directBad.isError).toBe(true)
    expect(viaBad).toEqual(directBad)
    expect(JSON.stringify(viaBad.content)).toContain('Invalid arguments for tool weather_forecast')
  })

  it('a tool hidden from this caller is neither found nor callable through call_tool', async () => {
    const found = structured(
      await client.callTool({
        name: 'search_tools',
        arguments: { query: 'admin purge everything', limit: 50 },
      }),
    ).tools
    expect(found.map((tool) => tool.name)).not.toContain('admin_purge_everything')
    const direct = await client.callTool({ name: 'admin_purge_everything', arguments: {} }).then(
      () => 'answered',
      (error: Error) => error.message,
    )
    const via = await client
      .callTool({ name: 'call_tool', arguments: { name: 'admin_purge_everything', arguments: {} } })
      .then(
        () => 'answered',
        (error: Error) => error.message,
      )
    expect(direct).toContain('Unknown tool: admin_purge_everything')
    expect(via).toBe(direct)
    const nested = await client
      .callTool({ name: 'call_tool', arguments: { name: 'call_tool', arguments: { name: 'x' } } })
      .then(
        () => 'answered',
        (error: Error) => error.message,
      )
    expect(nested).toContain('Unknown tool: call_tool')
  })

  it('a tool added at runtime becomes searchable; the index is rebuilt once for the change', async () => {
    const before = server.toolSearch?.builds ?? 0
    await client.callTool({ name: 'search_tools', arguments: { query: 'zebra' } })
    await client.callTool({ name: 'search_tools', arguments: { query: 'stripes' } })
    const built = server.toolSearch?.builds ?? 0
    expect(built - before).toBeLessThanOrEqual(1)
    server.tools.add(
      defineTool({
        name: 'count_zebra_stripes',
        description: 'Counts the stripes of a zebra.',
        handler: () => 42,
      }),
    )
    try {
      const found = structured(
        await client.callTool({ name: 'search_tools', arguments: { query: 'zebra stripes' } }),
      )
      expect(found.tools[0]?.name).toBe('count_zebra_stripes')
      expect(server.toolSearch?.builds).toBe(built + 1)
      const via = await client.callTool({ name: 'call_tool', arguments: { name: 'count_zebra_stripes' } })
      expect(via.content).toEqual([{ type: 'text', text: '42' }])
    } finally {
      server.tools.remove('count_zebra_stripes')
    }
  })
})

describe('tool search on 2026-07-28 (toolwire client)', () => {
  it('lists pinned + 2 with the list cache hints, searches and calls through call_tool', async () => {
    const client = connect({ url: running.url })
    try {
      const listed = await client.request('tools/list', {})
      expect((listed.tools as { name: string }[]).map((tool) => tool.name)).toEqual([
        'currencyConvert',
        'search_tools',
        'call_tool',
      ])
      expect(listed).toMatchObject({ ttlMs: 300_000, cacheScope: 'private' })
      const found = await client.callTool('search_tools', { query: 'convert money currencies' })
      expect(structured(found).tools[0]?.name).toBe('currencyConvert')
      const direct = await client.callTool('currencyConvert', { amount: 2, from: 'EUR', to: 'USD' })
      const via = await client.callTool('call_tool', {
        name: 'currencyConvert',
        arguments: { amount: 2, from: 'EUR', to: 'USD' },
      })
      expect(via.content).toEqual(direct.content)
    } finally {
      await client.close()
    }
  })
})

describe('tool search with the official SDK v1 client (2025-era session)', () => {
  it('lists pinned + 2, searches and calls through call_tool', async () => {
    const client = new SdkClient({ name: 'sdk-v1-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url)))
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual(['currencyConvert', 'search_tools', 'call_tool'])
      const found = await client.callTool({ name: 'search_tools', arguments: { query: 'forecast rain' } })
      expect(structured(found).tools[0]?.name).toBe('weather_forecast')
      const via = await client.callTool({
        name: 'call_tool',
        arguments: { name: 'weather_forecast', arguments: { city: 'Porto', days: 1 } },
      })
      expect(via.structuredContent).toEqual({ city: 'Porto', days: 1 })
    } finally {
      await client.close()
    }
  })
})

describe('tool search thresholds and definitions', () => {
  it('below minTools the list is unchanged', async () => {
    const small = defineServer({
      name: 'small',
      version: '1.0.0',
      tools: generated().slice(0, 30),
      toolSearch: true,
    })
    const http = await serveNode(small, { port: 0, host: '127.0.0.1' })
    const client = new ClientV2({ name: 'sdk-v2-test', version: '1.0.0' })
    await client.connect(new HttpTransportV2(new URL(http.url)))
    try {
      const { tools } = await client.listTools()
      expect(tools).toHaveLength(30)
      expect(tools.map((tool) => tool.name)).not.toContain('search_tools')
      small.tools.add(defineTool({ name: 'one_more', handler: () => 'x' }))
      const grown = await client.listTools()
      expect(grown.tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool'])
    } finally {
      await client.close()
      await http.close()
    }
  })

  it('refuses a server tool named search_tools or call_tool, at definition and at runtime', () => {
    for (const name of ['search_tools', 'call_tool']) {
      expect(() =>
        defineServer({
          name: 's',
          version: '1',
          tools: [defineTool({ name, handler: () => 1 })],
          toolSearch: true,
        }),
      ).toThrow(ToolDefinitionError)
    }
    const s = defineServer({ name: 's', version: '1', tools: [], toolSearch: true })
    expect(() => s.tools.add(defineTool({ name: 'call_tool', handler: () => 1 }))).toThrow(
      /reserved by toolSearch/,
    )
    // Without toolSearch the names are ordinary.
    expect(() =>
      defineServer({ name: 's', version: '1', tools: [defineTool({ name: 'call_tool', handler: () => 1 })] }),
    ).not.toThrow()
    expect(() => defineServer({ name: 's', version: '1', toolSearch: { pinned: ['nope'] } })).toThrow(
      /toolSearch.pinned names nope/,
    )
    expect(() => defineServer({ name: 's', version: '1', toolSearch: { minTools: -1 } })).toThrow(/minTools/)
  })
})
