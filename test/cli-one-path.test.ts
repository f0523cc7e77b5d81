/**
 * One job, one path: `toolwire bridge` is a gateway of one member. The same scenarios run through the built
 * `toolwire bridge --http … -- <server>` and `toolwire gateway` with that server as its one member (the
 * merged endpoint, names under the member's namespace), in front of the same upstream (the official SDK v1
 * asking server over stdio), called by the SDK v1 and SDK v2 clients: the tool list, a plain call, a call
 * that samples, one that elicits, one that lists roots, progress notifications, and a call cancelled while
 * it runs (the upstream sees the cancellation, and the next call works). The answers must be equal once
 * the namespace is taken off; each is also checked for what it should be.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js'
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
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningCli, startCli, stopCli } from './helpers/cli-process.js'
import { ROOT } from './helpers/paths.js'
import { until } from './helpers/wait.js'

const ASKING = join(ROOT, 'test', 'fixtures', 'sdk-v1-asking-server.mjs')
const CAPABILITIES = { sampling: {}, elicitation: { form: {} }, roots: {} }
const ROOTS = [{ uri: 'file:///work/a' }, { uri: 'file:///work/b' }]
const SAMPLED = { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'Paris' } } as const
const CANCELLED_LINE = 'wait_for_cancel: cancelled'

interface Progress {
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

interface CallOptions {
  readonly signal?: AbortSignal
  readonly onprogress?: (progress: Progress) => void
}

/** What the scenarios need of a client: SDK v1 and SDK v2 alike. */
interface Caller {
  listTools(): Promise<{ name: string }[]>
  callTool(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<unknown>
  close(): Promise<void>
}

async function sdkV1(url: string): Promise<Caller> {
  const client = new SdkClient({ name: 'sdk-v1', version: '1.0.0' }, { capabilities: CAPABILITIES })
  client.setRequestHandler(CreateMessageRequestSchema, () => SAMPLED)
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { ok: true } }))
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: ROOTS }))
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  return {
    listTools: async () => (await client.listTools()).tools,
    callTool: (name, args, options) => client.callTool({ name, arguments: args }, undefined, options),
    close: () => client.close(),
  }
}

async function sdkV2(url: string): Promise<Caller> {
  const client = new ClientV2({ name: 'sdk-v2', version: '1.0.0' }, { capabilities: CAPABILITIES })
  client.setRequestHandler('sampling/createMessage', () => SAMPLED)
  client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { ok: true } }))
  client.setRequestHandler('roots/list', () => ({ roots: ROOTS }))
  await client.connect(new HttpTransportV2(new URL(url)))
  return {
    listTools: async () => (await client.listTools()).tools,
    callTool: (name, args, options) => client.callTool({ name, arguments: args }, options),
    close: () => client.close(),
  }
}

const CLIENTS = { 'SDK v1': sdkV1, 'SDK v2': sdkV2 } as const

/** One endpoint to run the scenarios against: its URL, its tools' prefix, and the CLI serving it. */
interface Path {
  readonly url: string
  readonly prefix: string
  readonly cli: RunningCli
}

const times = (text: string, line: string): number => text.split(line).length - 1

/** Every scenario through one path; names come back without the path's prefix. */
async function scenarios(
  open: (url: string) => Promise<Caller>,
  path: Path,
): Promise<Record<string, unknown>> {
  const caller = await open(path.url)
  const call = (name: string, args: Record<string, unknown> = {}, options?: CallOptions): Promise<unknown> =>
    caller.callTool(`${path.prefix}${name}`, args, options)
  try {
    const tools = (await caller.listTools())
      .map((tool) => ({ ...tool, name: tool.name.slice(path.prefix.length) }))
      .filter((tool) =>
        ['echo', 'count', 'wait_for_cancel', 'ask_model', 'confirm', 'list_roots'].includes(tool.name),
      )
      .sort((a, b) => a.name.localeCompare(b.name))
    const plain = await call('echo', { text: 'hello' })
    const sampled = await call('ask_model')
    const elicited = await call('confirm')
    const roots = await call('list_roots')
    const progress: Progress[] = []
    const counted = await call('count', {}, { onprogress: (p) => progress.push(p) })
    // Cancelled once the upstream tool is running (its first progress notification says so).
    const before = times(path.cli.stderr(), CANCELLED_LINE)
    const controller = new AbortController()
    const cancelled = await call(
      'wait_for_cancel',
      {},
      {
        signal: controller.signal,
        onprogress: () => controller.abort(new Error('the caller cancelled')),
      },
    ).then(
      () => 'answered',
      (error: Error) => `rejected: ${error.message}`,
    )
    // The upstream tool's signal aborted: the cancellation went through to it.
    await until(
      () => times(path.cli.stderr(), CANCELLED_LINE) > before,
      'the upstream to see the cancellation',
    )
    const after = await call('echo', { text: 'still here' })
    return { tools, plain, sampled, elicited, roots, counted, progress, cancelled, after }
  } finally {
    await caller.close()
  }
}

describe('the same scenarios through toolwire bridge and a one-member toolwire gateway', () => {
  let bridge: RunningCli | undefined
  let gateway: RunningCli | undefined
  beforeAll(async () => {
    const config = join(mkdtempSync(join(tmpdir(), 'toolwire-one-path-')), 'mcp.json')
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { ask: { command: process.execPath, args: [ASKING] } } }),
    )
    ;[bridge, gateway] = await Promise.all([
      startCli(['bridge', '--http', '127.0.0.1:0', '--', process.execPath, ASKING]),
      startCli(['gateway', config, '--http', '127.0.0.1:0']),
    ])
  }, 90_000)
  afterAll(() => Promise.all([stopCli(bridge), stopCli(gateway)]))

  for (const [name, open] of Object.entries(CLIENTS)) {
    it(`answers the ${name} client alike`, async () => {
      const viaBridge = await scenarios(open, { url: bridge!.url, prefix: '', cli: bridge! })
      const viaGateway = await scenarios(open, { url: gateway!.url, prefix: 'ask_', cli: gateway! })
      expect(viaGateway).toEqual(viaBridge)
      const text = (value: string) => ({ content: [{ type: 'text', text: value }] })
      expect(viaBridge).toMatchObject({
        plain: text('echo: hello'),
        sampled: text('model test-model said Paris'),
        elicited: text('accept {"ok":true}'),
        roots: text('2 roots: file:///work/a file:///work/b'),
        counted: text('counted to 3'),
        progress: [1, 2, 3].map((step) => ({ progress: step, total: 3, message: `step ${step}` })),
        cancelled: expect.stringMatching(/^rejected: /),
        after: text('echo: still here'),
      })
      expect((viaBridge.tools as { name: string }[]).map((tool) => tool.name)).toEqual([
        'ask_model',
        'confirm',
        'count',
        'echo',
        'list_roots',
        'wait_for_cancel',
      ])
    }, 60_000)
  }
})
