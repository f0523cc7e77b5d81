/**
 * toolwire's client against the official TypeScript SDK v2 server (serving 2026-07-28), over Streamable HTTP
 * on a real socket and over stdio: list, call, structured output, input_required, progress, listen.
 */
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { toNodeHandler } from '@modelcontextprotocol/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, type Client, type ClientTarget } from '../src/client/index.js'
import { StdioTransport } from '../src/client/stdio-entry.js'
import { recordingFetch } from './helpers/recording-fetch.js'
import { tapStdio } from './helpers/stdio-tap.js'
// @ts-expect-error plain JS fixture without type declarations
import { createSdkHandler } from './fixtures/sdk-server.mjs'
import { ROOT } from './helpers/paths.js'
import { join } from 'node:path'

const SDK_SERVER = join(ROOT, 'test', 'fixtures', 'sdk-server.mjs')

interface SdkHandler {
  fetch: (request: Request) => Promise<Response>
  close: () => Promise<void>
  notify: { toolsChanged: () => void }
}

let handler: SdkHandler
let http: HttpServer
let url: string

beforeAll(async () => {
  handler = createSdkHandler() as SdkHandler
  http = createServer(toNodeHandler(handler as never) as never)
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`
})

afterAll(async () => {
  await handler.close()
  http.closeAllConnections()
  await new Promise<void>((resolve) => http.close(() => resolve()))
})

// Every message the SDK server sends is checked against the MCP schema (HTTP through the recorder, stdio by a tap).
let httpProblems: unknown[] = []
const targets: [string, () => ClientTarget][] = [
  [
    'HTTP',
    () => {
      const recorder = recordingFetch((request) => fetch(request))
      httpProblems = recorder.problems
      return { url, fetch: recorder.fetch }
    },
  ],
  ['stdio', () => new StdioTransport({ command: process.execPath, args: [SDK_SERVER], stderr: 'ignore' })],
]

describe.each(targets)('SDK v2 server over %s', (label, target) => {
  let client: Client
  const elicited: unknown[] = []
  let problems: unknown[] = []

  beforeAll(() => {
    client = connect(target(), {
      handlers: {
        elicitation: (params) => {
          elicited.push(params)
          return { action: 'accept', content: { name: 'Ada' } }
        },
      },
    })
  })
  beforeAll(() => {
    problems = label === 'HTTP' ? httpProblems : tapStdio((client.transport as StdioTransport).process)
  })
  afterAll(async () => {
    await client.close()
    expect(problems).toEqual([])
  })

  it('discovers the server', async () => {
    const discovered = await client.discover()
    expect(discovered.supportedVersions).toContain('2026-07-28')
    expect(discovered.capabilities.tools).toBeDefined()
    expect((await client.serverInfo())?.name).toBe('sdk-interop')
  })

  it('lists and calls a tool with structured output validated against its outputSchema', async () => {
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['add', 'steps', 'ask_name']))
    const result = await client.callTool('add', { a: 2, b: 40 })
    expect(result.structuredContent).toEqual({ sum: 42 })
    expect(result.isError).toBeFalsy()
  })

  it('reports progress in order', async () => {
    const seen: number[] = []
    const result = await client.callTool('steps', {}, { onProgress: (p) => seen.push(p.progress) })
    expect(seen).toEqual([1, 2, 3])
    expect(result.content[0]).toEqual({ type: 'text', text: 'three steps done' })
  })

  it('runs an input_required round trip through the elicitation handler', async () => {
    const result = await client.callTool('ask_name')
    expect(result.content[0]).toEqual({ type: 'text', text: 'Hello, Ada!' })
    expect(elicited).toHaveLength(1)
    expect(elicited[0]).toMatchObject({ message: 'What is your name?' })
  })

  it('returns tool errors as results, or throws them when asked', async () => {
    const result = await client.callTool('fail')
    expect(result.isError).toBe(true)
    await expect(client.callTool('fail', {}, { throwOnToolError: true })).rejects.toThrow(
      'it failed on purpose',
    )
  })

  it('gets protocol errors with the server message', async () => {
    // Sent although unlisted, so the SDK server's own error comes back.
    await expect(client.callTool('no_such_tool', {}, { allowUnlisted: true })).rejects.toMatchObject({
      name: 'McpError',
      code: -32602,
    })
  })

  it('listens for tools/list_changed', async () => {
    let notify!: (method: string) => void
    const arrived = new Promise<string>((resolve) => (notify = resolve))
    const sub = await client.subscribe(
      { toolsListChanged: true },
      { onNotification: (n) => notify(n.method) },
    )
    expect(sub.acknowledged).toEqual({ toolsListChanged: true })
    await client.callTool('grow')
    // Over HTTP every request gets its own server instance, so the change is published on the handler's bus.
    if (label === 'HTTP') handler.notify.toolsChanged()
    expect(await arrived).toBe('notifications/tools/list_changed')
    if (label === 'stdio')
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('extra')
    await sub.close()
    expect(await sub.ended).toEqual({ reason: 'closed' })
  })

  it('demultiplexes concurrent subscriptions', async () => {
    const tools: string[] = []
    const prompts: string[] = []
    let notify!: () => void
    const arrived = new Promise<void>((resolve) => (notify = resolve))
    const toolsSub = await client.subscribe(
      { toolsListChanged: true },
      { onNotification: (n) => (tools.push(n.method), notify()) },
    )
    const promptsSub = await client.subscribe(
      { promptsListChanged: true },
      { onNotification: (n) => prompts.push(n.method) },
    )
    await client.callTool('grow')
    if (label === 'HTTP') handler.notify.toolsChanged()
    await arrived
    // A round trip after the change: over stdio (one ordered pipe) anything sent before its answer has
    // arrived; over HTTP the listen streams are separate connections, so this checks what arrived by then.
    await client.listTools({ fresh: true })
    expect(tools).toEqual(['notifications/tools/list_changed'])
    expect(prompts).toEqual([])
    await Promise.all([toolsSub.close(), promptsSub.close()])
  })
})
