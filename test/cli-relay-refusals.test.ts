/**
 * What happens when a question an upstream asks cannot be answered, through the built `toolwire bridge` and
 * `toolwire gateway` alike. server-filesystem (stdio, with a directory argument) asks for roots as soon as it
 * is initialized, before any caller exists: it gets an empty list, so it logs no failure and keeps its
 * directory, and its tools work for a caller that declares roots. The official SDK v1 asking server's tools
 * report what their question was answered with: a caller (SDK v1, SDK v2, toolwire's 2026-07-28 client) that
 * did not declare the capability has the upstream refused with -32601 naming the question; a refusal keeps
 * the caller's own code; an elicitation answer that breaks the requested schema is refused naming the field;
 * a decline is the upstream's answer. None reads "unavailable": the upstream is healthy.
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
  McpError as SdkError,
} from '@modelcontextprotocol/sdk/types.js'
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpTransportV2,
} from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect } from '../src/client/index.js'
import { type RunningCli, startCli, stopCli } from './helpers/cli-process.js'
import { ROOT } from './helpers/paths.js'
import { textOf, until } from './helpers/wait.js'

const ASKING = join(ROOT, 'test', 'fixtures', 'sdk-v1-asking-server.mjs')
const FILESYSTEM = join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-filesystem',
  'dist',
  'index.js',
)

/** A gateway config file with one member `name` running `args` under node. */
function gatewayConfig(name: string, args: string[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'toolwire-refusals-')), 'mcp.json')
  writeFileSync(file, JSON.stringify({ mcpServers: { [name]: { command: process.execPath, args } } }))
  return file
}

/** A tool's outcome as text: its content, or the JSON-RPC error it ended in. */
const outcome = (call: Promise<unknown>): Promise<string> =>
  call.then(textOf, (error: { code?: number; message: string }) => `error ${error.code}: ${error.message}`)

describe.skipIf(process.platform === 'win32')(
  'server-filesystem asks for roots before any caller exists',
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-fs-roots-'))
    const note = join(dir, 'note.txt')
    writeFileSync(note, 'hello from the served folder\n')
    let bridge: RunningCli | undefined
    let gateway: RunningCli | undefined
    beforeAll(async () => {
      ;[bridge, gateway] = await Promise.all([
        startCli(['bridge', '--http', '127.0.0.1:0', '--', process.execPath, FILESYSTEM, dir]),
        startCli(['gateway', gatewayConfig('fs', [FILESYSTEM, dir]), '--http', '127.0.0.1:0']),
      ])
    }, 90_000)
    afterAll(() => Promise.all([stopCli(bridge), stopCli(gateway)]))

    for (const via of ['bridge', 'gateway'] as const) {
      it(`through the ${via}: an empty list, no failure logged, and its tools work for a caller with roots`, async () => {
        const cli = (via === 'bridge' ? bridge : gateway) as RunningCli
        // What server-filesystem logs once it has the (empty) answer: the roots request was answered.
        await until(
          () => cli.stderr().includes('No valid root directories provided by client'),
          'roots answer',
        )
        expect(cli.stderr()).not.toMatch(/Failed to request|did not declare/)
        const client = new SdkClient(
          { name: 'with-roots', version: '1.0.0' },
          { capabilities: { roots: {} } },
        )
        client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: `file://${dir}` }] }))
        await client.connect(new StreamableHTTPClientTransport(new URL(cli.url)))
        try {
          const prefix = via === 'gateway' ? 'fs_' : ''
          const read = await client.callTool({ name: `${prefix}read_text_file`, arguments: { path: note } })
          expect(textOf(read)).toContain('hello from the served folder')
          const allowed = await client.callTool({ name: `${prefix}list_allowed_directories`, arguments: {} })
          expect(textOf(allowed)).toContain(dir)
        } finally {
          await client.close()
        }
        expect(cli.stderr()).not.toMatch(/Failed to request/)
      }, 60_000)
    }
  },
)

/** How a caller answers: it declares nothing, refuses sampling with -1, or answers a form with a bad field. */
type Answering = 'undeclared' | 'refuse' | 'bad-field' | 'decline'

const DECLARED = { sampling: {}, elicitation: { form: {} }, roots: {} }

interface Caller {
  call(name: string): Promise<string>
  close(): Promise<void>
}

function formAnswer(answering: Answering): { action: 'accept' | 'decline'; content?: { ok: string } } {
  return answering === 'decline' ? { action: 'decline' } : { action: 'accept', content: { ok: 'yes' } }
}

async function sdkV1(url: string, answering: Answering): Promise<Caller> {
  const client = new SdkClient(
    { name: 'sdk-v1', version: '1.0.0' },
    { capabilities: answering === 'undeclared' ? {} : DECLARED },
  )
  if (answering !== 'undeclared') {
    client.setRequestHandler(CreateMessageRequestSchema, () => {
      throw new SdkError(-1, 'User rejected sampling request')
    })
    client.setRequestHandler(ElicitRequestSchema, () => formAnswer(answering))
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [] }))
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  return { call: (name) => outcome(client.callTool({ name, arguments: {} })), close: () => client.close() }
}

async function sdkV2(url: string, answering: Answering): Promise<Caller> {
  const client = new ClientV2(
    { name: 'sdk-v2', version: '1.0.0' },
    { capabilities: answering === 'undeclared' ? {} : DECLARED },
  )
  if (answering !== 'undeclared') {
    client.setRequestHandler('sampling/createMessage', () => {
      throw new Error('User rejected sampling request')
    })
    client.setRequestHandler('elicitation/create', () => formAnswer(answering))
    client.setRequestHandler('roots/list', () => ({ roots: [] }))
  }
  await client.connect(new HttpTransportV2(new URL(url)))
  return { call: (name) => outcome(client.callTool({ name, arguments: {} })), close: () => client.close() }
}

/** toolwire's client on 2026-07-28: questions come as `input_required` rounds. */
function toolwire(url: string, answering: Answering): Promise<Caller> {
  const client = connect(
    { url },
    {
      warn: () => {},
      ...(answering !== 'undeclared' && {
        handlers: {
          sampling: () => Promise.reject(new Error('User rejected sampling request')),
          elicitation: () => formAnswer(answering),
          roots: [],
        },
      }),
    },
  )
  return Promise.resolve({ call: (name) => outcome(client.callTool(name, {})), close: () => client.close() })
}

const CLIENTS = { 'SDK v1': sdkV1, 'SDK v2': sdkV2, toolwire } as const

describe('a question the caller cannot or will not answer, through bridge and gateway', () => {
  let bridge: RunningCli | undefined
  let gateway: RunningCli | undefined
  /** Each endpoint with the prefix its tool names take. */
  let endpoints: { name: string; url: string; prefix: string }[] = []
  beforeAll(async () => {
    ;[bridge, gateway] = await Promise.all([
      startCli(['bridge', '--http', '127.0.0.1:0', '--', process.execPath, ASKING]),
      startCli(['gateway', gatewayConfig('ask', [ASKING]), '--http', '127.0.0.1:0']),
    ])
    endpoints = [
      { name: 'bridge', url: bridge.url, prefix: '' },
      { name: 'gateway', url: gateway.url, prefix: 'ask_' },
      { name: 'gateway member', url: new URL('servers/ask/mcp', gateway.url).href, prefix: '' },
    ]
  }, 90_000)
  afterAll(() => Promise.all([stopCli(bridge), stopCli(gateway)]))

  /** Each endpoint's outcomes of the three asking tools, for one client answering one way. */
  async function outcomes(
    open: (url: string, answering: Answering) => Promise<Caller>,
    answering: Answering,
    tools: readonly string[],
  ): Promise<Record<string, string>[]> {
    const all: Record<string, string>[] = []
    for (const endpoint of endpoints) {
      const caller = await open(endpoint.url, answering)
      const out: Record<string, string> = {}
      try {
        for (const tool of tools) out[tool] = await caller.call(`${endpoint.prefix}${tool}`)
      } finally {
        await caller.close()
      }
      all.push(out)
    }
    return all
  }

  for (const [name, open] of Object.entries(CLIENTS)) {
    it(`${name}: a capability not declared is refused upstream with -32601 naming the question`, async () => {
      const [first, ...rest] = await outcomes(open, 'undeclared', ['ask_model', 'confirm', 'list_roots'])
      // The upstream tool reports the error its question was answered with.
      expect(first).toEqual({
        ask_model:
          'MCP error -32601: The caller cannot be asked sampling/createMessage: it did not declare sampling',
        confirm:
          'MCP error -32601: The caller cannot be asked elicitation/create: it did not declare elicitation',
        list_roots: 'MCP error -32601: The caller cannot be asked roots/list: it did not declare roots',
      })
      for (const other of rest) expect(other).toEqual(first)
    }, 60_000)

    it(`${name}: a refusal keeps its reason, a bad field is named, a decline is the answer`, async () => {
      const refused = await outcomes(open, 'refuse', ['ask_model'])
      const badField = await outcomes(open, 'bad-field', ['confirm'])
      const declined = await outcomes(open, 'decline', ['confirm'])
      for (const each of declined) expect(each).toEqual({ confirm: 'decline' })
      expect(JSON.stringify([refused, badField, declined])).not.toMatch(/unavailable/i)
      expect(new Set(refused.map((each) => each.ask_model)).size).toBe(1)
      if (name === 'toolwire') {
        // On 2026-07-28 a question is an `input_required` round: a handler's refusal stays in the caller's
        // own client (the round is never retried, the upstream call was cancelled with it), and an answer
        // that breaks the schema counts as missing, so it is asked again (patterns/mrtr §Error Handling)
        // until the client's round limit.
        for (const each of refused) expect(each.ask_model).toContain('User rejected sampling request')
        for (const each of badField) expect(each.confirm).toMatch(/still asking for input after 10 rounds/)
        return
      }
      for (const each of refused) {
        expect(each.ask_model).toMatch(
          /The client refused sampling\/createMessage: .*User rejected sampling request/,
        )
        // The SDK v1 client's own code (-1, client/sampling §Error Handling) reaches the upstream as it sent it.
        if (name === 'SDK v1') expect(each.ask_model).toMatch(/^MCP error -1: /)
      }
      for (const each of badField) {
        expect(each.confirm).toBe(
          'MCP error -32602: The client answered elicitation/create with a malformed result: ok: must be a boolean',
        )
      }
    }, 60_000)
  }
})
