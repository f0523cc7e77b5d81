/**
 * The host side of an MCP Apps view, with the extension's own pieces on both ends: ext-apps' `App` (the view's
 * SDK) and `AppBridge` (the host's), joined by a real MessageChannel (structured clone, as postMessage does),
 * the bridge linked by `linkAppBridge` to toolwire's client, the client talking to a toolwire server on a real
 * socket. The view gets the tool's input and result, calls app-visible tools and only those, reads resources,
 * reports its size and is torn down; a sandbox proxy that says it is ready gets the HTML and its policy.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads'
import { App } from '@modelcontextprotocol/ext-apps'
import { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge'
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { linkAppBridge } from '../src/client/apps-entry.js'
import { type Client, connect } from '../src/client/index.js'
import { defineAppView, defineServer, defineTool, jsonSchema } from '../src/index.js'
import { type RunningServer, serveNode } from '../src/transports/http/node.js'

/** The SDK `Transport` over one end of a MessageChannel: what PostMessageTransport is to a window. */
class PortTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void
  onclose?: () => void
  onerror?: (error: Error) => void
  readonly sent: JSONRPCMessage[] = []
  constructor(private readonly port: MessagePort) {}
  async start(): Promise<void> {
    this.port.on('message', (message: JSONRPCMessage) => this.onmessage?.(message))
  }
  async send(message: JSONRPCMessage): Promise<void> {
    this.sent.push(message)
    this.port.postMessage(message)
  }
  async close(): Promise<void> {
    this.port.close()
    this.onclose?.()
  }
}

/** Waits for `check` to hold, with a generous deadline (no fixed sleeps). */
async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 10_000
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

const HTML = '<!doctype html><html><body>dice</body></html>'
const view = defineAppView({
  uri: 'ui://dice/view',
  name: 'dice',
  html: HTML,
  csp: { resourceDomains: ['https://cdn.example.com'] },
  permissions: { clipboardWrite: {} },
})
let rolls = 0
const roll = defineTool({
  name: 'roll',
  inputSchema: jsonSchema<{ sides: number }>({
    type: 'object',
    properties: { sides: { type: 'integer', minimum: 2 } },
    required: ['sides'],
  }),
  outputSchema: jsonSchema<{ value: number }>({
    type: 'object',
    properties: { value: { type: 'integer' } },
    required: ['value'],
  }),
  ui: view,
  handler: ({ sides }) => ({ value: (rolls++ % sides) + 1 }),
})
const reroll = defineTool({ name: 'reroll', ui: { view, visibility: ['app'] }, handler: () => 'rerolled' })
const modelOnly = defineTool({
  name: 'clear_history',
  ui: { view, visibility: ['model'] },
  handler: () => 'cleared',
})
const failing = defineTool({
  name: 'roll_broken',
  ui: view,
  inputSchema: jsonSchema<{ sides: number }>({ type: 'object', properties: { sides: { type: 'integer' } } }),
  handler: () => '',
})

let running: RunningServer
let client: Client
beforeAll(async () => {
  const server = defineServer({
    name: 'dice',
    version: '1.0.0',
    tools: [roll, reroll, modelOnly, failing],
    invalidArguments: 'protocol-error',
  })
  running = await serveNode(server, { host: '127.0.0.1', port: 0 })
  client = connect({ url: running.url }, { apps: true })
})
afterAll(async () => {
  await client.close()
  await running.close()
})

interface Pair {
  app: App
  bridge: AppBridge
  link: ReturnType<typeof linkAppBridge>
  inputs: unknown[]
  results: unknown[]
  cancelled: unknown[]
  sizes: unknown[]
  teardowns: unknown[]
  hostTransport: PortTransport
}
const open: Pair[] = []
afterEach(async () => {
  for (const pair of open.splice(0)) {
    await pair.app.close().catch(() => {})
    await pair.bridge.close().catch(() => {})
  }
})

async function pair(tool = 'roll'): Promise<Pair> {
  const appView = await client.appFor(tool)
  if (!appView) throw new Error(`${tool} has no view`)
  const bridge = new AppBridge(
    null,
    { name: 'toolwire-test-host', version: '1.0.0' },
    { serverTools: {}, serverResources: {}, logging: {} },
  )
  const sizes: unknown[] = []
  const teardowns: unknown[] = []
  const link = linkAppBridge(bridge, client, {
    view: appView,
    onSizeChange: (size) => sizes.push(size),
    onRequestTeardown: () => teardowns.push('requested'),
  })
  const channel = new MessageChannel()
  const hostTransport = new PortTransport(channel.port1)
  await bridge.connect(hostTransport)
  const app = new App({ name: 'dice-view', version: '1.0.0' }, {}, { autoResize: false })
  const inputs: unknown[] = []
  const results: unknown[] = []
  const cancelled: unknown[] = []
  app.ontoolinput = (params) => inputs.push(params)
  app.ontoolresult = (params) => results.push(params)
  app.ontoolcancelled = (params) => cancelled.push(params)
  app.onteardown = (params) => {
    teardowns.push(params)
    return {}
  }
  await app.connect(new PortTransport(channel.port2))
  const made = { app, bridge, link, inputs, results, cancelled, sizes, teardowns, hostTransport }
  open.push(made)
  return made
}

describe('linkAppBridge with ext-apps App and AppBridge', () => {
  it('delivers the tool input and result after the view initialized', async () => {
    const { app, link, inputs, results, hostTransport } = await pair()
    await link.initialized
    expect(app.getHostVersion()).toEqual({ name: 'toolwire-test-host', version: '1.0.0' })
    const result = await link.run({ sides: 6 })
    await until(() => results.length === 1, 'the tool result at the view')
    expect(inputs).toEqual([{ arguments: { sides: 6 } }])
    expect(results[0]).toMatchObject({ structuredContent: result.structuredContent })
    expect(results[0]).not.toHaveProperty('resultType')
    // Nothing went to the view before it said initialized (apps §Sandbox proxy).
    const methods = hostTransport.sent.map((m) => ('method' in m ? m.method : 'response'))
    expect(methods.indexOf('ui/notifications/tool-input')).toBeGreaterThan(methods.indexOf('response'))
  })

  it('lets the view call tools visible to apps, and refuses the model-only one', async () => {
    const { app } = await pair()
    const called = await app.callServerTool({ name: 'reroll', arguments: {} })
    expect(called.content).toEqual([{ type: 'text', text: 'rerolled' }])
    const rolled = await app.callServerTool({ name: 'roll', arguments: { sides: 20 } })
    expect(rolled.structuredContent).toMatchObject({ value: expect.any(Number) })
    await expect(app.callServerTool({ name: 'clear_history', arguments: {} })).rejects.toThrow(
      /not available to this app/,
    )
    await expect(app.callServerTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(
      /not available to this app/,
    )
  })

  it('lets the view read and list the server resources', async () => {
    const { app } = await pair()
    const read = await app.readServerResource({ uri: 'ui://dice/view' })
    expect(read.contents[0]).toMatchObject({ uri: 'ui://dice/view', text: HTML })
    const listed = await app.listServerResources()
    expect(listed.resources.map((r) => r.uri)).toContain('ui://dice/view')
  })

  it('reports size changes and teardown requests to the page, and tears the view down', async () => {
    const { app, link, sizes, teardowns, hostTransport } = await pair()
    await link.initialized
    await app.sendSizeChanged({ width: 320, height: 180 })
    await until(() => sizes.length === 1, 'the size change at the host')
    expect(sizes).toEqual([{ width: 320, height: 180 }])
    await app.requestTeardown()
    await until(() => teardowns.length === 1, 'the teardown request at the host')
    await link.close('done')
    // The view answered the teardown before the bridge closed; ext-apps 2.0's view schema drops `reason`.
    expect(teardowns).toHaveLength(2)
    expect(hostTransport.sent).toContainEqual(
      expect.objectContaining({ method: 'ui/resource-teardown', params: { reason: 'done' } }),
    )
  })

  it('tells the view a call failed (tool-cancelled) and rethrows', async () => {
    const { link, cancelled } = await pair('roll_broken')
    await expect(link.run({ sides: 'six' })).rejects.toThrow(/Invalid params|sides/)
    await until(() => cancelled.length === 1, 'the cancellation at the view')
    expect(cancelled[0]).toMatchObject({ reason: expect.stringMatching(/sides|Invalid/) })
  })
})

describe('the sandbox proxy handshake', () => {
  it('answers sandbox-proxy-ready with the HTML, CSP and permissions of the view', async () => {
    const appView = await client.appFor('roll')
    if (!appView) throw new Error('roll has no view')
    const bridge = new AppBridge(null, { name: 'h', version: '1' }, { serverTools: {} })
    linkAppBridge(bridge, client, { view: appView })
    const channel = new MessageChannel()
    await bridge.connect(new PortTransport(channel.port1))
    const received: JSONRPCMessage[] = []
    channel.port2.on('message', (message: JSONRPCMessage) => received.push(message))
    // What the sandbox page (on another origin) sends once it can load a view.
    channel.port2.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} })
    await until(() => received.length > 0, 'sandbox-resource-ready')
    expect(received[0]).toEqual({
      jsonrpc: '2.0',
      method: 'ui/notifications/sandbox-resource-ready',
      params: {
        html: HTML,
        csp: { resourceDomains: ['https://cdn.example.com'] },
        permissions: { clipboardWrite: {} },
      },
    })
    channel.port2.close()
    await bridge.close()
  })
})
