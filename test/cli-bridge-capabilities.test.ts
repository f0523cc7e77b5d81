/**
 * `toolwire bridge` declares upstream the client capabilities its caller declared: the built CLI in front of
 * @modelcontextprotocol/server-everything (stdio), which registers `trigger-sampling-request`,
 * `get-roots-list`, `trigger-elicitation-request` … only for a client that declared sampling, roots,
 * elicitation. The SDK v1 and SDK v2 clients list through the bridge exactly what they list directly with
 * the same declaration (everything, nothing, roots alone); with `--isolate` (and `isolate` on a gateway
 * member) two callers declaring differently at the same time each get their own list; the sampling and
 * roots tools answer end to end through the bridge, the caller answering (roots as directly with
 * `--isolate`; see that test).
 */
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpTransportV2,
} from '@modelcontextprotocol/client'
import { StdioClientTransport as StdioTransportV2 } from '@modelcontextprotocol/client/stdio'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningCli, startCli, stopCli } from './helpers/cli-process.js'
import { EVERYTHING_SERVER } from './helpers/paths.js'
import { textOf } from './helpers/wait.js'

const EVERYTHING = { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} }
const DECLARATIONS = { everything: EVERYTHING, nothing: {}, 'roots alone': { roots: {} } } as const
const ASKING_TOOLS = ['trigger-sampling-request', 'get-roots-list', 'trigger-elicitation-request']
const ROOTS = [{ uri: 'file:///work/a', name: 'a' }]
const SAMPLED = { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'Paris' } } as const

type Via = { readonly url: string } | 'direct'

interface Caller {
  listTools(): Promise<string[]>
  callTool(name: string, args: Record<string, unknown>): Promise<unknown>
  close(): Promise<void>
}

const direct = { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], stderr: 'ignore' as const }

/**
 * The SDK v1 client declaring `capabilities`, answering what it declared (the SDK takes no handler for the
 * rest): sampling like a model, elicitation with a decline, roots with ROOTS.
 */
async function sdkV1(via: Via, capabilities: object): Promise<Caller> {
  const client = new SdkClient({ name: 'sdk-v1', version: '1.0.0' }, { capabilities })
  if ('sampling' in capabilities) client.setRequestHandler(CreateMessageRequestSchema, () => SAMPLED)
  if ('elicitation' in capabilities)
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'decline' }))
  if ('roots' in capabilities) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: ROOTS }))
  await client.connect(
    via === 'direct' ? new StdioClientTransport(direct) : new StreamableHTTPClientTransport(new URL(via.url)),
  )
  return {
    listTools: async () => (await client.listTools()).tools.map((tool) => tool.name).sort(),
    callTool: (name, args) => client.callTool({ name, arguments: args }),
    close: () => client.close(),
  }
}

/** The SDK v2 client, on its default negotiation, with the same handlers. */
async function sdkV2(via: Via, capabilities: object): Promise<Caller> {
  const client = new ClientV2({ name: 'sdk-v2', version: '1.0.0' }, { capabilities })
  if ('sampling' in capabilities) client.setRequestHandler('sampling/createMessage', () => SAMPLED)
  if ('elicitation' in capabilities)
    client.setRequestHandler('elicitation/create', () => ({ action: 'decline' }))
  if ('roots' in capabilities) client.setRequestHandler('roots/list', () => ({ roots: ROOTS }))
  await client.connect(
    via === 'direct' ? new StdioTransportV2(direct) : new HttpTransportV2(new URL(via.url)),
  )
  return {
    listTools: async () => (await client.listTools()).tools.map((tool) => tool.name).sort(),
    callTool: (name, args) => client.callTool({ name, arguments: args }),
    close: () => client.close(),
  }
}

const CLIENTS = { 'SDK v1': sdkV1, 'SDK v2': sdkV2 } as const

async function listed(open: typeof sdkV1, via: Via, capabilities: object): Promise<string[]> {
  const caller = await open(via, capabilities)
  return caller.listTools().finally(() => caller.close())
}

/** What the sampling and roots tools answer, the caller answering. */
async function asked(open: typeof sdkV1, via: Via): Promise<unknown[]> {
  const caller = await open(via, EVERYTHING)
  try {
    return [
      await caller.callTool('trigger-sampling-request', { prompt: 'Capital of France?', maxTokens: 10 }),
      await caller.callTool('get-roots-list', {}),
    ]
  } finally {
    await caller.close()
  }
}

const bridgeArgs = (...flags: string[]): string[] => [
  'bridge',
  '--http',
  '127.0.0.1:0',
  ...flags,
  '--',
  process.execPath,
  EVERYTHING_SERVER,
  'stdio',
]

describe('server-everything behind toolwire bridge, callers declaring different capabilities', () => {
  let bridge: RunningCli | undefined
  let isolated: RunningCli | undefined
  let gateway: RunningCli | undefined
  let member = ''
  /** Directly listed tools, per client and declaration. */
  const alone = new Map<string, string[]>()
  beforeAll(async () => {
    const config = join(mkdtempSync(join(tmpdir(), 'toolwire-capabilities-')), 'mcp.json')
    const everything = { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], isolate: true }
    writeFileSync(config, JSON.stringify({ mcpServers: { everything } }))
    ;[bridge, isolated, gateway] = await Promise.all([
      startCli(bridgeArgs()),
      startCli(bridgeArgs('--isolate')),
      startCli(['gateway', config, '--http', '127.0.0.1:0']),
    ])
    member = new URL('servers/everything/mcp', new URL('.', gateway.url)).href
    for (const [client, open] of Object.entries(CLIENTS)) {
      for (const [declared, capabilities] of Object.entries(DECLARATIONS))
        alone.set(`${client} ${declared}`, await listed(open, 'direct', capabilities))
    }
  }, 120_000)
  afterAll(async () => {
    await Promise.all([stopCli(bridge), stopCli(isolated), stopCli(gateway)])
  })

  it('lists the asking tools directly only to a client that declared what they ask', () => {
    for (const client of Object.keys(CLIENTS)) {
      expect(alone.get(`${client} everything`)).toEqual(expect.arrayContaining(ASKING_TOOLS))
      for (const tool of ASKING_TOOLS) expect(alone.get(`${client} nothing`)).not.toContain(tool)
      expect(alone.get(`${client} roots alone`)).toContain('get-roots-list')
      expect(alone.get(`${client} roots alone`)).not.toContain('trigger-sampling-request')
    }
  })

  for (const [client, open] of Object.entries(CLIENTS)) {
    for (const [declared, capabilities] of Object.entries(DECLARATIONS)) {
      it(`lists the ${client} client declaring ${declared} what it lists directly`, async () => {
        expect(await listed(open, { url: bridge!.url }, capabilities)).toEqual(
          alone.get(`${client} ${declared}`),
        )
      }, 60_000)
    }

    it(`answers the ${client} client's sampling and roots tools end to end, the caller answering`, async () => {
      const [sampled, roots] = await asked(open, 'direct')
      expect(JSON.stringify(sampled)).toMatch(/Paris/)
      expect(JSON.stringify(roots)).toMatch(/file:\/\/\/work\/a/)
      // With --isolate the caller's own process starts during its call, so the roots server-everything asks
      // right after initialize (and answers get-roots-list from) are that caller's: as directly.
      expect(await asked(open, { url: isolated!.url })).toEqual([sampled, roots])
      // The shared process asked them at start, when no caller was being served, and heard the empty list
      // (docs: Roots before any caller); the tool is there and answers, roots declared.
      const [viaBridge, rootsViaBridge] = await asked(open, { url: bridge!.url })
      expect(viaBridge).toEqual(sampled)
      expect(textOf(rootsViaBridge)).toMatch(/supports roots but no roots are currently configured/)
    }, 90_000)
  }

  it('refuses the asking tools to a caller that declared nothing, as they are unknown to it directly', async () => {
    const caller = await sdkV1({ url: bridge!.url }, {})
    try {
      const outcome = await caller.callTool('trigger-sampling-request', { prompt: 'x' }).then(
        (result) => JSON.stringify(result),
        (error: Error) => error.message,
      )
      expect(outcome).toMatch(/Unknown tool: trigger-sampling-request/)
    } finally {
      await caller.close()
    }
  }, 60_000)

  it('with --isolate, and on an isolated gateway member, gives two callers declaring differently their own lists at the same time', async () => {
    for (const url of [isolated!.url, member]) {
      for (const [client, open] of Object.entries(CLIENTS)) {
        const [everything, nothing] = await Promise.all([
          listed(open, { url }, EVERYTHING),
          listed(open, { url }, {}),
        ])
        expect(everything).toEqual(alone.get(`${client} everything`))
        expect(nothing).toEqual(alone.get(`${client} nothing`))
      }
    }
  }, 120_000)
})
