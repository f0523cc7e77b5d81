/**
 * A FastMCP server (the `fastmcp` test peer; test/fixtures/fastmcp-asking-server.mjs, stdio) whose tools
 * sample (`session.requestSampling`), elicit (the tool context's `elicit`) and list roots, behind the built
 * `toolwire bridge --http … -- <server>` and a one-member `toolwire gateway`. The SDK v1 and SDK v2 clients,
 * declaring sampling, form elicitation and roots with handlers that answer the same every time, get through
 * either the tool list and the answers they get from the server directly over stdio (the gateway's names
 * under the member's namespace). A caller that declared nothing has its questions refused upstream with
 * -32601 naming what was asked (the wording of cli-relay-refusals.test.ts), and the bridge goes on answering.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningCli, startCli, stopCli } from './helpers/cli-process.js'
import { PEERS, ROOT } from './helpers/paths.js'
import { until } from './helpers/wait.js'

const FASTMCP = join(ROOT, 'test', 'fixtures', 'fastmcp-asking-server.mjs')
const DECLARED = { sampling: {}, elicitation: { form: {} }, roots: {} }
const ROOTS = [{ uri: 'file:///work/a' }, { uri: 'file:///work/b' }]
const SAMPLED = { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'Paris' } } as const
const ELICITED = { action: 'accept', content: { ok: true } } as const

/** Where a client connects: an HTTP endpoint, or the server itself as a child process over stdio. */
type Via = { readonly url: string } | { readonly stdio: true }

/** Whether the client declares (and answers) sampling, elicitation and roots, or declares nothing. */
type Declaring = 'all' | 'nothing'

interface Caller {
  listTools(): Promise<{ name: string }[]>
  callTool(name: string, args?: Record<string, unknown>): Promise<unknown>
  close(): Promise<void>
}

/** The pids of the servers the direct stdio clients started: afterAll stops any still running. */
const directPids: number[] = []

async function sdkV1(via: Via, declaring: Declaring): Promise<Caller> {
  const client = new SdkClient(
    { name: 'sdk-v1', version: '1.0.0' },
    { capabilities: declaring === 'all' ? DECLARED : {} },
  )
  if (declaring === 'all') {
    client.setRequestHandler(CreateMessageRequestSchema, () => SAMPLED)
    client.setRequestHandler(ElicitRequestSchema, () => ELICITED)
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: ROOTS }))
  }
  if ('url' in via) await client.connect(new StreamableHTTPClientTransport(new URL(via.url)))
  else {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [FASTMCP],
      stderr: 'ignore',
    })
    await client.connect(transport)
    if (transport.pid !== null) directPids.push(transport.pid)
  }
  return {
    listTools: async () => (await client.listTools()).tools,
    callTool: (name, args = {}) => client.callTool({ name, arguments: args }),
    close: () => client.close(),
  }
}

async function sdkV2(via: Via, declaring: Declaring): Promise<Caller> {
  const client = new ClientV2(
    { name: 'sdk-v2', version: '1.0.0' },
    { capabilities: declaring === 'all' ? DECLARED : {} },
  )
  if (declaring === 'all') {
    client.setRequestHandler('sampling/createMessage', () => SAMPLED)
    client.setRequestHandler('elicitation/create', () => ELICITED)
    client.setRequestHandler('roots/list', () => ({ roots: ROOTS }))
  }
  if ('url' in via) await client.connect(new HttpTransportV2(new URL(via.url)))
  else {
    const transport = new StdioTransportV2({ command: process.execPath, args: [FASTMCP], stderr: 'ignore' })
    await client.connect(transport)
    if (transport.pid !== null) directPids.push(transport.pid)
  }
  return {
    listTools: async () => (await client.listTools()).tools,
    callTool: (name, args = {}) => client.callTool({ name, arguments: args }),
    close: () => client.close(),
  }
}

const CLIENTS = { 'SDK v1': sdkV1, 'SDK v2': sdkV2 } as const

/** Each tool's outcome: its result, or the JSON-RPC error the call ended in. */
const outcome = (call: Promise<unknown>): Promise<unknown> =>
  call.catch((error: { code?: number; message: string }) => ({ error: error.code, message: error.message }))

/** The tool list and every tool's outcome through one path; names come back without its prefix. */
async function answers(caller: Caller, prefix: string): Promise<Record<string, unknown>> {
  try {
    const tools = (await caller.listTools())
      .map((tool) => ({ ...tool, name: tool.name.slice(prefix.length) }))
      .sort((a, b) => a.name.localeCompare(b.name))
    return {
      tools,
      ask_model: await outcome(caller.callTool(`${prefix}ask_model`)),
      confirm: await outcome(caller.callTool(`${prefix}confirm`)),
      list_roots: await outcome(caller.callTool(`${prefix}list_roots`)),
      echo: await outcome(caller.callTool(`${prefix}echo`, { text: 'hello' })),
    }
  } finally {
    await caller.close()
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const text = (value: string) => ({ content: [{ type: 'text', text: value }] })
const failed = (tool: string, message: string) => ({
  content: [{ type: 'text', text: `Tool '${tool}' execution failed: ${message}` }],
  isError: true,
})

describe('a FastMCP server that asks, behind toolwire bridge and a one-member toolwire gateway', () => {
  let bridge: RunningCli | undefined
  let gateway: RunningCli | undefined
  /** Each endpoint with the prefix its tool names take. */
  let endpoints: { name: string; url: string; prefix: string }[] = []
  beforeAll(async () => {
    // FastMCP is a test peer: without it the fixture cannot start, and the bridge's error would not say why.
    if (!existsSync(join(PEERS, 'node_modules', 'fastmcp', 'package.json')))
      throw new Error('fastmcp is not installed in test/peers: run `npm run test:peers` first')
    const config = join(mkdtempSync(join(tmpdir(), 'toolwire-fastmcp-')), 'mcp.json')
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { fast: { command: process.execPath, args: [FASTMCP] } } }),
    )
    ;[bridge, gateway] = await Promise.all([
      startCli(['bridge', '--http', '127.0.0.1:0', '--', process.execPath, FASTMCP]),
      startCli(['gateway', config, '--http', '127.0.0.1:0']),
    ])
    endpoints = [
      { name: 'bridge', url: bridge.url, prefix: '' },
      { name: 'gateway', url: gateway.url, prefix: 'fast_' },
    ]
  }, 90_000)
  afterAll(async () => {
    await Promise.all([stopCli(bridge), stopCli(gateway)])
    // A direct client's close() ends its server; any one left running is stopped here by its pid.
    const left = directPids.filter(alive)
    for (const pid of left) process.kill(pid, 'SIGTERM')
    await until(() => !left.some(alive), 60_000, 'the direct FastMCP servers to exit')
  }, 90_000)

  for (const [name, open] of Object.entries(CLIENTS)) {
    it(`answers the ${name} client's sampling, elicitation and roots as the server does directly`, async () => {
      const direct = await answers(await open({ stdio: true }, 'all'), '')
      expect(direct).toMatchObject({
        ask_model: text('model test-model said Paris'),
        confirm: text('accept {"ok":true}'),
        list_roots: text('2 roots: file:///work/a file:///work/b'),
        echo: text('echo: hello'),
      })
      expect((direct.tools as { name: string }[]).map((tool) => tool.name)).toEqual([
        'ask_model',
        'confirm',
        'echo',
        'list_roots',
      ])
      for (const endpoint of endpoints) {
        const via = await answers(await open({ url: endpoint.url }, 'all'), endpoint.prefix)
        expect({ [endpoint.name]: via }).toEqual({ [endpoint.name]: direct })
      }
    }, 60_000)

    it(`refuses upstream, naming the question, what the ${name} client did not declare; the bridge goes on`, async () => {
      for (const endpoint of endpoints) {
        const refused = await answers(await open({ url: endpoint.url }, 'nothing'), endpoint.prefix)
        // FastMCP reports the error its question was answered with; a tool that asks nothing still answers.
        expect({ [endpoint.name]: refused }).toMatchObject({
          [endpoint.name]: {
            ask_model: failed(
              'ask_model',
              'MCP error -32601: The caller cannot be asked sampling/createMessage: it did not declare sampling',
            ),
            confirm: failed(
              'confirm',
              'MCP error -32601: The caller cannot be asked elicitation/create: it did not declare elicitation',
            ),
            list_roots: failed(
              'list_roots',
              'MCP error -32601: The caller cannot be asked roots/list: it did not declare roots',
            ),
            echo: text('echo: hello'),
          },
        })
      }
      // The next caller, declaring everything, is answered through the same bridge and its same upstream.
      const next = await answers(await open({ url: bridge!.url }, 'all'), '')
      expect(next).toMatchObject({
        ask_model: text('model test-model said Paris'),
        confirm: text('accept {"ok":true}'),
        list_roots: text('2 roots: file:///work/a file:///work/b'),
      })
      expect(bridge!.child.exitCode).toBeNull()
      expect(bridge!.stderr()).not.toMatch(/unavailable|restart/i)
    }, 60_000)
  }
})
