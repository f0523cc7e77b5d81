/**
 * `toolwire bridge` and `toolwire gateway` relay what an upstream asks during a call (sampling, elicitation,
 * roots) through one code path: the built CLI in front of an official SDK v1 server (stdio) whose tools ask
 * through the SDK's own helpers (`createMessage`, `elicitInput`, `listRoots`, which check the client's
 * declared capabilities first), called by the SDK v1 and SDK v2 clients. What they get through the bridge
 * equals what they get from the gateway's member endpoint and from the server directly. The bridge's URL
 * bridged again to stdio (`bridge <url> --stdio`) answers alike. (What server-everything lists through the
 * bridge to callers declaring different capabilities: cli-bridge-capabilities.test.ts.)
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  McpError as SdkError,
} from '@modelcontextprotocol/sdk/types.js'
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpTransportV2,
} from '@modelcontextprotocol/client'
import { StdioClientTransport as StdioTransportV2 } from '@modelcontextprotocol/client/stdio'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningCli, startCli, stopCli } from './helpers/cli-process.js'
import { CLI, ROOT } from './helpers/paths.js'

const ASKING = join(ROOT, 'test', 'fixtures', 'sdk-v1-asking-server.mjs')
const CAPABILITIES = { sampling: {}, elicitation: { form: {} }, roots: {} }
const ROOTS = [{ uri: 'file:///work/a' }, { uri: 'file:///work/b' }]

/** How the calling client answers: like a user and a model, or declining every form, or refusing sampling. */
type Answering = 'accept' | 'decline' | 'refuse'

type Via = { readonly url: string } | { readonly command: string; readonly args: string[] }

interface Caller {
  callTool(name: string): Promise<unknown>
  listTools(): Promise<string[]>
  close(): Promise<void>
}

const sampled = { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'Paris' } } as const
const elicited = (answering: Answering) =>
  answering === 'decline'
    ? { action: 'decline' as const }
    : { action: 'accept' as const, content: { ok: true } }

/** The SDK v1 client, declaring sampling, form elicitation and roots with a handler for each. */
async function sdkV1(via: Via, answering: Answering, capabilities: object = CAPABILITIES): Promise<Caller> {
  const client = new SdkClient({ name: 'sdk-v1', version: '1.0.0' }, { capabilities })
  client.setRequestHandler(CreateMessageRequestSchema, () => {
    if (answering === 'refuse') throw new SdkError(-1, 'the user refused to let the model answer')
    return sampled
  })
  client.setRequestHandler(ElicitRequestSchema, () => elicited(answering))
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: ROOTS }))
  await client.connect(
    'url' in via
      ? new StreamableHTTPClientTransport(new URL(via.url))
      : new StdioClientTransport({ ...via, stderr: 'ignore' }),
  )
  return {
    callTool: (name) => client.callTool({ name, arguments: {} }),
    listTools: async () => (await client.listTools()).tools.map((tool) => tool.name).sort(),
    close: () => client.close(),
  }
}

/** The SDK v2 client on its default negotiation, with the same handlers. */
async function sdkV2(via: Via, answering: Answering): Promise<Caller> {
  const client = new ClientV2({ name: 'sdk-v2', version: '1.0.0' }, { capabilities: CAPABILITIES })
  client.setRequestHandler('sampling/createMessage', () => {
    if (answering === 'refuse') throw new Error('the user refused to let the model answer')
    return sampled
  })
  client.setRequestHandler('elicitation/create', () => elicited(answering))
  client.setRequestHandler('roots/list', () => ({ roots: ROOTS }))
  await client.connect(
    'url' in via ? new HttpTransportV2(new URL(via.url)) : new StdioTransportV2({ ...via, stderr: 'ignore' }),
  )
  return {
    callTool: (name) => client.callTool({ name, arguments: {} }),
    listTools: async () => (await client.listTools()).tools.map((tool) => tool.name).sort(),
    close: () => client.close(),
  }
}

const CLIENTS = { 'SDK v1': sdkV1, 'SDK v2': sdkV2 } as const

/** Each tool's outcome: its result, or the error it ended in (code and message). */
async function outcomes(caller: Caller, tools: readonly string[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {}
  try {
    for (const tool of tools) {
      out[tool] = await caller.callTool(tool).catch((error: { code?: number; message: string }) => ({
        error: error.code,
        message: error.message,
      }))
    }
  } finally {
    await caller.close()
  }
  return out
}

const TOOLS = ['ask_model', 'confirm', 'list_roots'] as const
const direct: Via = { command: process.execPath, args: [ASKING] }

describe('an SDK v1 server that asks, behind toolwire bridge and toolwire gateway', () => {
  let bridge: RunningCli | undefined
  let gateway: RunningCli | undefined
  let member = ''
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-relay-'))
    const config = join(dir, 'mcp.json')
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { ask: { command: process.execPath, args: [ASKING] } } }),
    )
    ;[bridge, gateway] = await Promise.all([
      startCli(['bridge', '--http', '127.0.0.1:0', '--', process.execPath, ASKING]),
      startCli(['gateway', config, '--http', '127.0.0.1:0']),
    ])
    member = new URL('servers/ask/mcp', new URL('.', gateway.url)).href
  }, 90_000)
  afterAll(async () => {
    await Promise.all([stopCli(bridge), stopCli(gateway)])
  })

  for (const [name, open] of Object.entries(CLIENTS)) {
    it(`relays sampling, elicitation and roots to the ${name} client as the server answers it directly`, async () => {
      const alone = await outcomes(await open(direct, 'accept'), TOOLS)
      expect(alone).toEqual({
        ask_model: { content: [{ type: 'text', text: 'model test-model said Paris' }] },
        confirm: { content: [{ type: 'text', text: 'accept {"ok":true}' }] },
        list_roots: { content: [{ type: 'text', text: '2 roots: file:///work/a file:///work/b' }] },
      })
      expect(await outcomes(await open({ url: bridge!.url }, 'accept'), TOOLS)).toEqual(alone)
      expect(await outcomes(await open({ url: member }, 'accept'), TOOLS)).toEqual(alone)
      // That bridge's URL bridged again, to stdio (`toolwire bridge <url> --stdio`).
      const stdio = { command: process.execPath, args: [CLI, 'bridge', bridge!.url, '--stdio'] }
      expect(await outcomes(await open(stdio, 'accept'), TOOLS)).toEqual(alone)
    }, 60_000)

    it(`gives the ${name} client's decline and refusal to the upstream, through bridge and gateway alike`, async () => {
      const declined = await outcomes(await open(direct, 'decline'), ['confirm'])
      expect(declined).toEqual({ confirm: { content: [{ type: 'text', text: 'decline' }] } })
      expect(await outcomes(await open({ url: bridge!.url }, 'decline'), ['confirm'])).toEqual(declined)
      expect(await outcomes(await open({ url: member }, 'decline'), ['confirm'])).toEqual(declined)

      const viaBridge = await outcomes(await open({ url: bridge!.url }, 'refuse'), ['ask_model'])
      expect(JSON.stringify(viaBridge)).toMatch(/refused to let the model answer/)
      expect(JSON.stringify(viaBridge)).not.toMatch(/unavailable/i)
      expect(await outcomes(await open({ url: member }, 'refuse'), ['ask_model'])).toEqual(viaBridge)
    }, 60_000)
  }
})
