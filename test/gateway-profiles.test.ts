/**
 * Gateway profiles (`defineGateway({ profiles })`, `gateway.profile(name)`) with real peers: a toolwire
 * member with 320+ tools and a server built with the official SDK v1 (Streamable HTTP, sessions) behind one
 * gateway; the official SDK v2 client (2025-11-25 sessions) and toolwire's client (2026-07-28) list, search
 * and call through search on a profile. What a profile leaves out is not listed, not found and not callable;
 * a profile announces a list change only when its own list changes.
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpTransportV2,
} from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { type Client, connect } from '../src/client/index.js'
import {
  createFetchHandler,
  defineServer,
  defineTool,
  ToolDefinitionError,
  type ToolDefinition,
} from '../src/index.js'
import { defineGateway, type GatewayServer, MAX_PROFILES } from '../src/proxy/index.js'
import type { Server } from '../src/server.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'
import { type RunningSdkV1Http, startSdkV1Http } from './fixtures/sdk-v1-server.mjs'

const VERBS = ['create', 'delete', 'list', 'update', 'archive', 'export', 'import', 'share']
const NOUNS = [
  'invoice',
  'customer',
  'ticket',
  'repository',
  'dashboard',
  'spreadsheet',
  'contact',
  'shipment',
]
const MORE = ['payment', 'coupon', 'playlist', 'photo', 'backup', 'webhook', 'survey', 'warehouse', 'recipe']
const EXTRA = ['flight', 'podcast', 'sensor', 'badge', 'lease', 'timesheet', 'budget', 'course', 'grade']
const LAST = [
  'ferry',
  'telescope',
  'vineyard',
  'glacier',
  'parking',
  'library',
  'vaccine',
  'hotel',
  'dns',
  'pod',
]

/** 8 × 36 = 288 generated tools, plus the hand-written ones below: 291 with the admin tool. */
function generated(): ToolDefinition[] {
  return [...NOUNS, ...MORE, ...EXTRA, ...LAST].flatMap((noun) =>
    VERBS.map((verb) =>
      defineTool({
        name: `${verb}_${noun}`,
        description: `${verb[0]?.toUpperCase()}${verb.slice(1)}s a ${noun} record in the back office.`,
        inputSchema: z.object({ id: z.string().describe(`The ${noun} identifier`) }),
        handler: ({ id }) => `${verb} ${noun} ${id}`,
      }),
    ),
  )
}

const forecast = defineTool({
  name: 'weather_forecast',
  description: 'Tells the temperature and rain for the coming days in a city.',
  inputSchema: z.object({ city: z.string(), days: z.number().int() }),
  outputSchema: z.object({ city: z.string(), days: z.number() }),
  handler: ({ city, days }) => ({ city, days }),
})
const purge = defineTool({
  name: 'admin_purge',
  description: 'Deletes every record in every warehouse: the weather forecast of doom.',
  handler: () => 'purged',
})
const filler = Array.from({ length: 20 }, (_, index) =>
  defineTool({ name: `misc_${index}`, description: `Miscellaneous helper ${index}`, handler: () => 'ok' }),
)

let big: Server
let v1: RunningSdkV1Http
let gateway: GatewayServer
const running: RunningServer[] = []
const urls: Record<string, string> = {}

beforeAll(async () => {
  big = defineServer({ name: 'big', version: '1.0.0', tools: [...generated(), forecast, purge, ...filler] })
  const bigFetch = createFetchHandler(big)
  v1 = await startSdkV1Http()
  gateway = await defineGateway({
    name: 'gw',
    version: '1.0.0',
    logger: { warn: () => {}, error: () => {} },
    members: {
      big: { target: (options) => connect({ url: 'http://big.test/mcp', fetch: bigFetch }, options) },
      v1: { target: { url: v1.url } },
    },
    toolSearch: { minTools: 50 },
    profiles: {
      ops: {
        include: ['big_*', 'v1_add', 'v1_extra_*'],
        exclude: ['big_admin_*', 'big_misc_*'],
        toolSearch: { minTools: 20, pinned: ['v1_add'] },
      },
      calc: { include: ['v1_add', 'big_marker_*'] },
      v1only: { include: ['v1_*'] },
    },
  })
  for (const name of gateway.profiles) {
    const served = await serveNode(await gateway.profile(name), { port: 0, host: '127.0.0.1' })
    running.push(served)
    urls[name] = served.url
  }
  const merged = await serveNode(gateway, { port: 0, host: '127.0.0.1' })
  running.push(merged)
  urls.merged = merged.url
}, 60_000)

afterAll(async () => {
  for (const served of running) await served.close()
  await gateway?.close()
  await v1?.close()
})

type Listed = { name: string; inputSchema: unknown }
const found = (result: unknown): string[] =>
  (result as { structuredContent: { tools: Listed[] } }).structuredContent.tools.map((tool) => tool.name)

describe('a gateway profile with the official SDK v2 client', () => {
  let client: ClientV2
  let transport: HttpTransportV2
  beforeAll(async () => {
    client = new ClientV2({ name: 'sdk-v2-test', version: '1.0.0' })
    transport = new HttpTransportV2(new URL(urls.ops as string))
    await client.connect(transport)
  })
  afterAll(async () => {
    await transport.terminateSession().catch(() => undefined)
    await client.close()
  })

  it('lists the pinned tool and the two search tools', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(['v1_add', 'search_tools', 'call_tool'])
  })

  it('searches the profile’s tools of both members, namespaced as on /mcp, and calls through search', async () => {
    const weather = await client.callTool({ name: 'search_tools', arguments: { query: 'weather forecast' } })
    expect(found(weather)[0]).toBe('big_weather_forecast')
    const adds = await client.callTool({ name: 'search_tools', arguments: { query: 'adds two numbers' } })
    expect(found(adds)[0]).toBe('v1_add')
    const archive = await client.callTool({ name: 'search_tools', arguments: { query: 'archive glacier' } })
    expect(found(archive)[0]).toBe('big_archive_glacier')
    const sum = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'v1_add', arguments: { a: 2, b: 3 } },
    })
    expect(sum.structuredContent).toEqual({ sum: 5 })
    const via = await client.callTool({
      name: 'call_tool',
      arguments: { name: 'big_weather_forecast', arguments: { city: 'Lisbon', days: 2 } },
    })
    expect(via.structuredContent).toEqual({ city: 'Lisbon', days: 2 })
    const direct = await client.callTool({ name: 'big_export_ferry', arguments: { id: '7' } })
    expect(direct.content).toEqual([{ type: 'text', text: 'export ferry 7' }])
  })

  it('never lists, finds or calls what the profile leaves out', async () => {
    for (const query of [
      'purge every record warehouse doom',
      'miscellaneous helper',
      'reports progress',
      'adds another tool',
    ]) {
      const names = found(await client.callTool({ name: 'search_tools', arguments: { query, limit: 50 } }))
      expect(
        names.filter((name) => /admin|misc|steps|grow|slow/.test(name)),
        query,
      ).toEqual([])
    }
    for (const name of ['big_admin_purge', 'big_misc_3', 'v1_grow', 'v1_steps']) {
      await expect(client.callTool({ name, arguments: {} }), name).rejects.toThrow(/Unknown tool/)
      const via = client.callTool({ name: 'call_tool', arguments: { name, arguments: {} } })
      await expect(via, `call_tool ${name}`).rejects.toThrow(/Unknown tool/)
    }
  })
})

describe('the same gateway on /mcp and with toolwire’s client (2026-07-28)', () => {
  let client: Client
  afterAll(async () => {
    await client?.close()
  })

  it('serves the profile statelessly alike', async () => {
    client = connect({ url: urls.ops as string }, { warn: () => {} })
    const listed = await client.listTools()
    expect(listed.tools.map((tool) => tool.name)).toEqual(['v1_add', 'search_tools', 'call_tool'])
    const result = await client.callTool('search_tools', { query: 'share playlist', limit: 3 })
    expect(found(result)[0]).toBe('big_share_playlist')
    const called = await client.callTool('call_tool', { name: 'big_share_playlist', arguments: { id: 'x' } })
    expect(called.content).toEqual([{ type: 'text', text: 'share playlist x' }])
    const refused = client.callTool('call_tool', { name: 'big_admin_purge', arguments: {} })
    await expect(refused).rejects.toThrow(/Unknown tool/)
  })

  it('searches everything on /mcp with the top-level toolSearch: the exclusion is the profile’s', async () => {
    const merged = connect({ url: urls.merged as string }, { warn: () => {} })
    try {
      const listed = await merged.listTools()
      expect(listed.tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool'])
      const result = await merged.callTool('search_tools', { query: 'purge every record warehouse' })
      expect(found(result)[0]).toBe('big_admin_purge')
      expect(
        (await merged.callTool('call_tool', { name: 'big_admin_purge', arguments: {} })).content,
      ).toEqual([{ type: 'text', text: 'purged' }])
    } finally {
      await merged.close()
    }
  })

  it('a profile without toolSearch lists its whole subset', async () => {
    const calc = connect({ url: urls.calc as string }, { warn: () => {} })
    try {
      expect((await calc.listTools()).tools.map((tool) => tool.name)).toEqual(['v1_add'])
    } finally {
      await calc.close()
    }
  })
})

describe('list changes on profiles', () => {
  it('announces a change to the profiles whose list it changes, and only to them', async () => {
    const seen: Record<string, number> = { calc: 0, v1only: 0 }
    const clients = ['calc', 'v1only'].map(
      (name) => [name, connect({ url: urls[name] as string }, { warn: () => {} })] as const,
    )
    try {
      for (const [name, client] of clients) {
        await client.subscribe(
          { toolsListChanged: true },
          {
            onNotification: (n) =>
              n.method === 'notifications/tools/list_changed' && (seen[name] = (seen[name] ?? 0) + 1),
          },
        )
      }
      const [[, calc], [, v1only]] = clients as unknown as [[string, Client], [string, Client]]
      // On the big member: a tool no profile here offers, then one calc offers.
      big.tools.add(defineTool({ name: 'zzz_unrelated', handler: () => 'no' }))
      big.tools.add(defineTool({ name: 'marker_one', handler: () => 'marked' }))
      await expect
        .poll(async () => (await calc.listTools({ fresh: true })).tools.map((t) => t.name), {
          timeout: 20_000,
        })
        .toEqual(['v1_add', 'big_marker_one'])
      await expect.poll(() => seen.calc, { timeout: 20_000 }).toBe(1)
      // On the SDK v1 member: `grow` adds extra_1, which v1only offers and calc does not.
      const merged = connect({ url: urls.merged as string }, { warn: () => {} })
      await merged.callTool('call_tool', { name: 'v1_grow', arguments: {} })
      await merged.close()
      await expect
        .poll(async () => (await v1only.listTools({ fresh: true })).tools.map((t) => t.name), {
          timeout: 20_000,
        })
        .toContain('v1_extra_1')
      await expect.poll(() => seen.v1only, { timeout: 20_000 }).toBe(1)
      expect(seen.calc).toBe(1)
      expect((await calc.listTools({ fresh: true })).tools.map((t) => t.name)).toEqual([
        'v1_add',
        'big_marker_one',
      ])
    } finally {
      for (const [, client] of clients) await client.close()
    }
  }, 60_000)
})

describe('profile configuration', () => {
  const members = { m: { target: () => opened() } }
  let opens = 0
  const opened = (): never => {
    opens++
    throw new Error('must not be opened')
  }

  it('refuses bad names, shapes and too many profiles before any member starts', async () => {
    const cases: [unknown, RegExp][] = [
      [{ 'a/b': {} }, /profiles: "a\/b" is not a profile name/],
      [{ '..': {} }, /profiles: "\.\." is not a profile name/],
      [{ ['x'.repeat(65)]: {} }, /is not a profile name \(1-64 characters/],
      [{ ops: [] }, /profiles\.ops must be an object/],
      [
        { ops: { excludes: ['a'] } },
        /profiles\.ops has unknown keys excludes \(it takes include, exclude, toolSearch\)/,
      ],
      [{ ops: { include: 'fs_*' } }, /profiles\.ops\.include must be an array of glob strings/],
      [{ ops: { toolSearch: 'yes' } }, /profiles\.ops\.toolSearch must be true or an object/],
      [
        { ops: { toolSearch: { minTools: -1 } } },
        /profiles\.ops\.toolSearch\.minTools must be an integer >= 0/,
      ],
      [{ ops: { toolSearch: { limit: 3 } } }, /profiles\.ops\.toolSearch has unknown keys limit/],
      [
        Object.fromEntries(Array.from({ length: MAX_PROFILES + 1 }, (_, i) => [`p${i}`, {}])),
        new RegExp(`profiles: ${MAX_PROFILES + 1} profiles, at most ${MAX_PROFILES}`),
      ],
    ]
    for (const [profiles, message] of cases) {
      await expect(defineGateway({ members, profiles } as never), String(message)).rejects.toThrow(message)
    }
    expect(opens).toBe(0)
    const most = Object.fromEntries(Array.from({ length: MAX_PROFILES }, (_, i) => [`p${i}`, {}]))
    await expect(defineGateway({ members, profiles: most })).rejects.toThrow(/member m: must not be opened/)
    expect(opens).toBe(1)
  })

  it('refuses pinned tools no member offers or the profile leaves out, naming them', async () => {
    const small = createFetchHandler(defineServer({ name: 's', version: '1', tools: [forecast, purge] }))
    const target = {
      target: (options: object) => connect({ url: 'http://s.test/mcp', fetch: small }, options),
    }
    const define = (options: object): Promise<GatewayServer> =>
      defineGateway({ members: { s: target }, ...options })
    await expect(define({ toolSearch: { pinned: ['weather_forecast'] } })).rejects.toThrow(
      new ToolDefinitionError(
        'defineGateway: toolSearch.pinned names "weather_forecast", which no member offers (pin namespaced names such as "s_weather_forecast")',
      ),
    )
    await expect(
      define({ profiles: { p: { exclude: ['s_admin_*'], toolSearch: { pinned: ['s_admin_purge'] } } } }),
    ).rejects.toThrow(
      /profiles\.p\.toolSearch\.pinned names "s_admin_purge", which the profile's include\/exclude leave out/,
    )
    const fine = await define({ profiles: { p: { toolSearch: { minTools: 0, pinned: ['s_admin_purge'] } } } })
    try {
      await expect(fine.profile('nope')).rejects.toThrow('no gateway profile "nope"')
      const profile = await fine.profile('p')
      const fetch = createFetchHandler(profile)
      const client = connect({ url: 'http://p.test/mcp', fetch }, { warn: () => {} })
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
        's_admin_purge',
        'search_tools',
        'call_tool',
      ])
      await client.close()
      await profile.close()
      // The profile's close leaves the shared upstream open for the gateway.
      const merged = connect(
        { url: 'http://g.test/mcp', fetch: createFetchHandler(fine) },
        { warn: () => {} },
      )
      expect((await merged.callTool('s_admin_purge', {})).content).toEqual([{ type: 'text', text: 'purged' }])
      await merged.close()
    } finally {
      await fine.close()
    }
  })
})
